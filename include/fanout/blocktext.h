/* blocktext: the text of a YAML block scalar (`|`, `>`) worked out from its source bytes,
 * byte for byte as libfyaml 0.7.12 formats it (fy_token_get_text), in the cases where that
 * is simple and certain; the others are left to libfyaml. Formatting a block scalar's text
 * was libfyaml's costliest step on GitHub workflows (`run: |` blocks): two passes of its
 * line iterator and a copy, a twelfth of a render. */
#ifndef FANOUT_BLOCKTEXT_H
#define FANOUT_BLOCKTEXT_H

#include <stdbool.h>
#include <stddef.h>

struct blocktext {
    const char *header;   /* the header's line (`run: |-`), without its line break */
    size_t header_len;
    const char *body;     /* from the start of the next line to where the scalar ends */
    size_t body_len;
    bool folded;          /* `>`; else `|` */
    bool at_eof;          /* the input ends where the body does */
    /* the body is known to hold no CR, NEL, LS or PS (the source's window, which every
     * byte went through, says so): their searches of it are left out */
    bool plain;
    /* set by blocktext_format: the text is YAML's where libfyaml 0.7.12's is broken (a
     * folded line, blank lines, a line one space deeper or a line whose text begins with a
     * tab; blank lines, then a first line of white space with a tab: it leaves a byte
     * unwritten) or
     * may be (an empty scalar, clipped or stripped: often one byte it never wrote) */
    bool departs;
    /* set by blocktext_format when it declines because the first line with text is no deeper
     * than the key and the header gives no indentation: that line's indentation + 1 (its
     * text's column); 0 otherwise. YAML ends the scalar before that line (8.1.1.1: it is
     * empty), libfyaml 0.7.12 reads the line into it (a key below is lost) */
    unsigned shallow;
};

/* Writes the text of `b` to out (room for b->body_len + 1 bytes) and sets *len; false when
 * it is not one of the cases worked out here (a tab in a line's indentation, a NEL,
 * a first line no more indented than its key ...): then libfyaml's text is the text. */
bool blocktext_format(struct blocktext *b, char *out, size_t *len);

/* Whether the last line of `b` with text is cut by the end of the input (b->at_eof, and no
 * line break after it), which the platforms' readers end differently (stream.h:
 * cut_block_breaks); libfyaml 0.7.12, like npm yaml, ends a clipped one with a break and,
 * unlike it, a kept one without. *keep: the header's chomping indicator is `+` (false
 * where the header cannot be read). A last line of only white space is left out. */
bool blocktext_cut(const struct blocktext *b, bool *keep);

/* An empty block scalar followed by a line no deeper than its key or `-` (text or a
 * comment, after blank lines of spaces): YAML 1.2.2 8.1.1.1 ends the scalar before that
 * line, as GitHub's and Buildkite's readers (npm yaml, gopkg.in/yaml.v3) do; libfyaml
 * 0.7.12 reads it into the scalar (a key below is lost, silently when the header has a
 * comment). blocktext_shallow says whether `b`, as libfyaml delimited it, is one: its
 * header (a comment allowed) has no indentation indicator, and the first line of the body
 * with text is no deeper than the key. */
struct blocktext_shallow {
    size_t indicator; /* the offset of `|` or `>` in the header */
    unsigned col;     /* the column (1-based) of that line's text */
    size_t breaks;    /* the scalar's text: this many line feeds (`+` keeps the blank lines) */
};
bool blocktext_shallow(const struct blocktext *b, struct blocktext_shallow *out);

#endif

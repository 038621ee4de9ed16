/* uploads: which of the pipelines a directory holds land in one build. Buildkite keys are
 * unique within a build (docs: pipelines/configure/dependencies, "step keys ... unique
 * in a build"), and a directory is no build: each pipeline file starts its own (it is
 * the pipeline's steps, or a step's `buildkite-agent pipeline upload FILE`). What fanout
 * can prove is the second: a file whose text runs `pipeline upload PATH` puts PATH into
 * its own build (bugsnag-js's block/x.block.yml uploads basic/x.yml). */
#include "uploads.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fanout/inputs.h"
#include "fanout/strset.h"

/* The longest line looked at: an upload command is short; a longer line is cut. */
#define UPLOADS_LINE 4096

struct files {
    const char *const *paths;
    char **real;      /* each input's real path, or NULL (not walked, or not resolved) */
    unsigned *parent; /* union-find over the inputs */
    size_t n;
};

static unsigned root_of(unsigned *parent, unsigned i)
{
    while (parent[i] != i)
        i = parent[i] = parent[parent[i]];
    return i;
}

/* The checkout `real` (a walked file's real path) is in: the nearest directory above it
 * holding `.git` (a directory, or a worktree's file). Its length in `real` ("" is the
 * file system's root); -1 when none. */
static int checkout_of(const char *real)
{
    char probe[PATH_MAX];
    int at = (int)strlen(real);

    for (;;) {
        while (at > 0 && real[at - 1] != '/')
            at--;
        if (at-- <= 0 || snprintf(probe, sizeof(probe), "%.*s/.git", at, real) >= (int)sizeof(probe))
            return -1;
        if (access(probe, F_OK) == 0)
            return at;
    }
}

/* The walked input that `word` (a path as the command gives it) names, for the job of
 * input i: the agent reads it from the job's working directory, the checkout's root
 * (Buildkite docs, agent/v3/cli-pipeline), so the walked file at root/word; failing that
 * (no checkout found, or no file there: the job may cd first), the one walked file whose
 * path ends with the word's components. n when none, or several and none at the root. */
static size_t named_by(const struct files *f, size_t i, const char *word, size_t len)
{
    char at_root[PATH_MAX];
    int root = checkout_of(f->real[i]);
    size_t found = f->n, matches = 0;

    while (len > 2 && word[0] == '.' && word[1] == '/')
        word += 2, len -= 2;
    if (root >= 0 && snprintf(at_root, sizeof(at_root), "%.*s/%.*s", root, f->real[i], (int)len, word) <
                         (int)sizeof(at_root)) {
        for (size_t j = 0; j < f->n; j++) {
            if (f->real[j] && !strcmp(f->real[j], at_root))
                return j;
        }
    }
    for (size_t j = 0; j < f->n; j++) {
        if (inputs_real_ends_with(f->real[j], word, len))
            found = j, matches++;
    }
    return matches == 1 ? found : f->n;
}

/* The files `pipeline upload` reads: YAML or JSON (buildkite/agent
 * clicommand/pipeline_upload.go's help: "either a YAML (recommended) or JSON
 * configuration file"). */
static const char *const pipeline_suffixes[] = {".yml", ".yaml", ".json", NULL};

/* One token of a command as POSIX sh reads it (Shell Command Language, 2.3 Token
 * Recognition): a word with its quotes removed (2.2), the end of a simple command (an
 * operator `;` `&` `|` `(` `)`, or a newline), a redirection operator (its word is a
 * file, no argument), or `<` alone, whose file is the command's standard input (2.7.1).
 * A `#` at a token's start begins a comment to the end of the line (2.3 rule 9); a
 * backslash-newline outside single quotes is removed (2.2.1). */
enum token { TOKEN_END, TOKEN_WORD, TOKEN_BREAK, TOKEN_REDIRECT, TOKEN_STDIN };

struct lexer {
    const char *p;
    char word[UPLOADS_LINE + 1];
    size_t len;
};

static void word_add(struct lexer *lx, char c)
{
    if (lx->len < UPLOADS_LINE)
        lx->word[lx->len++] = c;
}

static enum token lexer_next(struct lexer *lx)
{
    const char *p = lx->p;

    for (;;) {
        p += strspn(p, " \t\r");
        if (p[0] == '\\' && p[1] == '\n')
            p += 2;
        else if (*p == '#')
            p += strcspn(p, "\n");
        else
            break;
    }
    lx->len = 0;
    if (!*p)
        return TOKEN_END;
    if (strchr(";&|()\n", *p)) {
        lx->p = p + strspn(p, ";&|()\n");
        return TOKEN_BREAK;
    }
    if (*p == '<' || *p == '>') {
        size_t n = strspn(p, "<>&|-");

        lx->p = p + n;
        return n == 1 && *p == '<' ? TOKEN_STDIN : TOKEN_REDIRECT;
    }
    while (*p && !strchr(" \t\r;&|()<>\n", *p)) {
        if (*p == '\\') { /* 2.2.1: the next character is literal, a newline is removed */
            if (p[1] && p[1] != '\n')
                word_add(lx, p[1]);
            p += p[1] ? 2 : 1;
        } else if (*p == '\'') { /* 2.2.2: literal up to the next single quote */
            for (p++; *p && *p != '\''; p++)
                word_add(lx, *p);
            p += *p == '\'';
        } else if (*p == '"') { /* 2.2.3: a backslash escapes only $ ` " \ and newline */
            for (p++; *p && *p != '"'; p++) {
                if (p[0] == '\\' && p[1] == '\n')
                    p++;
                else if (p[0] == '\\' && p[1] && strchr("$`\"\\", p[1]))
                    word_add(lx, *++p);
                else
                    word_add(lx, *p);
            }
            p += *p == '"';
        } else {
            word_add(lx, *p++);
        }
    }
    lx->word[lx->len] = '\0';
    lx->p = p;
    return TOKEN_WORD;
}

/* The files that the commands of `text` (shell text, one line or several joined by a
 * backslash-newline) upload, joined to input `i`'s build: every argument of each
 * `pipeline upload` that is no option (buildkite/agent clicommand/pipeline_upload.go,
 * `FilePaths []string cli:"arg:*"`, read one by one: every positional since agent
 * 3.104.0, c0e0e536f), up to the end of its simple command, and the file given as its
 * standard input (`< FILE`: without a path the agent reads a piped pipeline, its help's
 * "You can also pipe build pipelines to the command"). */
static void link_line(struct files *f, size_t i, const char *text)
{
    struct lexer lx; /* its word is not cleared: every line comes here */
    bool after_pipeline = false, uploading = false, redirected = false, from_stdin = false;
    enum token t;

    lx.p = text;
    lx.len = 0;
    while ((t = lexer_next(&lx)) != TOKEN_END) {
        size_t j;

        if (t != TOKEN_WORD) { /* a redirection's word is no argument; a break ends the command */
            redirected = t == TOKEN_REDIRECT || t == TOKEN_STDIN;
            from_stdin = t == TOKEN_STDIN;
            if (!redirected)
                after_pipeline = uploading = false;
            continue;
        }
        if (redirected && !(from_stdin && uploading)) {
            redirected = false;
        } else if (uploading) {
            redirected = false;
            if (lx.word[0] != '-' && inputs_name_has_suffix(lx.word, lx.len, pipeline_suffixes) &&
                (j = named_by(f, i, lx.word, lx.len)) < f->n)
                f->parent[root_of(f->parent, (unsigned)i)] = root_of(f->parent, (unsigned)j);
        } else {
            uploading = after_pipeline && !strcmp(lx.word, "upload");
            after_pipeline = !strcmp(lx.word, "pipeline");
        }
    }
}

/* Where the quoted YAML scalar opening at `p` closes (YAML 1.2, 7.3.1-2: `\"` escapes a
 * double quote, `''` is a single one); NULL when not on this line. */
static const char *quote_close(const char *p)
{
    for (const char *q = p + 1; *q; q++) {
        if (*p == '"' && q[0] == '\\' && q[1])
            q++;
        else if (*p == '\'' && q[0] == '\'' && q[1] == '\'')
            q++;
        else if (*q == *p)
            return q;
    }
    return NULL;
}

/* The shell text of one line of a pipeline's YAML (or JSON): the line without the
 * sequence entry and key before a value (`- `, `command: `, `"command": `); a value
 * quoted as a whole (what follows the quote is YAML's: nothing, a `,` or a comment) or
 * opening a quote the line does not close, without its quotes and with `\"` `\\` (double)
 * or `''` (single) read. A literal block scalar's (`|`) lines are shell text as they
 * are; a folded one's (`>`) or a plain or quoted scalar continued on the next line are
 * read a line at a time too, so a command folded across lines is missed (a build not
 * joined: a collision unreported, never a false one; docs/buildkite.md). Appended to
 * `out` (`used` of UPLOADS_LINE bytes so far); the new length. */
static size_t yaml_line_text(const char *line, char *out, size_t used)
{
    const char *p = line + strspn(line, " \t"), *colon;
    char quote = 0;

    while (p[0] == '-' && (p[1] == ' ' || p[1] == '\t'))
        p += 1 + strspn(p + 1, " \t");
    if (*p == '"' || *p == '\'')
        colon = quote_close(p); /* a quoted key's closing quote */
    else
        colon = *p && !strchr(" \t#:", *p) ? p + strcspn(p, " \t#:\"'") - 1 : NULL; /* a plain key's end */
    if (colon && colon[1] == ':' && (colon[2] == ' ' || colon[2] == '\t' || !colon[2]))
        p = colon + 2 + strspn(colon + 2, " \t");
    if (*p == '"' || *p == '\'') {
        const char *end = quote_close(p), *after = end ? end + 1 + strspn(end + 1, " \t") : NULL;

        if (!end || !*after || strchr(",#]}", *after))
            quote = *p++;
    }
    for (; *p && used < UPLOADS_LINE; p++) {
        if (quote && *p == quote && !(quote == '\'' && p[1] == '\''))
            break;
        if ((quote == '\'' && *p == '\'') || (quote == '"' && *p == '\\' && (p[1] == '"' || p[1] == '\\')))
            p++;
        out[used++] = *p;
    }
    out[used] = '\0';
    return used;
}

/* Whether a line ends with a backslash that escapes the newline after it (2.2.1): an odd
 * number of them. */
static bool continues(const char *text, size_t len)
{
    size_t n = 0;

    while (n < len && text[len - 1 - n] == '\\')
        n++;
    return n % 2 == 1;
}

/* One line of input `i` (len bytes) after text[0..joined), the lines before it that
 * end in a backslash: read once the command ends. The length of text still to join. A
 * line without `upload` and no line before it uploads nothing (unless the word is
 * spelled with quotes or a backslash inside: not read), and is not looked at further. */
static size_t scan_line(struct files *f, size_t i, const char *line, size_t len, char *text, size_t joined)
{
    bool more = continues(line, len); /* a quoted scalar that ends here ends the command */

    if (!joined && !more && !strstr(line, "upload"))
        return 0;
    joined = yaml_line_text(line, text, joined);
    if (more && joined < UPLOADS_LINE) {
        text[joined++] = '\n';
        return joined;
    }
    link_line(f, i, text);
    return 0;
}

/* Input `i`'s text, a line at a time, a line ending in a backslash joined to the next
 * one (through its source: the read is checked against the run's other reads of it). */
static void scan(struct files *f, size_t i, struct source *src)
{
    char buf[8192], line[UPLOADS_LINE + 1], text[UPLOADS_LINE + 2];
    size_t got, used = 0, joined = 0;

    if (source_rewind(src) != 0)
        return; /* the run's own read says why */
    while ((got = source_read(src, buf, sizeof(buf))) > 0) {
        for (size_t k = 0; k < got; k++) {
            if (buf[k] != '\n') {
                if (used < UPLOADS_LINE)
                    line[used++] = buf[k];
                continue;
            }
            used -= used && line[used - 1] == '\r'; /* YAML reads CRLF as a line break (5.4) */
            line[used] = '\0';
            joined = scan_line(f, i, line, used, text, joined);
            used = 0;
        }
    }
    line[used] = '\0';
    if (scan_line(f, i, line, used, text, joined))
        link_line(f, i, text);
}

int bk_uploads_builds(struct source *const *sources, const char *const *paths, size_t n,
                      const struct strset *walked, unsigned *build, struct diag *d)
{
    struct files f = {paths, inputs_walked_real(paths, n, walked), calloc(n ? n : 1, sizeof(unsigned)), n};
    int rc = f.real && f.parent ? 0 : -1;
    size_t n_walked = 0;

    (void)d; /* the inputs' own sources report */
    for (size_t i = 0; rc == 0 && i < n; i++) {
        f.parent[i] = (unsigned)i;
        n_walked += f.real[i] != NULL;
    }
    /* one walked file has no other to upload: it is not read again */
    for (size_t i = 0; rc == 0 && n_walked > 1 && i < n; i++) {
        if (f.real[i])
            scan(&f, i, sources[i]);
    }
    /* a file named on the command line is of the command line's build (0), and stays there */
    for (size_t i = 0; rc == 0 && i < n; i++)
        build[i] = strset_has(walked, paths[i], strlen(paths[i])) ? root_of(f.parent, (unsigned)i) + 1 : 0;
    inputs_real_free(f.real, n);
    free(f.parent);
    return rc;
}

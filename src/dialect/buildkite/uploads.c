/* uploads: which of the pipelines a directory holds land in one build. Buildkite keys are
 * unique within a build (docs: pipelines/configure/dependencies, "step keys ... unique
 * in a build"), and a directory is no build: each pipeline file starts its own (it is
 * the pipeline's steps, or a step's `buildkite-agent pipeline upload FILE`). What fanout
 * can prove is the second: a file whose text runs `pipeline upload PATH` puts PATH into
 * its own build (bugsnag-js's block/x.block.yml uploads basic/x.yml). */
#define _GNU_SOURCE /* memmem */
#include "uploads.h"
#include "buildkite.h"

#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "fanout/inputs.h"
#include "fanout/stream.h"
#include "fanout/strset.h"
#include "fanout/ynode.h"

/* The longest word looked at: a path is short; a longer word is cut. */
#define UPLOADS_WORD 4096

struct files {
    const char *const *paths;
    char **real;      /* each input's real path, or NULL (not walked, or not resolved) */
    unsigned *parent; /* union-find over the inputs */
    size_t n;
    /* the input being read: its checkout's root (checkout_of), and the texts already
     * read (an alias is a copy: a bomb of them is read once) */
    int root;
    struct strset *read;
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
    int root = f->root;
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
    char word[UPLOADS_WORD + 1];
    size_t len;
};

static void word_add(struct lexer *lx, char c)
{
    if (lx->len < UPLOADS_WORD)
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

/* The files that the commands of `text` (a scalar's text: shell lines) upload, joined to
 * input `i`'s build: every argument of each `pipeline upload` that is no option
 * (buildkite/agent clicommand/pipeline_upload.go, `FilePaths []string cli:"arg:*"`,
 * read one by one: every positional since agent 3.104.0, c0e0e536f), up to the end of
 * its simple command, and the file given as its
 * standard input (`< FILE`: without a path the agent reads a piped pipeline, its help's
 * "You can also pipe build pipelines to the command"). */
static void link_line(struct files *f, size_t i, const char *text)
{
    struct lexer lx; /* its word is written before it is read: not cleared */
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

/* Every scalar of a step's tree: YAML has read its quotes, escapes and folding, so a
 * text is what the agent's shell is given (a `>` block or a plain scalar continued on
 * the next line is one line of shell). */
static void link_scalars(struct files *f, size_t i, const struct ynode *n)
{
    if (n->kind == YNODE_SCALAR) {
        if (strstr(n->u.scalar.text, "upload") && strset_add(f->read, n->u.scalar.text, n->u.scalar.len) != 1)
            link_line(f, i, n->u.scalar.text);
    } else if (n->kind == YNODE_SEQ) {
        for (size_t k = 0; k < n->u.seq.n; k++)
            link_scalars(f, i, n->u.seq.items[k]);
    } else {
        for (size_t k = 0; k < n->u.map.n; k++)
            link_scalars(f, i, n->u.map.pairs[k].value);
    }
}

/* Whether the text of `src` holds "upload" anywhere (most pipelines do not: they are
 * not parsed twice). */
static bool mentions_upload(struct source *src)
{
    static const char word[] = "upload";
    char buf[8192];
    size_t got, kept = 0;

    if (source_rewind(src) != 0)
        return false; /* the run's own read says why */
    while ((got = source_read(src, buf + kept, sizeof(buf) - kept)) > 0) {
        got += kept;
        if (memmem(buf, got, word, sizeof(word) - 1))
            return true;
        kept = got < sizeof(word) - 1 ? got : sizeof(word) - 2; /* a word cut by the read */
        memmove(buf, buf + got - kept, kept);
    }
    return false;
}

/* Input `i`'s commands, read from its steps as YAML reads them; a problem of the file is
 * not said here (the run's own read of it says it). */
static void scan(struct files *f, size_t i, struct source *src)
{
    struct diag *quiet;
    struct stream *s;
    struct stream_item item;

    if (!mentions_upload(src) || source_rewind(src) != 0 || !(quiet = diag_create_buffered(DIAG_TEXT)))
        return;
    f->root = checkout_of(f->real[i]);
    strset_clear(f->read);
    if ((s = stream_open_shaped(src, (unsigned)i, buildkite_steps_shape, quiet)) != NULL) {
        while (stream_next(s, &item) == 1) {
            if (item.doc) {
                link_scalars(f, i, ynode_doc_root(item.doc));
                ynode_doc_destroy(item.doc);
            }
        }
        stream_close(s);
    }
    diag_destroy(quiet);
}

int bk_uploads_builds(struct source *const *sources, const char *const *paths, size_t n,
                      const struct strset *walked, unsigned *build, struct diag *d)
{
    struct files f = {paths, inputs_walked_real(paths, n, walked), calloc(n ? n : 1, sizeof(unsigned)), n, -1,
                      strset_create()};
    int rc = f.real && f.parent && f.read ? 0 : -1;
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
    strset_destroy(f.read);
    return rc;
}

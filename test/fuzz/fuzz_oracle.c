/* The harnesses' oracles: a crash is not the only broken contract. A rendering that
 * renders to something else, JSON that does not parse, a message that spans lines or
 * names no registered rule are bugs the sanitizers cannot see. */
#define _GNU_SOURCE
#include "fuzz.h"

#include <stdlib.h>
#include <string.h>

#include "fanout/diag.h"
#include "fanout/render.h"
#include "fanout/rules.h"

FILE *fuzz_capture_open(struct fuzz_capture *c)
{
    c->buf = NULL;
    c->len = 0;
    if (!(c->fp = open_memstream(&c->buf, &c->len)))
        abort();
    return c->fp;
}

void fuzz_capture_done(struct fuzz_capture *c)
{
    if (c->fp)
        fclose(c->fp);
    c->fp = NULL;
}

void fuzz_capture_free(struct fuzz_capture *c)
{
    fuzz_capture_done(c);
    free(c->buf);
    c->buf = NULL;
}

static void broken(const char *what, const char *s, size_t len)
{
    fprintf(stderr, "fuzz oracle: %s in:\n%.*s\n", what, (int)(len > 4000 ? 4000 : len), s);
    abort();
}

/* ---- a strict JSON reader: only checks, builds nothing ---- */

struct json {
    const char *p, *end;
    unsigned depth;
};

static void json_space(struct json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static bool json_lit(struct json *j, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n))
        return false;
    j->p += n;
    return true;
}

static bool json_digits(struct json *j)
{
    const char *start = j->p;

    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > start;
}

static bool json_number(struct json *j)
{
    if (j->p < j->end && *j->p == '-')
        j->p++;
    if (j->p < j->end && *j->p == '0')
        j->p++;
    else if (!json_digits(j))
        return false;
    if (j->p < j->end && *j->p == '.' && (j->p++, !json_digits(j)))
        return false;
    if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
        j->p++;
        if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
            j->p++;
        return json_digits(j);
    }
    return true;
}

/* A string: no raw control character, only JSON's escapes (UTF-8 is the emitter's and
 * diag's business, checked by their own tests). */
static bool json_string(struct json *j)
{
    if (j->p >= j->end || *j->p++ != '"')
        return false;
    while (j->p < j->end && *j->p != '"') {
        unsigned char c = (unsigned char)*j->p++;

        if (c < 0x20)
            return false;
        if (c != '\\')
            continue;
        if (j->p >= j->end)
            return false;
        c = (unsigned char)*j->p++;
        if (c == 'u') {
            for (int i = 0; i < 4; i++, j->p++) {
                if (j->p >= j->end || !strchr("0123456789abcdefABCDEF", *j->p) || !*j->p)
                    return false;
            }
        } else if (!strchr("\"\\/bfnrt", c) || !c) {
            return false;
        }
    }
    return j->p++ < j->end;
}

static bool json_value(struct json *j)
{
    bool ok = true;

    json_space(j);
    if (j->p >= j->end || ++j->depth > 10000)
        return false;
    if (*j->p == '{' || *j->p == '[') {
        char close = *j->p == '{' ? '}' : ']';
        bool object = close == '}';

        j->p++;
        json_space(j);
        if (j->p < j->end && *j->p == close) {
            j->p++;
        } else {
            for (;;) {
                if (object) {
                    json_space(j);
                    if (!json_string(j))
                        return false;
                    json_space(j);
                    if (j->p >= j->end || *j->p++ != ':')
                        return false;
                }
                if (!json_value(j))
                    return false;
                json_space(j);
                if (j->p < j->end && *j->p == ',') {
                    j->p++;
                    continue;
                }
                if (j->p >= j->end || *j->p++ != close)
                    return false;
                break;
            }
        }
    } else if (*j->p == '"') {
        ok = json_string(j);
    } else if (*j->p == '-' || (*j->p >= '0' && *j->p <= '9')) {
        ok = json_number(j);
    } else {
        ok = json_lit(j, "true") || json_lit(j, "false") || json_lit(j, "null");
    }
    j->depth--;
    return ok;
}

/* Whether [s, s + len) is one JSON text (white space around it allowed). */
static bool json_text(const char *s, size_t len)
{
    struct json j = {s, s + len, 0};

    if (!json_value(&j))
        return false;
    json_space(&j);
    return j.p == j.end;
}

void fuzz_check_json(const char *s, size_t len)
{
    struct json j = {s, s + len, 0};

    for (json_space(&j); j.p < j.end; json_space(&j)) {
        if (!json_value(&j))
            broken("output that is not JSON", s, len);
    }
}

/* ---- messages ---- */

/* Whether `line` (len bytes, no newline) ends with ` [rule]` naming a registered rule. */
static bool ends_with_rule(const char *line, size_t len)
{
    const char *open;
    char name[64];
    size_t n;

    if (len < 4 || line[len - 1] != ']')
        return false;
    for (open = line + len - 2; open > line && *open != '['; open--)
        ;
    n = (size_t)(line + len - 1 - open - 1);
    if (*open != '[' || open == line || open[-1] != ' ' || n == 0 || n >= sizeof(name))
        return false;
    memcpy(name, open + 1, n);
    name[n] = '\0';
    return rules_find(name) != RULE_NONE;
}

/* A SARIF log: one JSON text on its own line, every ruleId in it registered. */
static void check_sarif(const char *s, size_t len)
{
    static const char key[] = "\"ruleId\":\"";

    if (!len || s[len - 1] != '\n' || !json_text(s, len))
        broken("a SARIF log that is not one whole JSON text", s, len);
    for (const char *at = s, *end = s + len; (at = memmem(at, (size_t)(end - at), key, sizeof(key) - 1));) {
        const char *name = at + sizeof(key) - 1, *q = memchr(name, '"', (size_t)(end - name));
        char rule[64];

        if (!q || (size_t)(q - name) >= sizeof(rule))
            broken("a SARIF ruleId that is not a rule's name", at, (size_t)(end - at));
        memcpy(rule, name, (size_t)(q - name));
        rule[q - name] = '\0';
        if (rules_find(rule) == RULE_NONE)
            broken("a SARIF ruleId that is not a rule's name", at, (size_t)(end - at));
        at = q;
    }
}

void fuzz_check_messages(const char *s, size_t len, int format)
{
    if (format == DIAG_SARIF) {
        check_sarif(s, len);
        return;
    }
    for (const char *line = s, *end = s + len; line < end;) {
        const char *nl = memchr(line, '\n', (size_t)(end - line));
        size_t n = nl ? (size_t)(nl - line) : (size_t)(end - line);
        bool ok;

        if (!nl)
            broken("a message line without its newline", s, len);
        if (format == DIAG_JSON) {
            const char *rule = memmem(line, n, "\"rule\":\"", 8);
            const char *q = rule ? memchr(rule + 8, '"', n - (size_t)(rule + 8 - line)) : NULL;
            char name[64];

            ok = json_text(line, n) && line[0] == '{' && q && (size_t)(q - rule - 8) < sizeof(name);
            if (ok) {
                memcpy(name, rule + 8, (size_t)(q - rule - 8));
                name[q - rule - 8] = '\0';
                ok = rules_find(name) != RULE_NONE;
            }
        } else {
            ok = ends_with_rule(line, n);
            if (format == DIAG_GITHUB)
                ok = ok && (!strncmp(line, "::error ", 8) || !strncmp(line, "::warning ", 10) ||
                            !strncmp(line, "::notice ", 9));
        }
        if (!ok)
            broken("a message line that is not one whole message with a registered rule", line, n);
        line += n + 1;
    }
}

/* ---- the fixed point ---- */

void fuzz_check_fixed_point(const char *out, size_t len, const struct render_opts *opts)
{
    struct render_opts again = *opts;
    struct fuzz_capture second, messages;
    struct fuzz_file in;
    const char *path;
    struct diag *d;
    int rc;

    again.format = EMIT_YAML;
    again.validate = false;
    again.strict = false;
    again.shards = NULL;
    again.output = NULL;
    again.sink = NULL;
    again.stats = NULL;
    again.stream = fuzz_capture_open(&second);
    fuzz_file_open(&in, (const uint8_t *)out, len);
    path = in.path;
    d = diag_create(fuzz_capture_open(&messages), DIAG_TEXT);
    rc = render_run(&path, 1, &again, d);
    diag_destroy(d);
    fuzz_capture_done(&messages);
    fuzz_capture_done(&second);
    fuzz_file_close(&in);
    if (rc == 2) {
        fprintf(stderr, "%.*s", (int)messages.len, messages.buf);
        broken("a rendering that fails when rendered again", out, len);
    }
    if (rc == 0 && (second.len != len || memcmp(second.buf, out, len))) {
        fprintf(stderr, "rendered again:\n%.*s\n", (int)second.len, second.buf);
        broken("a rendering that is not a fixed point", out, len);
    }
    fuzz_capture_free(&messages);
    fuzz_capture_free(&second);
}

int fuzz_render_checked(const char *const *paths, size_t n, const struct render_opts *opts, int diag_format)
{
    struct render_opts run = *opts;
    struct fuzz_capture out, messages;
    struct diag *d;
    int rc;

    run.stream = fuzz_capture_open(&out);
    d = diag_create(fuzz_capture_open(&messages), (enum diag_format)diag_format);
    rc = render_run(paths, n, &run, d);
    diag_destroy(d);
    diag_sarif_end(rc); /* as the command line ends the run's log (none begun: nothing) */
    fuzz_capture_done(&messages);
    fuzz_capture_done(&out);
    fuzz_check_messages(messages.buf, messages.len, diag_format);
    if (rc == 0 && out.len > 0 && opts->format == EMIT_JSON)
        fuzz_check_json(out.buf, out.len);
    else if (rc == 0 && out.len > 0)
        fuzz_check_fixed_point(out.buf, out.len, opts);
    fuzz_capture_free(&messages);
    fuzz_capture_free(&out);
    return rc;
}

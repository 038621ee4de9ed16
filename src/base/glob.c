/* glob: path patterns of three platforms (include/fanout/glob.h, docs/globs.md). The
 * picomatch and GitHub dialects become PCRE2 programs: picomatch's own JavaScript
 * regular expression (glob_picomatch.c) read as JavaScript reads it, and GitHub's
 * filter pattern written as one; Buildkite's is zzglob's automaton (glob_zzglob.c). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "glob_internal.h"

#include <pcre2.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A backtracking picomatch regex (`*` is lazy) that runs this long is stopped; JavaScript
 * would go on, so such a path is the one place the answer may differ (docs/globs.md). */
#define MATCH_LIMIT 10000000

struct glob {
    enum glob_dialect dialect;
    bool negated;
    char *literal; /* picomatch: the pattern itself, which a path equal to it matches */
    size_t literal_len;
    pcre2_code *re; /* NULL: matches nothing (picomatch's /$^/ for a regex JS refuses) */
    pcre2_match_data *md; /* the match's own, made once with `re` */
    pcre2_match_context *mc;
    struct zzglob *zz;
};

static void put_code(struct strbuf *b, unsigned long code)
{
    char hex[24];
    snprintf(hex, sizeof(hex), "\\x{%lx}", code);
    strbuf_puts(b, hex);
}

/* The bytes of the UTF-8 character at s[i] (1 for a byte that begins none). */
static size_t char_len(const char *s, size_t i, size_t n)
{
    unsigned char c = (unsigned char)s[i];
    size_t len = c < 0x80 ? 1 : c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
    return i + len <= n ? len : 1;
}

/* A character taken literally, written so that PCRE2 reads it so. */
static void put_literal(struct strbuf *b, const char *s, size_t len)
{
    bool alnum = len == 1 && ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z') ||
                              (s[0] >= '0' && s[0] <= '9'));
    if (len == 1 && !alnum && (unsigned char)s[0] < 0x80)
        strbuf_putc(b, '\\');
    strbuf_put(b, s, len);
}

/* ---- JavaScript regular expressions (non-Unicode mode, with Annex B) on PCRE2 ----
 * What differs: `.` and \s are JavaScript's sets, \v is U+000B, an unknown escape is
 * its character, \0-\7 past the groups are octal, `[` in a class is a character, `]`
 * and `{` outside one are characters, and a quantifier that follows a quantifier, an
 * anchor or nothing is JavaScript's syntax error. (The schema validator's translation,
 * src/schema, is for Unicode-mode patterns, where these escapes are errors.) */
#define JS_DOT "[^\\n\\r\\x{2028}\\x{2029}]"
#define JS_SPACE \
    "\\t\\n\\x0b\\f\\r \\x{a0}\\x{1680}\\x{2000}-\\x{200a}\\x{2028}\\x{2029}\\x{202f}" \
    "\\x{205f}\\x{3000}\\x{feff}"

static int hexval(char c)
{
    return c >= '0' && c <= '9' ? c - '0'
           : c >= 'a' && c <= 'f' ? c - 'a' + 10
           : c >= 'A' && c <= 'F' ? c - 'A' + 10
                                  : -1;
}

static bool hex_run(const char *s, size_t i, size_t n, size_t count, unsigned long *v)
{
    *v = 0;
    for (size_t k = 0; k < count; k++) {
        if (i + k >= n || hexval(s[i + k]) < 0)
            return false;
        *v = *v * 16 + (unsigned long)hexval(s[i + k]);
    }
    return true;
}

static bool is_alpha(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* Annex B's LegacyOctalEscapeSequence at s[i] (a digit 0-7): its value; *i past it. */
static unsigned long legacy_octal(const char *s, size_t *i, size_t n)
{
    unsigned long v = (unsigned long)(s[*i] - '0');
    size_t more = v <= 3 ? 2 : 1;
    (*i)++;
    while (more-- && *i < n && s[*i] >= '0' && s[*i] <= '7')
        v = v * 8 + (unsigned long)(s[(*i)++] - '0');
    return v;
}

struct js_scan {
    size_t captures;
    bool named;
};

static struct js_scan js_groups(const char *s, size_t n)
{
    struct js_scan g = {0, false};
    bool in_class = false;
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '\\') {
            i++;
        } else if (in_class) {
            in_class = s[i] != ']';
        } else if (s[i] == '[') {
            in_class = true;
        } else if (s[i] == '(') {
            if (i + 1 >= n || s[i + 1] != '?')
                g.captures++;
            else if (i + 2 < n && s[i + 2] == '<' && i + 3 < n && s[i + 3] != '=' &&
                     s[i + 3] != '!') {
                g.captures++;
                g.named = true;
            }
        }
    }
    return g;
}

/* An escape at s[i] == '\\' (i + 1 < n): written into `out`; the index after it. */
static size_t js_escape(const char *s, size_t i, size_t n, bool in_class,
                        const struct js_scan *g, struct strbuf *out, bool *assertion)
{
    char c = s[i + 1];
    unsigned long v;

    *assertion = false;
    switch (c) {
    case 'd': case 'D': case 'w': case 'W': case 't': case 'n': case 'f': case 'r':
        strbuf_putc(out, '\\');
        strbuf_putc(out, c);
        return i + 2;
    case 's':
        strbuf_puts(out, in_class ? JS_SPACE : "[" JS_SPACE "]");
        return i + 2;
    case 'S': /* in a class, PCRE2's \S (ASCII white space) stands for JavaScript's */
        strbuf_puts(out, in_class ? "\\S" : "[^" JS_SPACE "]");
        return i + 2;
    case 'v':
        strbuf_puts(out, "\\x0b");
        return i + 2;
    case 'b':
        if (in_class) {
            strbuf_puts(out, "\\x08");
        } else {
            strbuf_puts(out, "\\b");
            *assertion = true;
        }
        return i + 2;
    case 'B':
        if (in_class) {
            strbuf_putc(out, 'B');
        } else {
            strbuf_puts(out, "\\B");
            *assertion = true;
        }
        return i + 2;
    case 'c':
        if (i + 2 < n && (is_alpha(s[i + 2]) ||
                          (in_class && ((s[i + 2] >= '0' && s[i + 2] <= '9') || s[i + 2] == '_')))) {
            put_code(out, (unsigned long)(unsigned char)s[i + 2] % 32);
            return i + 3;
        }
        strbuf_puts(out, "\\\\"); /* a backslash; the `c` is read as itself next */
        return i + 1;
    case 'x':
        if (hex_run(s, i + 2, n, 2, &v)) {
            put_code(out, v);
            return i + 4;
        }
        strbuf_putc(out, 'x');
        return i + 2;
    case 'u':
        if (hex_run(s, i + 2, n, 4, &v)) {
            put_code(out, v);
            return i + 6;
        }
        strbuf_putc(out, 'u');
        return i + 2;
    case 'k':
        if (g->named && !in_class) {
            strbuf_puts(out, "\\k");
            return i + 2;
        }
        strbuf_putc(out, 'k');
        return i + 2;
    default:
        break;
    }
    if (c >= '0' && c <= '9') {
        size_t j = i + 1;
        if (!in_class && c != '0') {
            unsigned long dec = 0;
            size_t k = j;
            while (k < n && s[k] >= '0' && s[k] <= '9' && dec < 100000)
                dec = dec * 10 + (unsigned long)(s[k++] - '0');
            if (dec <= g->captures) {
                char ref[32];
                snprintf(ref, sizeof(ref), "\\g{%lu}", dec);
                strbuf_puts(out, ref);
                return k;
            }
        }
        if (c >= '8') {
            strbuf_putc(out, c);
            return i + 2;
        }
        put_code(out, legacy_octal(s, &j, n));
        return j;
    }
    put_literal(out, s + i + 1, char_len(s, i + 1, n)); /* an identity escape */
    return i + 1 + char_len(s, i + 1, n);
}

/* {n}, {n,} or {n,m} at s[i]: its length, 0 when it is not one; *bad when n > m. */
static size_t braced_quantifier(const char *s, size_t i, size_t n, bool *bad)
{
    size_t k = i + 1, d1 = 0, d2 = 0;
    unsigned long lo = 0, hi = 0;
    *bad = false;
    while (k < n && s[k] >= '0' && s[k] <= '9') {
        lo = lo < 1000000000 ? lo * 10 + (unsigned long)(s[k] - '0') : lo;
        k++;
        d1++;
    }
    if (!d1 || k >= n)
        return 0;
    if (s[k] == '}')
        return k + 1 - i;
    if (s[k] != ',')
        return 0;
    k++;
    while (k < n && s[k] >= '0' && s[k] <= '9') {
        hi = hi < 1000000000 ? hi * 10 + (unsigned long)(s[k] - '0') : hi;
        k++;
        d2++;
    }
    if (k >= n || s[k] != '}')
        return 0;
    *bad = d2 && hi < lo;
    return k + 1 - i;
}

enum js_prev { JS_NONE, JS_ATOM, JS_QUANT, JS_LAZY };

/* `src` (JavaScript) as PCRE2 source; false where JavaScript throws a SyntaxError. */
static bool js_to_pcre2(const char *s, size_t n, struct strbuf *out)
{
    struct js_scan g = js_groups(s, n);
    struct strbuf groups = {0}; /* open groups: 'g' group, 'a' lookahead, 'b' lookbehind */
    enum js_prev prev = JS_NONE;
    bool in_class = false, ok = false;

    for (size_t i = 0; i < n;) {
        char c = s[i];
        bool assertion;

        if (c == '\\' && i + 1 >= n)
            goto done;
        if (in_class) {
            if (c == ']') {
                in_class = false;
                prev = JS_ATOM;
                strbuf_putc(out, ']');
                i++;
            } else if (c == '[') {
                strbuf_puts(out, "\\[");
                i++;
            } else if (c == '\\') {
                i = js_escape(s, i, n, true, &g, out, &assertion);
            } else {
                strbuf_put(out, s + i, char_len(s, i, n));
                i += char_len(s, i, n);
            }
            continue;
        }
        switch (c) {
        case '\\':
            i = js_escape(s, i, n, false, &g, out, &assertion);
            prev = assertion ? JS_NONE : JS_ATOM;
            continue;
        case '.':
            strbuf_puts(out, JS_DOT);
            prev = JS_ATOM;
            break;
        case '[':
            strbuf_putc(out, '[');
            if (i + 1 < n && s[i + 1] == '^') {
                strbuf_putc(out, '^');
                i++;
            }
            in_class = true;
            break;
        case '(': {
            char kind = 'g';
            size_t skip = 1;
            if (i + 1 < n && s[i + 1] == '?') {
                if (i + 2 < n && s[i + 2] == ':') {
                    skip = 3;
                } else if (i + 2 < n && (s[i + 2] == '=' || s[i + 2] == '!')) {
                    kind = 'a';
                    skip = 3;
                } else if (i + 3 < n && s[i + 2] == '<' && (s[i + 3] == '=' || s[i + 3] == '!')) {
                    kind = 'b';
                    skip = 4;
                } else if (i + 2 < n && s[i + 2] == '<') {
                    size_t k = i + 3;
                    while (k < n && (is_alpha(s[k]) || s[k] == '_' ||
                                     (k > i + 3 && s[k] >= '0' && s[k] <= '9')))
                        k++;
                    if (k == i + 3 || k >= n || s[k] != '>')
                        goto done;
                    skip = k + 1 - i;
                } else {
                    goto done;
                }
            }
            strbuf_put(out, s + i, skip);
            strbuf_putc(&groups, kind);
            prev = JS_NONE;
            i += skip;
            continue;
        }
        case ')':
            if (!groups.len)
                goto done;
            prev = groups.s[groups.len - 1] == 'b' ? JS_NONE : JS_ATOM;
            strbuf_cut(&groups, groups.len - 1);
            strbuf_putc(out, ')');
            break;
        case '*': case '+': case '?':
            if (c == '?' && prev == JS_QUANT) {
                prev = JS_LAZY;
            } else if (prev != JS_ATOM) {
                goto done;
            } else {
                prev = JS_QUANT;
            }
            strbuf_putc(out, c);
            break;
        case '{': {
            bool bad;
            size_t q = braced_quantifier(s, i, n, &bad);
            if (q) {
                if (prev != JS_ATOM || bad)
                    goto done;
                strbuf_put(out, s + i, q);
                prev = JS_QUANT;
                i += q;
                continue;
            }
            strbuf_puts(out, "\\{");
            prev = JS_ATOM;
            break;
        }
        case '}': case ']':
            strbuf_putc(out, '\\');
            strbuf_putc(out, c);
            prev = JS_ATOM;
            break;
        case '|': case '^': case '$':
            strbuf_putc(out, c);
            prev = JS_NONE;
            break;
        default:
            strbuf_put(out, s + i, char_len(s, i, n));
            prev = JS_ATOM;
            i += char_len(s, i, n);
            continue;
        }
        i++;
    }
    ok = !in_class && !groups.len && !out->oom;
done:
    strbuf_free(&groups);
    return ok;
}

static pcre2_code *compile_pcre2(const char *src, size_t len, uint32_t options)
{
    int errcode;
    PCRE2_SIZE erroff;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, len,
                                   PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
                                       options,
                                   &errcode, &erroff, NULL);
    if (re)
        pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

static pcre2_code *compile_js(const char *src, size_t len)
{
    struct strbuf p = {0};
    pcre2_code *re = NULL;
    if (js_to_pcre2(src, len, &p))
        re = compile_pcre2(p.s ? p.s : "", p.len, PCRE2_ALLOW_EMPTY_CLASS);
    strbuf_free(&p);
    return re;
}

bool glob_js_regex_valid(const char *src, size_t len)
{
    pcre2_code *re = compile_js(src, len);
    pcre2_code_free(re);
    return re != NULL;
}

/* ---- GitHub's filter patterns (the "Filter pattern cheat sheet") ---- */

static void gh_error(struct glob_error *err, size_t offset, const char *message)
{
    err->offset = offset;
    snprintf(err->message, sizeof(err->message), "%s", message);
}

/* A `[...]` at s[i]: its class into `out`; the index after it, 0 on an error. */
static size_t gh_class(const char *s, size_t i, size_t n, struct strbuf *out, struct glob_error *err)
{
    size_t open = i++;
    if (i < n && s[i] == ']') {
        gh_error(err, open, "`[]` lists no character");
        return 0;
    }
    strbuf_putc(out, '[');
    for (; i < n && s[i] != ']'; i++) {
        char c = s[i];
        bool alnum = is_alpha(c) || (c >= '0' && c <= '9');
        if (c == '-' && i > open + 1 && i + 1 < n && s[i + 1] != ']') {
            char lo = s[i - 1], hi = s[i + 1];
            bool same = (lo >= 'a' && lo <= 'z' && hi >= 'a' && hi <= 'z') ||
                        (lo >= 'A' && lo <= 'Z' && hi >= 'A' && hi <= 'Z') ||
                        (lo >= '0' && lo <= '9' && hi >= '0' && hi <= '9');
            if (!same || lo > hi) {
                gh_error(err, i - 1,
                         "a range in `[]` goes within a-z, A-Z or 0-9, from low to high");
                return 0;
            }
            strbuf_putc(out, '-');
            continue;
        }
        if (!alnum) {
            gh_error(err, i,
                     "`[]` lists letters and digits only (and ranges of them); escape the "
                     "character with \\ outside the brackets");
            return 0;
        }
        strbuf_putc(out, c);
    }
    if (i >= n) {
        gh_error(err, open, "`[` has no closing `]`");
        return 0;
    }
    strbuf_putc(out, ']');
    return i + 1;
}

static bool gh_translate(const char *s, size_t n, struct strbuf *out, struct glob_error *err)
{
    enum { GH_NONE, GH_ATOM, GH_WILD, GH_QUANT } prev = GH_NONE;
    size_t i = s[0] == '!' ? 1 : 0;

    strbuf_putc(out, '^');
    while (i < n) {
        char c = s[i];
        if (c == '*') {
            if (i + 2 < n && s[i + 1] == '*' && s[i + 2] == '/') {
                strbuf_puts(out, "(?:.+/)?"); /* `**` and its slash: zero or more folders */
                i += 3;
            } else if (i + 1 < n && s[i + 1] == '*') {
                strbuf_puts(out, ".*");
                i += 2;
            } else {
                strbuf_puts(out, "[^/]*");
                i++;
            }
            prev = GH_WILD;
        } else if (c == '?' || c == '+') {
            if (prev != GH_ATOM) {
                gh_error(err, i, c == '?' ? "`?` makes the character before it optional, "
                                            "and no character is before it"
                                          : "`+` repeats the character before it, and no "
                                            "character is before it");
                return false;
            }
            strbuf_putc(out, c);
            prev = GH_QUANT;
            i++;
        } else if (c == '[') {
            i = gh_class(s, i, n, out, err);
            if (!i)
                return false;
            prev = GH_ATOM;
        } else if (c == '\\') {
            if (i + 1 >= n) {
                gh_error(err, i, "`\\` at the end of the pattern escapes nothing");
                return false;
            }
            put_literal(out, s + i + 1, char_len(s, i + 1, n));
            i += 1 + char_len(s, i + 1, n);
            prev = GH_ATOM;
        } else {
            put_literal(out, s + i, char_len(s, i, n));
            i += char_len(s, i, n);
            prev = GH_ATOM;
        }
    }
    strbuf_putc(out, '$');
    return !out->oom;
}

/* ---- the API ---- */

struct glob *glob_compile(enum glob_dialect dialect, const char *pattern, size_t len,
                          struct glob_error *err)
{
    struct glob *g = calloc(1, sizeof(*g));
    struct strbuf src = {0};

    err->offset = 0;
    snprintf(err->message, sizeof(err->message), "%s", "out of memory");
    if (!g)
        return NULL;
    g->dialect = dialect;
    switch (dialect) {
    case GLOB_PICOMATCH:
        g->literal = malloc(len + 1);
        if (!g->literal || !glob_picomatch_source(pattern, len, &src, err))
            goto fail;
        memcpy(g->literal, pattern, len);
        g->literal_len = len;
        g->re = compile_js(src.s, src.len); /* NULL: JavaScript refuses it, picomatch
                                            * matches with /$^/ */
        break;
    case GLOB_GITHUB:
        if (len == 0) {
            gh_error(err, 0, "a filter pattern is not empty");
            goto fail;
        }
        g->negated = pattern[0] == '!';
        if (!gh_translate(pattern, len, &src, err))
            goto fail;
        g->re = compile_pcre2(src.s, src.len, PCRE2_DOTALL);
        if (!g->re)
            goto fail;
        break;
    case GLOB_BUILDKITE:
        g->zz = glob_zz_parse(pattern, len, err);
        if (!g->zz)
            goto fail;
        break;
    }
    strbuf_free(&src);
    if (g->re) {
        g->md = pcre2_match_data_create(1, NULL);
        g->mc = pcre2_match_context_create(NULL);
        if (!g->md || !g->mc) {
            glob_free(g);
            return NULL;
        }
        pcre2_set_match_limit(g->mc, MATCH_LIMIT);
    }
    return g;
fail:
    strbuf_free(&src);
    glob_free(g);
    return NULL;
}

void glob_free(struct glob *g)
{
    if (!g)
        return;
    free(g->literal);
    pcre2_match_data_free(g->md);
    pcre2_match_context_free(g->mc);
    pcre2_code_free(g->re);
    glob_zz_free(g->zz);
    free(g);
}

static bool run_re(const struct glob *g, const char *path, size_t len)
{
    return pcre2_match(g->re, (PCRE2_SPTR)path, len, 0, 0, g->md, g->mc) >= 0;
}

bool glob_match(const struct glob *g, const char *path, size_t len)
{
    switch (g->dialect) {
    case GLOB_PICOMATCH: /* picomatch.test */
        if (len == 0)
            return false;
        if (len == g->literal_len && !memcmp(path, g->literal, len))
            return true;
        return g->re && run_re(g, path, len);
    case GLOB_GITHUB:
        return run_re(g, path, len);
    case GLOB_BUILDKITE:
        return glob_zz_match(g->zz, path, len);
    }
    return false;
}

bool glob_negated(const struct glob *g)
{
    return g->negated;
}

bool glob_filter(struct glob *const *globs, size_t n, const char *path, size_t len)
{
    for (size_t i = n; i-- > 0;) {
        if (glob_match(globs[i], path, len))
            return !globs[i]->negated;
    }
    return false;
}

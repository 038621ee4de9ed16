/* shardflags: runners' shard flags in command texts (include/fanout/shardflags.h). */
#define PCRE2_CODE_UNIT_WIDTH 8
#include "fanout/shardflags.h"

#include <pcre2.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MATCH_LIMIT 100000 /* a user's pattern that backtracks wildly fails, not hangs */
#define MAX_USES 64        /* uses of one runner's flags in one text that are paired */
#define MAX_RUNNERS 64

/* A flag's value as the shell sees one word: an unevaluated `${{ }}`, an arithmetic
 * `$(( ))`, a quoted string, or a run of characters up to a space, quote or shell
 * operator (a quote may close the string the command is inside: `bash -c '...
 * --shard-id=$$BUILDKITE_PARALLEL_JOB'`); never the next flag (`--num-shards --shard-id`). */
#define VALUE "(?!-)(\\$\\{\\{.*?\\}\\}|\\$\\(\\([^)\\n]*\\)\\)|\"[^\"\\n]*\"|'[^'\\n]*'|[^\\s'\"`;&|()<>]+)"
/* A built-in flag is its name where no word character or '-' comes before it (found as
 * text: find_flag), then this, matched anchored after the name: one pattern for every
 * built-in flag, where a pattern each was four JIT compiles in a SGLang render (0.6M
 * instructions, of 40M) for the one text each matched. */
/* \G: anchored, which the JIT runs (PCRE2_ANCHORED it does not); (*LF): `.` stops at a LF
 * only, whatever newline PCRE2 was built with, as tail_quick reads it */
#define TAIL_RE "(*LF)\\G(?:=|[ \\t]+)" VALUE

/* The built-in flags' pattern is compiled at its first use, when a text holds a flag's
 * name (NULL until then): compiling eight at start was a fifth of a small render. */
struct pattern {
    pcre2_code *re;
    pcre2_match_data *md;
    bool jit; /* compiled for the JIT on its first use: most runs use two patterns, if any */
    bool jitted; /* and the JIT compiled it (else the interpreter runs it) */
};

struct runner {
    char *name;
    const char *noun;
    /* Text each flag cannot match without (built-ins: their names), found (find_text)
     * before the pattern runs: most commands carry no shard flag at all. */
    const char *count_literal, *index_literal;
    unsigned base;
    bool index_needs_count; /* the index flag alone is someone else's */
    /* A word the command that holds the flags must contain (NULL: any command): the
     * flags of a command that starts another program are that program's. */
    char *program;
    struct pattern count, index;
};

struct shardflags {
    struct runner runners[MAX_RUNNERS];
    size_t n;
    size_t unliteral; /* runners without literals (a config's): every text is matched */
    /* By a literal's third byte (the first after its "--"), the literals that have it:
     * bit 2r + k for runner r's count (k 0) and index (k 1) literal; built at the first
     * text with a "--" (literals_by_third) */
    uint8_t by_third[128];
    bool by_third_built;
    struct pattern tail; /* TAIL_RE, for every built-in runner's flags */
    pcre2_match_context *mctx;
};

/* The programs are how each runner is started: pytest (also as python -m pytest, py.test
 * is pytest's old name) with the plugin, SGLang's run_suite.py scripts. */
static const struct {
    const char *name, *noun;
    unsigned base;
    bool index_needs_count;
    /* the flags' names, each with its length (WORD): a strlen of each was in every scan.
     * Runner r is builtin[r] when it has literals (the built-ins come first). */
    const char *count;
    size_t count_len;
    const char *index;
    size_t index_len;
    const char *program;
} builtin[] = {
#define WORD(s) s, sizeof(s) - 1
    {"pytest-shard", "shard", 0, false, WORD("--num-shards"), WORD("--shard-id"), "pytest"},
    {"run_suite", "partition", 0, false, WORD("--auto-partition-size"), WORD("--auto-partition-id"), "run_suite"},
    {"diffusion", "partition", 0, false, WORD("--total-partitions"), WORD("--partition-id"), "run_suite"},
    {"pytest-split", "group", 1, true, WORD("--splits"), WORD("--group"), "pytest"},
#undef WORD
};
_Static_assert(sizeof(builtin) / sizeof(builtin[0]) <= 4, "by_third holds two bits a built-in runner in a byte");

static int pattern_compile(struct pattern *p, const char *re, char *err, size_t cap)
{
    int code;
    PCRE2_SIZE at;
    uint32_t min;

    p->re = pcre2_compile((PCRE2_SPTR)re, PCRE2_ZERO_TERMINATED, PCRE2_UTF, &code, &at, NULL);
    if (!p->re) {
        PCRE2_UCHAR msg[160];

        pcre2_get_error_message(code, msg, sizeof(msg));
        snprintf(err, cap, "%s at offset %zu", (const char *)msg, (size_t)at);
        return -1;
    }
    if (pcre2_pattern_info(p->re, PCRE2_INFO_MINLENGTH, &min) != 0 || min == 0) {
        /* an empty match is no flag, and would be found at every position */
        snprintf(err, cap, "the pattern matches the empty string");
        return -1;
    }
    if (!(p->md = pcre2_match_data_create_from_pattern(p->re, NULL))) {
        snprintf(err, cap, "out of memory");
        return -1;
    }
    return 0;
}

static void pattern_free(struct pattern *p)
{
    if (!p->re)
        return; /* a built-in's never used: no page of PCRE2's touched to free nothing */
    pcre2_match_data_free(p->md);
    pcre2_code_free(p->re);
}

/* A runner; `count` and `index` NULL: a built-in's, compiled at first use. */
static int runner_add(struct shardflags *f, const char *name, const char *noun, unsigned base,
                      bool index_needs_count, const char *count, const char *index,
                      const char *program, char *err, size_t cap)
{
    struct runner *r = &f->runners[f->n];

    if (f->n == MAX_RUNNERS) {
        snprintf(err, cap, "at most %d runners", MAX_RUNNERS);
        return -1;
    }
    memset(r, 0, sizeof(*r));
    r->noun = noun;
    r->base = base;
    r->index_needs_count = index_needs_count;
    if (!(r->name = strdup(name)) || (program && !(r->program = strdup(program))) ||
        (count && pattern_compile(&r->count, count, err, cap) != 0) ||
        (index && pattern_compile(&r->index, index, err, cap) != 0)) {
        free(r->name);
        free(r->program);
        pattern_free(&r->count);
        pattern_free(&r->index);
        if (!r->name)
            snprintf(err, cap, "out of memory");
        return -1;
    }
    f->n++;
    return 0;
}

struct shardflags *shardflags_create(void)
{
    struct shardflags *f = calloc(1, sizeof(*f));
    char err[200];

    if (!f || !(f->mctx = pcre2_match_context_create(NULL)))
        goto fail;
    pcre2_set_match_limit(f->mctx, MATCH_LIMIT);
    for (size_t i = 0; i < sizeof(builtin) / sizeof(builtin[0]); i++) {
        if (runner_add(f, builtin[i].name, builtin[i].noun, builtin[i].base,
                       builtin[i].index_needs_count, NULL, NULL, builtin[i].program, err, sizeof(err)) != 0)
            goto fail;
        f->runners[f->n - 1].count_literal = builtin[i].count;
        f->runners[f->n - 1].index_literal = builtin[i].index;
    }
    return f;
fail:
    shardflags_destroy(f);
    return NULL;
}

/* A copy of `from` (not compiled yet: nor is the copy). 0, or -1 when out of memory. */
static int pattern_copy(struct pattern *p, const struct pattern *from)
{
    if (!from->re)
        return 0;
    if (!(p->re = pcre2_code_copy(from->re)) || !(p->md = pcre2_match_data_create_from_pattern(p->re, NULL)))
        return -1;
    return 0;
}

struct shardflags *shardflags_clone(const struct shardflags *f)
{
    struct shardflags *c = calloc(1, sizeof(*c));

    if (!c || !(c->mctx = pcre2_match_context_copy(f->mctx)) || pattern_copy(&c->tail, &f->tail) != 0)
        goto fail;
    c->unliteral = f->unliteral;
    for (; c->n < f->n; c->n++) {
        const struct runner *from = &f->runners[c->n];
        struct runner *r = &c->runners[c->n];

        *r = *from;
        r->name = r->program = NULL;
        r->count = r->index = (struct pattern){NULL, NULL, false, false};
        if (!(r->name = strdup(from->name)) || (from->program && !(r->program = strdup(from->program))) ||
            pattern_copy(&r->count, &from->count) != 0 || pattern_copy(&r->index, &from->index) != 0) {
            c->n++; /* destroyed with the others */
            goto fail;
        }
    }
    return c;
fail:
    shardflags_destroy(c);
    return NULL;
}

void shardflags_destroy(struct shardflags *f)
{
    if (!f)
        return;
    for (size_t i = 0; i < f->n; i++) {
        free(f->runners[i].name);
        free(f->runners[i].program);
        pattern_free(&f->runners[i].count);
        pattern_free(&f->runners[i].index);
    }
    pattern_free(&f->tail);
    pcre2_match_context_free(f->mctx);
    free(f);
}

static int config_error(struct diag *d, const char *file, const struct ynode *at, const char *msg)
{
    struct ypos p = ynode_pos(at);

    diag_report(d, DIAG_ERROR, DIAG_INPUT, file, p.line, p.col, RULE_CONFIG, "%s", msg);
    return -1;
}

int shardflags_configure(struct shardflags *f, const struct ynode *list, const char *file,
                         struct diag *d)
{
    static const char *const keys[] = {"name", "count", "index", "base", "program", NULL};

    if (!ynode_is_seq(list))
        return config_error(d, file, list, "'shards' is a list of {name, count, index, base}");
    for (size_t i = 0; i < ynode_len(list); i++) {
        const struct ynode *e = ynode_item(list, i), *base = ynode_get(e, "base");
        const char *name = ynode_scalar(ynode_get(e, "name"), NULL);
        const char *count = ynode_scalar(ynode_get(e, "count"), NULL);
        const char *index = ynode_scalar(ynode_get(e, "index"), NULL);
        const struct ynode *program = ynode_get(e, "program");
        char err[200];

        if (!ynode_is_map(e))
            return config_error(d, file, e, "a shard runner is a mapping {name, count, index, base}");
        for (size_t k = 0; k < ynode_len(e); k++) {
            const char *key = ynode_scalar(ynode_key(e, k), NULL);
            size_t j = 0;

            while (keys[j] && (!key || strcmp(keys[j], key) != 0))
                j++;
            if (!keys[j]) {
                char msg[200];

                snprintf(msg, sizeof(msg), "unknown key '%s' in a shard runner (name, count, index, base, "
                         "program)",
                         key ? key : "?");
                return config_error(d, file, ynode_key(e, k), msg);
            }
        }
        if (!name || !*name)
            return config_error(d, file, e, "a shard runner needs a 'name'");
        if (!count || !index)
            return config_error(d, file, e, "a shard runner needs 'count' and 'index' patterns "
                                            "(PCRE2; the first group is the value)");
        if (base && !ynode_scalar_is(base, "0") && !ynode_scalar_is(base, "1"))
            return config_error(d, file, base, "base is 0 or 1 (the first shard's index)");
        if (program && (!ynode_scalar(program, NULL) || !*ynode_scalar(program, NULL)))
            return config_error(d, file, program, "program is a word the runner's command contains");
        if (runner_add(f, name, "shard", base && ynode_scalar_is(base, "1"), false, count, index,
                       program ? ynode_scalar(program, NULL) : NULL, err, sizeof(err)) == 0) {
            f->unliteral++;
        } else {
            struct ypos p = ynode_pos(e);

            diag_report(d, DIAG_ERROR, DIAG_INPUT, file, p.line, p.col, RULE_CONFIG,
                        "shard runner '%s': %s", name, err);
            return -1;
        }
    }
    return 0;
}

size_t shardflags_runners(const struct shardflags *f)
{
    return f->n;
}

const char *shardflags_name(const struct shardflags *f, unsigned runner)
{
    return f->runners[runner].name;
}

const char *shardflags_noun(const struct shardflags *f, unsigned runner)
{
    return f->runners[runner].noun;
}

unsigned shardflags_base(const struct shardflags *f, unsigned runner)
{
    return f->runners[runner].base;
}

/* One match of a flag: the flag as written and its value (group 1, else the match). */
struct use {
    const char *flag, *value;
    size_t flag_len, value_len;
};

/* The text being scanned: what one pass found in it, shared by every runner's search. */
struct subject {
    const char *text;
    size_t len;
    size_t last_dashes; /* where the text's last "--" is (every built-in literal starts so) */
    bool utf_checked; /* a match ran with PCRE2's UTF-8 check and passed it */
    bool ascii;       /* the text is ASCII (no UTF-8 for PCRE2 to check) */
};

/* Whether text[0..len) is ASCII, so valid UTF-8 that PCRE2 need not check (its check
 * of every subject was a tenth of the scan); a word at a time. */
static bool is_ascii(const char *text, size_t len)
{
    uint64_t w, high = 0;
    size_t i = 0;

    for (; i + 8 <= len; i += 8) {
        memcpy(&w, text + i, 8);
        high |= w;
    }
    for (; i < len; i++)
        high |= (unsigned char)text[i];
    return !(high & 0x8080808080808080ULL);
}

/* Where `needle` (n > 0 bytes) first occurs in hay[0..len), or NULL: glibc's memmem
 * prepares a search of long needles for each call, a cost the short words here never
 * repay. */
static const char *find_text(const char *hay, size_t len, const char *needle, size_t n)
{
    const char *p = hay, *end = hay + len;

    while (n <= (size_t)(end - p) && (p = memchr(p, needle[0], (size_t)(end - p) - n + 1)) != NULL) {
        if (!memcmp(p + 1, needle + 1, n - 1))
            return p;
        p++;
    }
    return NULL;
}

/* Matches `p` in the subject from `at`: pcre2_match's code. The subject's UTF-8 is
 * checked by its first match only, from where it starts. */
static int match(const struct shardflags *f, struct pattern *p, struct subject *s, size_t at)
{
    int rc;

    if (!p->jit) {
        p->jitted = pcre2_jit_compile(p->re, PCRE2_JIT_COMPLETE) == 0;
        p->jit = true;
    }
    if (!s->utf_checked)
        s->utf_checked = s->ascii = is_ascii(s->text, s->len);
    /* A checked subject goes to the JIT's code straight: pcre2_match's checks of its
     * arguments were more than the match (180 instructions of 480 for a flag's tail). */
    if (s->utf_checked && p->jitted)
        return pcre2_jit_match(p->re, (PCRE2_SPTR)s->text, s->len, at, 0, p->md, f->mctx);
    rc = pcre2_match(p->re, (PCRE2_SPTR)s->text, s->len, at, s->utf_checked ? PCRE2_NO_UTF_CHECK : 0, p->md,
                     f->mctx);
    s->utf_checked |= rc >= 0 || rc == PCRE2_ERROR_NOMATCH;
    return rc;
}

/* The use written at text[from..end), its value at text[value..value_end): the value
 * without the quotes around it. */
static struct use use_at(const char *text, size_t from, size_t end, size_t value, size_t value_end)
{
    struct use u = {text + from, text + value, end - from, value_end - value};

    if (u.value_len >= 2 && (u.value[0] == '"' || u.value[0] == '\'') && u.value[u.value_len - 1] == u.value[0]) {
        u.value++;
        u.value_len -= 2;
    }
    return u;
}

/* The use `p` matched (rc > 0), from text[from] on: the flag as written, and its value
 * (group 1, else the match). */
static struct use use_of(const struct pattern *p, int rc, const char *text, size_t from)
{
    PCRE2_SIZE *ov = pcre2_get_ovector_pointer(p->md);
    size_t g = rc > 1 && ov[2] != PCRE2_UNSET ? 1 : 0;

    return use_at(text, from, ov[1], ov[2 * g], ov[2 * g + 1]);
}

/* Up to MAX_USES matches of a config's pattern `p` in the subject; their number, or -1
 * when matching failed. */
static int find_all(const struct shardflags *f, struct pattern *p, struct subject *s, struct use *out)
{
    size_t at = 0;
    int n = 0;

    while (n < MAX_USES && at <= s->len) {
        int rc = match(f, p, s, at);
        PCRE2_SIZE *ov;

        if (rc == PCRE2_ERROR_NOMATCH)
            break;
        if (rc < 0)
            return -1;
        ov = pcre2_get_ovector_pointer(p->md);
        out[n++] = use_of(p, rc, s->text, ov[0]);
        at = ov[1] > ov[0] ? ov[1] : ov[1] + 1;
    }
    return n;
}

/* Whether `c` is a word character or '-' to PCRE2 (no UCP: ASCII only; a byte of a wide
 * character is none) */
static bool word_or_dash(unsigned char c)
{
    return c == '-' || c == '_' || (c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z');
}

enum tail { TAIL_NONE, TAIL_MATCH, TAIL_UNSURE };

/* Where TAIL_QUICK_SPAN ends: what TAIL_RE matches at text[at] is told without PCRE2
 * when nothing it reads lies further than this from `at` (PCRE2's JIT ran 300
 * instructions a flag). Within it a match or a failure has too few steps to reach
 * MATCH_LIMIT, which a longer one might: PCRE2 tells those. */
#define TAIL_QUICK_SPAN 256

/* TAIL_RE at text[at] in an ASCII text (so no UTF-8 to check): TAIL_MATCH with *u the
 * use from text[from] on, TAIL_NONE, or TAIL_UNSURE when PCRE2 must tell. */
static enum tail tail_quick(const char *text, size_t len, size_t from, size_t at, struct use *u)
{
    /* VALUE's last alternative: not \s (space, \t, \n, \v, \f, \r), a quote, ` ; & | ( ) < > */
    static const bool stops[128] = {['\t'] = true, ['\n'] = true, ['\v'] = true, ['\f'] = true, ['\r'] = true,
                                    [' '] = true,  ['\''] = true, ['"'] = true,  ['`'] = true,  [';'] = true,
                                    ['&'] = true,  ['|'] = true,  ['('] = true,  [')'] = true,  ['<'] = true,
                                    ['>'] = true};
    size_t end = len - at > TAIL_QUICK_SPAN ? at + TAIL_QUICK_SPAN : len, i = at, v, e;

    if (i < end && text[i] == '=')
        i++;
    else if (i < end && (text[i] == ' ' || text[i] == '\t'))
        while (i < end && (text[i] == ' ' || text[i] == '\t'))
            i++;
    else
        return TAIL_NONE;
    /* the value at text[i]; where it fails, giving back blanks fails too (VALUE starts
     * with no blank) */
    if (i == end)
        return end < len ? TAIL_UNSURE : TAIL_NONE;
    v = i;
    if (text[v] == '-')
        return TAIL_NONE;
    if (text[v] == '$' && end - v < 3 && end < len)
        return TAIL_UNSURE; /* `${{` or `$((` past the span */
    /* `${{ x }}` (a workflow's unevaluated expression; PCRE2 was compiled for these
     * alone in a SGLang render, a tenth of the rule's cost): up to the first `}}` on its
     * line (.*? lazy, `.` no LF: TAIL_RE's (*LF)); with none, the run of characters below */
    if (text[v] == '$' && end - v > 2 && text[v + 1] == '{' && text[v + 2] == '{') {
        for (e = v + 3; e < end && text[e] != '\n'; e++)
            if (text[e] == '}' && e + 1 < end && text[e + 1] == '}') {
                *u = use_at(text, from, e + 2, v, e + 2);
                return TAIL_MATCH;
            }
        if (e == end && end < len)
            return TAIL_UNSURE;
    }
    /* `$(( x ))`: up to the first `)`, which must be a `))` on the line ([^)\n]* gives
     * back no `)`); else the run of characters, `$` (a `(` ends it) */
    if (text[v] == '$' && end - v > 2 && text[v + 1] == '(' && text[v + 2] == '(') {
        for (e = v + 3; e < end && text[e] != ')' && text[e] != '\n'; e++)
            ;
        if (e + 1 < end && text[e] == ')' && text[e + 1] == ')') {
            *u = use_at(text, from, e + 2, v, e + 2);
            return TAIL_MATCH;
        }
        if (e + 1 >= end && end < len)
            return TAIL_UNSURE;
    }
    if (text[v] == '"' || text[v] == '\'') {
        for (e = v + 1; e < end && text[e] != text[v] && text[e] != '\n'; e++)
            ;
        if (e == end)
            return end < len ? TAIL_UNSURE : TAIL_NONE;
        if (text[e] == '\n')
            return TAIL_NONE;
        e++;
    } else {
        for (e = v; e < end && !stops[(unsigned char)text[e]]; e++)
            ;
        if (e == end && end < len)
            return TAIL_UNSURE;
        if (e == v)
            return TAIL_NONE;
    }
    *u = use_at(text, from, e, v, e);
    return TAIL_MATCH;
}

/* Up to MAX_USES uses of built-in flag `name` (name_len bytes), first at offset `first` (SIZE_MAX:
 * nowhere); their number, or -1 when matching failed (out of memory, bad UTF-8). What
 * (?<![\w-])name(?:=|[ \t]+)VALUE finds, leftmost first: each place of the name with
 * no word character or '-' before it, TAIL_RE right after it. A subject PCRE2 has not
 * checked is checked whole first (by a match at 0), as that pattern's match from the
 * start was. */
static int find_flag(struct shardflags *f, const char *name, size_t name_len, size_t first, struct subject *s,
                     struct use *out)
{
    const char *text = s->text, *at;
    size_t len = s->len, pos = first;
    char err[200];
    int n = 0, rc;

    if (first == SIZE_MAX)
        return 0;
    if (!s->utf_checked)
        s->utf_checked = s->ascii = is_ascii(text, len);
    if (!s->ascii && !f->tail.re && pattern_compile(&f->tail, TAIL_RE, err, sizeof(err)) != 0)
        return -1;
    if (!s->utf_checked && (rc = match(f, &f->tail, s, 0)) < 0 && rc != PCRE2_ERROR_NOMATCH)
        return -1;
    while (n < MAX_USES) {
        size_t next = pos + 1;

        if (!pos || !word_or_dash((unsigned char)text[pos - 1])) {
            enum tail t = s->ascii ? tail_quick(text, len, pos, pos + name_len, &out[n]) : TAIL_UNSURE;

            if (t == TAIL_UNSURE) {
                if (!f->tail.re && pattern_compile(&f->tail, TAIL_RE, err, sizeof(err)) != 0)
                    return -1;
                if ((rc = match(f, &f->tail, s, pos + name_len)) < 0 && rc != PCRE2_ERROR_NOMATCH)
                    return -1;
                if (rc > 0) {
                    out[n] = use_of(&f->tail, rc, text, pos);
                    t = TAIL_MATCH;
                }
            }
            if (t == TAIL_MATCH)
                next = pos + out[n++].flag_len;
        }
        if (next > s->last_dashes || !(at = find_text(text + next, len - next, name, name_len)))
            break;
        pos = (size_t)(at - text);
    }
    return n;
}

/* Where text[0..len)'s first "--" starts, or NULL: every built-in literal (a flag's
 * name) starts so. */
static const char *first_dashes(const char *text, size_t len)
{
    const char *p = text, *end = text + len;

    for (; (p = memchr(p, '-', (size_t)(end - p))) != NULL && p + 1 < end; p++)
        if (p[1] == '-')
            return p;
    return NULL;
}

/* Where each runner's count and index literals first occur in the text (SIZE_MAX: not at
 * all), from one pass over its "--"s from the first (`p`, or NULL: none), and where the
 * last "--" is (*last): a memmem per literal and text was a tenth of a render. Every
 * occurrence of "--" is tried, overlapping ones too, so each offset is the one a search
 * finds. Whether any literal occurs. */
static bool find_literals(struct shardflags *f, const char *text, size_t len, const char *p, size_t first[][2],
                          size_t *last)
{
    const char *end = text + len;
    bool found = false;
    unsigned unseen = 0; /* the literals not found yet, by by_third's bits */

    for (unsigned r = 0; r < f->n; r++) {
        first[r][0] = first[r][1] = SIZE_MAX;
        if (f->runners[r].count_literal)
            unseen |= 3u << (2 * r);
        if (p && !f->by_third_built && f->runners[r].count_literal) {
            f->by_third[(unsigned char)builtin[r].count[2] & 127] |= (uint8_t)(1u << (2 * r));
            f->by_third[(unsigned char)builtin[r].index[2] & 127] |= (uint8_t)(2u << (2 * r));
        }
    }
    f->by_third_built |= p != NULL;
    for (; p && (p = memchr(p, '-', (size_t)(end - p))) != NULL && p + 1 < end; p++) {
        unsigned bits;

        if (p[1] != '-')
            continue;
        *last = (size_t)(p - text);
        for (bits = end - p > 2 ? f->by_third[(unsigned char)p[2] & 127] & unseen : 0; bits; bits &= bits - 1) {
            unsigned b = (unsigned)__builtin_ctz(bits), r = b / 2, k = b % 2;
            size_t n = k ? builtin[r].index_len : builtin[r].count_len;

            if (n <= (size_t)(end - p) && !memcmp(p, k ? builtin[r].index : builtin[r].count, n)) {
                first[r][k] = (size_t)(p - text);
                unseen &= ~(1u << b);
                found = true;
            }
        }
    }
    return found;
}

/* Where the shell command holding text[at] starts: after the last newline (not after a
 * backslash), ;, &, |, ( or ) before it. Quotes are not followed: `bash -c 'cd x; pytest
 * ...'` is cut at the ;, which leaves pytest's command whole. */
static size_t command_start(const char *text, size_t at)
{
    /* the bytes that may end a command, by table: this ran back over every flag's text */
    static const bool ends[256] = {[';'] = true, ['&'] = true, ['|'] = true, ['('] = true, [')'] = true,
                                   ['\n'] = true};

    for (size_t i = at; i > 0; i--) {
        unsigned char c = (unsigned char)text[i - 1];

        if (ends[c] && (c != '\n' || !(i >= 2 && text[i - 2] == '\\')))
            return i;
    }
    return 0;
}

/* The command in_program last worked out for a runner's flag at `at`: a runner's flags
 * are mostly in one command, whose start and program word serve every flag in it from
 * its start up to `at` (a scan back to the start and a search for the word, for every
 * flag, were a sixth of a scan). */
struct command_memo {
    size_t start, at;  /* command_start(text, at); at SIZE_MAX: none yet */
    size_t program_end; /* where the program's first place wholly in text[start..at) ends, SIZE_MAX: none */
};

/* Whether the flag at text[at] is `program`'s: the shell command it is in, up to the
 * flag, contains the word (a program comes before its flags), or starts with no program
 * at all (a flag first, or only VAR=value words: the flags of an env value or an argument
 * list, handed to the runner later). mypy_primer's `--num-shards 1 --shard-index 0` is
 * mypy_primer's, not pytest-shard's. */
static bool in_program(const char *text, size_t at, const char *program, struct command_memo *m)
{
    size_t start;
    const char *w;

    if (!program)
        return true;
    if (m->at == SIZE_MAX || at < m->start || at > m->at) {
        const char *found;
        size_t n = strlen(program);

        m->start = command_start(text, at);
        m->at = at;
        found = find_text(text + m->start, at - m->start, program, n);
        m->program_end = found ? (size_t)(found - text) + n : SIZE_MAX;
    }
    /* text[start..at) is in the memo's command: no command ends between at and m->at */
    start = m->start;
    if (m->program_end <= at)
        return true;
    for (w = text + start; w < text + at;) {
        const char *e;

        while (w < text + at && (*w == ' ' || *w == '\t' || *w == '\n' || *w == '\\' || *w == '\r'))
            w++;
        if (w >= text + at || *w == '-')
            return true; /* no program before the flag */
        e = w;
        while (e < text + at && *e != ' ' && *e != '\t' && *e != '\n')
            e++;
        if (!memchr(w, '=', (size_t)(e - w)))
            return false; /* another program's command */
        w = e;
    }
    return true;
}

/* Drops the uses that are another program's (in_program); their number. */
static int keep_own(const struct runner *run, const char *text, struct use *uses, int n, struct command_memo *m)
{
    int kept = 0;

    for (int i = 0; i < n; i++) {
        if (in_program(text, (size_t)(uses[i].flag - text), run->program, m))
            uses[kept++] = uses[i];
    }
    return kept;
}

int shardflags_scan(struct shardflags *f, const char *text, size_t len, shardflags_hit_fn fn,
                    void *user)
{
    struct use counts[MAX_USES], indexes[MAX_USES];
    struct subject s = {text, len, 0, false, false};
    size_t first[MAX_RUNNERS][2];
    const char *dashes = first_dashes(text, len);

    /* most texts: no runner's flag at all (most env values: not a "--") */
    if ((!dashes || !find_literals(f, text, len, dashes, first, &s.last_dashes)) && !f->unliteral)
        return 0;
    if (!dashes)
        find_literals(f, text, len, NULL, first, &s.last_dashes);
    for (unsigned r = 0; r < f->n; r++) {
        struct runner *run = &f->runners[r];
        struct command_memo memo = {0, SIZE_MAX, SIZE_MAX};
        int nc, ni;

        if (run->count_literal && first[r][0] == SIZE_MAX && first[r][1] == SIZE_MAX)
            continue; /* most runners in most texts */
        nc = run->count_literal ? find_flag(f, run->count_literal, builtin[r].count_len, first[r][0], &s, counts)
                                : find_all(f, &run->count, &s, counts);
        ni = nc < 0                ? -1
             : run->index_literal ? find_flag(f, run->index_literal, builtin[r].index_len, first[r][1], &s, indexes)
                                  : find_all(f, &run->index, &s, indexes);
        if (nc < 0 || ni < 0)
            return -1;
        nc = keep_own(run, text, counts, nc, &memo);
        ni = keep_own(run, text, indexes, ni, &memo);
        if (run->index_needs_count && ni > nc) /* the extra index flags are another tool's */
            ni = nc;
        for (int k = 0; k < nc || k < ni; k++) {
            struct shardflags_hit h = {.runner = r};
            int rc;

            if (k < nc) {
                h.count = counts[k].value;
                h.count_len = counts[k].value_len;
                h.count_flag = counts[k].flag;
                h.count_flag_len = counts[k].flag_len;
            }
            if (k < ni) {
                h.index = indexes[k].value;
                h.index_len = indexes[k].value_len;
                h.index_flag = indexes[k].flag;
                h.index_flag_len = indexes[k].flag_len;
            }
            if ((rc = fn(user, &h)) != 0)
                return rc;
        }
    }
    return 0;
}

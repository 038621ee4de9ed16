/* blocktext against libfyaml 0.7.12 itself (test/blocktext_oracle.c): every block scalar
 * of every YAML file of the corpus and the fixtures, random block scalars of every form,
 * and hand-written cases (the YAML spec's examples of chomping, indentation and folding).
 * A case blocktext declines is libfyaml's; a case it takes must be libfyaml's text byte
 * for byte. */
#include <libfyaml.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../blocktext_oracle.h"
#include "fanout/blocktext.h"
#include "unit.h"

/* The text blocktext gives the one block scalar of `yaml`, and libfyaml agrees. */
static void check_text(const char *yaml, const char *want)
{
    struct blocktext_tally t = {0};
    size_t len = strlen(yaml);

    blocktext_compare(yaml, len, &t);
    ck_assert_msg(t.compared == 1 && t.differ == 0, "%s: compared %zu, differ %zu: %s", yaml, t.compared,
                  t.differ, t.first);
    /* and the text is the one the spec says */
    {
        struct fy_document *fyd = fy_document_build_from_string(NULL, yaml, len);
        struct fy_node *v = fyd ? fy_node_by_path(fy_document_root(fyd), "/k", FY_NT, FYNWF_DONT_FOLLOW) : NULL;
        size_t n = 0;
        const char *s = v ? fy_node_get_scalar(v, &n) : NULL;

        ck_assert_msg(s && n == strlen(want) && memcmp(s, want, n) == 0, "%s: [%.*s], not [%s]", yaml,
                      (int)n, s ? s : "", want);
        fy_document_destroy(fyd);
    }
}

/* YAML 1.2.2, 8.1.1.2 (chomping), 8.1.2 (literal), 8.1.3 (folded): the spec's examples,
 * as libfyaml formats them. */
START_TEST(forms)
{
    check_text("k: |\n  a\n  b\n", "a\nb\n");
    check_text("k: !!str |\n  a\n", "a\n");
    check_text("k: &x >-\n  a\n  b\n", "a b");
    check_text("k: |-\n  a\n\nx: 1\n", "a");
    check_text("k: |+\n  a\n\n\nx: 1\n", "a\n\n\n");
    check_text("k: |\n  a\n\n\nx: 1\n", "a\n");
    check_text("k: |\n\n  \n  a\n", "\n\na\n");                    /* leading empty lines */
    check_text("k: |\n  a\n    b\n\n  c\n", "a\n  b\n\nc\n");       /* more indented */
    check_text("k: |\n  a\n     \n  b\n", "a\n   \nb\n");           /* spaces past the indentation */
    check_text("k: |2\n    a\n  b\n", "  a\nb\n");                 /* indentation indicator */
    check_text("k: |-1\n  a\n", " a");
    check_text("k: |1+\n  a\n\nx: 1\n", " a\n\n");
    check_text("k: >\n  a\n  b\n\n  c\n", "a b\nc\n");             /* folding */
    check_text("k: >\n  a\n    b\n  c\n", "a\n  b\nc\n");           /* more-indented lines keep breaks */
    check_text("k: >\n  a\n\n    b\n", "a\n\n  b\n");
    check_text("k: >-\n  a\n  b\n\n\nx: 1\n", "a b");
    check_text("k: >+\n  a\n\nx: 1\n", "a\n\n");
    check_text("k: >\n\n  a\n", "\na\n");
    check_text("k: |\n  a", "a\n");                                /* at the end of the input */
    check_text("k: >-\n  a b ", "a b ");
    check_text("k: |+\n  a\n", "a\n");
    check_text("k: |+\n  a", "a");
    check_text("k: >-\n  a\n  b", "a b");
    check_text("k: |\n  a\n   \nx: 1\n", "a\n \n");                       /* a trailing line of spaces is text */
    check_text("k: |-\n  a\n   \n\nx: 1\n", "a\n ");
    check_text("k: |\n  \tb\n", "\tb\n");                /* a tab past the indentation is text (8.1.2) */
    check_text("k: |\n  \t\n  a\n", "\t\na\n");
    check_text("k: |\n  a\n  \t\tb\n", "a\n\t\tb\n");
    check_text("k: >\n  a\n  \tb\n  c\n", "a\n\tb\nc\n");  /* and makes a folded line more indented (8.1.3) */
    check_text("k: >\n  \ta\n  b\n", "\ta\nb\n");
}
END_TEST

/* Blank lines, then a line of white space with a tab past the indentation (the yamlprobe's
 * class F, stop 45: `run: |`, ``, `          \t`): YAML's text is the blank lines' breaks and
 * the line's (8.1.2), where libfyaml 0.7.12 loses a break and gives a byte it never wrote
 * ("\t\n\0"; stream.c then refused the scalar). A folded line, a blank line, then a line
 * whose text begins with a tab keeps the blank line's break (8.1.3, s-nb-spaced-text), where
 * 0.7.12 drops it and gives a byte it never wrote. */
START_TEST(tab_after_blank_lines)
{
    static const struct {
        const char *header, *body, *want;
    } cases[] = {
        {"      - run: |", "\n          \t\n", "\n\t\n"},
        {"k: |", "\n\n  \t \n", "\n\n\t \n"},
        {"k: |-", "\n  \t\n", "\n\t"},
        {"k: >", "  a\n\n  \tb\n\n  c\n", "a\n\n\tb\n\nc\n"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct blocktext b = {cases[i].header, strlen(cases[i].header), cases[i].body, strlen(cases[i].body),
                              cases[i].header[strlen(cases[i].header) - 1] == '>', true, true, false, 0};
        char out[64];
        size_t n = 0;

        ck_assert_msg(blocktext_format(&b, out, &n), "case %zu declined", i);
        ck_assert_msg(n == strlen(cases[i].want) && !memcmp(out, cases[i].want, n), "case %zu: [%.*s]", i,
                      (int)n, out);
        ck_assert_msg(b.departs, "case %zu", i);
    }
}
END_TEST

/* blocktext declines what it does not work out: libfyaml's text is used. */
START_TEST(declines)
{
    static const char *const left[] = {
        "k: |\n  a\xc2\x85 b\n",      /* NEL */
        "k: |\n",                     /* empty */
        "k: |+\n\n\n",
        "k:\n  |\n  a\n   b\nx: 1\n",     /* an indicator below its key: libfyaml loses a break */
        "k:\n  &a |\n  a\n   b\nx: 1\n",
        "? a\n: |\n  a\n",             /* no key on the header's line */
        "? |\n  a\n: b\n",
        "&k k: |\n  a\n",
        "on: : |2\n        x\n",      /* a mapping on the key's line: libfyaml's column 4, not 0 */
        "- on: : |\n      x\n",
    };
    static const char body[] = "  a\n";
    char out[16];
    size_t n;
    struct blocktext first_no_deeper = {"  run: |", 8, body, 4, false, true, false, false, 0};
    struct blocktext top_level = {"--- |", 5, body, 4, false, true, false, false, 0};

    for (size_t i = 0; i < sizeof(left) / sizeof(left[0]); i++) {
        struct blocktext_tally t = {0};

        blocktext_compare(left[i], strlen(left[i]), &t);
        ck_assert_msg(t.compared == 0, "case %zu taken", i);
    }
    /* libfyaml 0.7.12 takes text no deeper than its key and then formats it wrongly */
    ck_assert(!blocktext_format(&first_no_deeper, out, &n));
    ck_assert_uint_eq(first_no_deeper.shallow, 3); /* YAML: an empty scalar, and `a` (column 3) not its */
    ck_assert(!blocktext_format(&top_level, out, &n)); /* no key, no sequence */
    ck_assert_uint_eq(top_level.shallow, 0);
    {
        struct blocktext indicated = {"  run: |1", 9, body, 4, false, true, false, false, 0};

        ck_assert(!blocktext_format(&indicated, out, &n)); /* libfyaml reads that one right */
        ck_assert_uint_eq(indicated.shallow, 0);
    }
    ck_assert(blocktext_format(&(struct blocktext){"k: |", 4, body, 4, false, true, false, false, 0}, out, &n));
    /* a comment on the header's line (after a space or a tab; a `#` in a quoted key is not one) */
    check_text("k: | # comment: | >\n  a\n", "a\n");
    check_text("k: >-\t# c\n  a\n  b\n", "a b");
    check_text("k: |+ #\n  a\n\nx: 1\n", "a\n\n");
    /* blank lines after the last line at the end of the input (libfyaml's text, once left to it) */
    check_text("k: |\n  a\n\n", "a\n");
    check_text("k: >-\n  a\n  b\n\n\n", "a b");
    check_text("k: |\n  a\n  ", "a\n");
    /* a tab in a line's indentation (libfyaml refuses these) */
    ck_assert(!blocktext_format(&(struct blocktext){"k: |", 4, "    a\n  \t\n    b\n", 16, false, true, true, false, 0},
                                out, &n));
    ck_assert(!blocktext_format(&(struct blocktext){"k: |3", 5, "  \tb\n", 5, false, true, true, false, 0}, out, &n));
}
END_TEST

/* An empty block scalar, clipped or stripped, is "" (YAML 1.2.2, 8.1.1.2), where libfyaml
 * 0.7.12 often gives one byte it never wrote (`k: |` ending the input, a line of spaces
 * without a break: the yamlprobe, stop 45); the breaks `+` keeps, and spaces past a
 * given indentation (text, 8.1.2), are left to it. */
START_TEST(empty_scalars)
{
    static const struct {
        const char *header, *body;
        bool at_eof, taken;
    } cases[] = {
        {"k: |", "", true, true},        {"k: |", "   ", true, true},    {"k: >2", "", true, true},
        {"k: |-", "\n\n", false, true},  {"k: |", "  \n\r\n", false, true}, {"k: |+", "\n\n", false, false},
        {"k: |2-", "  \n", false, true}, {"k: |2-", "     \n", false, false}, /* spaces past 2 are text */
    };
    char out[16];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct blocktext b = {cases[i].header, strlen(cases[i].header), cases[i].body, strlen(cases[i].body),
                              strchr(cases[i].header, '>') != NULL, cases[i].at_eof, false, false, 0};
        size_t n = 99;

        ck_assert_msg(blocktext_format(&b, out, &n) == cases[i].taken, "case %zu", i);
        if (cases[i].taken) {
            ck_assert_uint_eq(n, 0);
            ck_assert(b.departs);
        }
    }
}
END_TEST

/* blocktext_shallow: an empty block scalar libfyaml 0.7.12 read the next line into (the
 * body as it delimited it), its header's comment and tabs allowed; the texts are npm
 * yaml's and gopkg.in/yaml.v3's (both alike: /tmp yamlprobe, stop 49). */
START_TEST(shallow_lines)
{
    static const struct {
        const char *header, *body;
        bool shallow;
        size_t indicator;
        unsigned col;
        size_t breaks;
    } cases[] = {
        {"  A: |", "  B: x\n", true, 5, 3, 0},
        {"  A: | # c", "  B: x\n", true, 5, 3, 0},       /* silently misread before */
        {"  A: |\t# c", "  B: x\n", true, 5, 3, 0},
        {"  A: |-\t", "\n  B: x\n", true, 5, 3, 0},
        {"  A: |+", "\n  \n  B: x\n", true, 5, 3, 2},   /* `+` keeps the blank lines */
        {"  A: >+ # c", "\n# c\n\n  B: x\n", true, 5, 1, 1}, /* a comment line ends it too */
        {"  A: |+\r", "\r\n  B: x\r\n", true, 5, 3, 1},
        {"  \"A #\": | # x: | #", "  B: x\n", true, 9, 3, 0}, /* a `#` in a quoted key */
        {"  A: &a !!str |", "  B: x\n", true, 14, 3, 0},
        {"  - |", "  - x\n", true, 4, 3, 0},
        {"  A: |", "    B: x\n", false, 0, 0, 0},   /* deeper: the scalar's text */
        {"  A: |2", "  B: x\n", false, 0, 0, 0},    /* an indentation indicator: libfyaml is right */
        {"  A: |", "\t\n  B: x\n", false, 0, 0, 0}, /* a tab: left to libfyaml */
        {"  A: |", "  \n   ", false, 0, 0, 0},      /* blank to the end */
        {"  A: |\rB", "  B: x\n", false, 0, 0, 0},  /* a CR alone */
        {"  A", "  B: x\n", false, 0, 0, 0},        /* no header */
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct blocktext b = {cases[i].header, strlen(cases[i].header), cases[i].body, strlen(cases[i].body),
                              strchr(cases[i].header, '>') != NULL, false, false, false, 0};
        struct blocktext_shallow at = {0};

        ck_assert_msg(blocktext_shallow(&b, &at) == cases[i].shallow, "case %zu", i);
        if (!cases[i].shallow)
            continue;
        ck_assert_msg(at.indicator == cases[i].indicator, "case %zu: indicator %zu", i, at.indicator);
        ck_assert_msg(at.col == cases[i].col, "case %zu: col %u", i, at.col);
        ck_assert_msg(at.breaks == cases[i].breaks, "case %zu: breaks %zu", i, at.breaks);
    }
}
END_TEST

/* blocktext_cut: a last line with text and no break after it, at the end of the input */
START_TEST(cut_at_end)
{
    static const struct {
        const char *header, *body;
        bool at_eof, cut, keep;
    } cases[] = {
        {"k: |", "  a", true, true, false},         {"k: |+", "  a\n  b  ", true, true, true},
        {"- >-", "  a", true, true, false},         {"k: |+ # c", "  a", true, true, true}, /* a comment */
        {"k: |", "  a", false, false, false},       {"k: |", "  a\n", true, false, false},
        {"k: |", "  a\r", true, false, false},      {"k: |", "  a\n   ", true, false, false}, /* white space */
        {"k: |", "  a\xc2\x85", true, false, false}, {"k: |", "  a\xe2\x80\xa9", true, false, false}, /* NEL, PS */
        {"k: |", "", true, false, false},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct blocktext b = {cases[i].header, strlen(cases[i].header), cases[i].body, strlen(cases[i].body),
                              strchr(cases[i].header, '>') != NULL, cases[i].at_eof, false, false, 0};
        bool keep = !cases[i].keep;

        ck_assert_msg(blocktext_cut(&b, &keep) == cases[i].cut, "case %zu", i);
        ck_assert_msg(keep == cases[i].keep, "case %zu keep", i);
    }
}
END_TEST

/* A folded line, a blank line, a line one space deeper: libfyaml 0.7.12 counts six bytes
 * and writes five (its last byte is whatever the heap held: review39); blocktext gives
 * YAML's text (1.2.2, 8.1.3: the breaks around a more-indented line are kept), and the
 * oracle leaves the case out. */
START_TEST(fold_before_one_deeper)
{
    static const char body[] = "  a\n\n   b\n";
    struct blocktext b = {"k: >", 4, body, sizeof(body) - 1, true, true, false, false, 0};
    struct blocktext_tally t = {0};
    const char *yaml = "k: >\n  a\n\n   b\n";
    char out[16];
    size_t n;

    ck_assert(blocktext_format(&b, out, &n));
    ck_assert(b.departs);
    ck_assert_uint_eq(n, 6);
    ck_assert_mem_eq(out, "a\n\n b\n", 6);
    blocktext_compare(yaml, strlen(yaml), &t);
    ck_assert_uint_eq(t.departed, 1);
    ck_assert_uint_eq(t.compared, 0);
    /* the same ending the input after blank lines (the last step of a workflow, a blank
     * line after it): was left to libfyaml, whose text it writes short (an error) */
    {
        static const char at_end[] = "  a\n\n   b\n\n\n";
        struct blocktext e = {"k: >", 4, at_end, sizeof(at_end) - 1, true, true, false, false, 0};

        ck_assert(blocktext_format(&e, out, &n));
        ck_assert(e.departs);
        ck_assert_uint_eq(n, 6);
        ck_assert_mem_eq(out, "a\n\n b\n", 6);
    }
}
END_TEST

/* The same with CRLF line ends, CR ones, and a tab after the first line's text: blocktext
 * declined them, and libfyaml's text ended in a byte it never wrote. */
START_TEST(fold_before_one_deeper_crlf_tab)
{
    static const struct {
        const char *header, *body, *want;
    } cases[] = {
        {"k: >\r", "  a\r\n\r\n   b\r\n", "a\n\n b\n"},
        {"k: >", "  a\r\r   b\r", "a\n\n b\n"},
        {"k: >", "  a\t\n\n   b\n", "a\t\n\n b\n"},
        {"k: >-", "  a\tc\r\n\r\n   b\r\n", "a\tc\n\n b"},
    };
    char out[32];
    size_t n;

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct blocktext b = {cases[i].header, strlen(cases[i].header), cases[i].body, strlen(cases[i].body), true,
                              true, false, false, 0};

        ck_assert_msg(blocktext_format(&b, out, &n), "case %zu declined", i);
        ck_assert(b.departs);
        ck_assert_uint_eq(n, strlen(cases[i].want));
        ck_assert_mem_eq(out, cases[i].want, n);
    }
}
END_TEST

static unsigned rnd(uint64_t *s, unsigned n)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((*s >> 33) % n);
}

/* A document with one block scalar of a random form: its context (a key, a sequence's
 * item, a key in an item, a key with the scalar on the next line, a second key; an anchor
 * or a tag), header (a comment on its line), lines (empty, spaces, text, at random indentation) and what ends it. */
static size_t random_doc(uint64_t *s, char *buf)
{
    static const char *const words[] = {"a", "b c", "# x", "- y", "z  ", "\xc3\xa9", "k: v"};
    static const char *const chomps[] = {"", "-", "+"};
    unsigned p = rnd(s, 3) * 2, ctx = rnd(s, 5), m = rnd(s, 3) ? 0 : 1 + rnd(s, 4);
    unsigned ind = p + 1 + rnd(s, 4), lines = rnd(s, 7), end = rnd(s, 6);
    char *o = buf;

    if (p)
        o += sprintf(o, "top:\n");
    if (ctx == 4)
        o += sprintf(o, "%*sa: 1\n", p, "");
    if (ctx == 1 && rnd(s, 2))
        o += sprintf(o, "%*s- first\n", p, "");
    o += sprintf(o, ctx == 1 ? "%*s- " : ctx == 2 ? "%*s- key: " : ctx == 3 ? "%*skey:\n%*s" : "%*skey: ", p, "",
                 p + 2, "");
    if (ctx == 2)
        p += 2;
    o += sprintf(o, "%s%c", (const char *[]){"", "", "&a ", "!!str "}[rnd(s, 4)], rnd(s, 2) ? '|' : '>');
    if (rnd(s, 2))
        o += sprintf(o, "%s%.*u", chomps[rnd(s, 3)], m ? 1 : 0, m);
    else
        o += sprintf(o, "%.*u%s", m ? 1 : 0, m, chomps[rnd(s, 3)]);
    o += sprintf(o, "%*s", (int)rnd(s, 3), "");
    if (!rnd(s, 4)) /* a comment on the header's line, white space before it */
        o += sprintf(o, " %s# c: | >", rnd(s, 2) ? "\t" : "");
    o += sprintf(o, "\n");
    for (unsigned i = 0; i < lines; i++) {
        unsigned kind = rnd(s, 6), extra = rnd(s, 8);
        int deeper = extra < 4 ? 0 : extra < 7 ? (int)extra - 3 : -1;

        if (kind == 0)
            o += sprintf(o, "\n");
        else if (kind == 1)
            o += sprintf(o, "%*s\n", (int)rnd(s, ind + 4), "");
        else
            o += sprintf(o, "%*s%s\n", (int)ind + deeper, "", words[rnd(s, 7)]);
    }
    if (end == 0 && o > buf && o[-1] == '\n')
        o--; /* the end of the input, mid-line */
    else if (end == 2)
        o += sprintf(o, "%*s%s\n", p, "", ctx == 1 ? "- end" : "end: 1");
    else if (end == 3)
        o += sprintf(o, "# c\n");
    else if (end == 4)
        o += sprintf(o, "...\n");
    else if (end == 5)
        o += sprintf(o, "%*snext: 1\n", (int)rnd(s, p + 1), "");
    *o = '\0';
    return (size_t)(o - buf);
}

/* random_doc's form `in` (len bytes) in `out`: variant i % 3 with CRLF, CR or LF line
 * ends, and when i is odd tabs in the text ("b\tc", a trailing "z\t"), which libfyaml
 * reads as a LF each and as text. Returns its length. */
static size_t vary_form(const char *in, size_t len, int i, char *out)
{
    const char *brk = (const char *[]){"\r\n", "\r", "\n"}[i % 3];
    size_t n = 0;

    for (size_t k = 0; k < len; k++) {
        if (in[k] == '\n') {
            n += (size_t)sprintf(out + n, "%s", brk);
        } else {
            out[n++] = in[k];
            if (i % 2 && k + 2 < len && (!memcmp(in + k, "b c", 3) || !memcmp(in + k, "z  ", 3)))
                out[n++] = in[++k] == ' ' ? '\t' : in[k];
        }
    }
    return n;
}

/* 30,000 of random_doc's forms from `seed` (`varied`: through vary_form) compared with
 * libfyaml; at least `least` of them taken by blocktext. */
static void compare_random(uint64_t seed, bool varied, size_t least)
{
    struct blocktext_tally t = {0};
    char buf[1024], out[2048];

    for (int i = 0; i < 30000; i++) {
        size_t len = random_doc(&seed, buf);

        if (varied)
            len = vary_form(buf, len, i, out);
        blocktext_compare(varied ? out : buf, len, &t);
        if (t.differ)
            ck_abort_msg("case %d differs: %s", i, t.first);
    }
    fprintf(stderr, "blocktext: %zu random block scalars%s compared with libfyaml, %zu left to it\n",
            t.compared, varied ? " (CRLF, CR, tabs)" : "", t.declined);
    ck_assert_uint_gt(t.compared, least);
}

START_TEST(random_forms)
{
    compare_random(27, false, 10000);
}
END_TEST

START_TEST(random_forms_crlf_tabs)
{
    compare_random(28, true, 5000);
}
END_TEST

static struct blocktext_tally corpus;

static void corpus_file(const char *path, const char *text, size_t len, void *ctx)
{
    (void)ctx;
    blocktext_compare(text, len, &corpus);
    if (corpus.differ)
        ck_abort_msg("%s: %s", path, corpus.first);
}

/* Every block scalar of the corpus (../shared/corpus) and of the fixtures. */
START_TEST(corpus_and_fixtures)
{
    size_t corpus_files = unit_each_corpus_yaml(corpus_file, NULL);

    fprintf(stderr, "blocktext: %zu block scalars of %zu YAML files compared with libfyaml, %zu left to it\n",
            corpus.compared, corpus_files, corpus.declined);
    ck_assert_uint_gt(corpus.compared, 1000);
}
END_TEST

Suite *blocktext_suite(void)
{
    Suite *s = suite_create("blocktext");
    TCase *tc = tcase_create("libfyaml");

    tcase_add_test(tc, forms);
    tcase_add_test(tc, declines);
    tcase_add_test(tc, empty_scalars);
    tcase_add_test(tc, cut_at_end);
    tcase_add_test(tc, shallow_lines);
    tcase_add_test(tc, tab_after_blank_lines);
    tcase_add_test(tc, fold_before_one_deeper);
    tcase_add_test(tc, fold_before_one_deeper_crlf_tab);
    tcase_add_test(tc, random_forms);
    tcase_add_test(tc, random_forms_crlf_tabs);
    tcase_add_test(tc, corpus_and_fixtures);
    suite_add_tcase(s, tc);
    return s;
}

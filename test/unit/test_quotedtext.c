/* quotedtext: YAML 1.2.2's examples, the cases libfyaml 0.7.12 gets wrong, and 1,500 random
 * bodies as PyYAML and eemeli/yaml both read them (test/conformance/quotedtext/cases.txt);
 * then against libfyaml itself (test/quotedtext_oracle.c) for every single-quoted scalar
 * without an escape or a CR: random ones of every form, and every one of the corpus and
 * the fixtures. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../quotedtext_oracle.h"
#include "fanout/quotedtext.h"
#include "unit.h"

/* The text of body[0..strlen) quoted with `quote` is want[0..want_len), written apart and,
 * single-quoted, in place. */
static void check_quoted(char quote, const char *body, const char *want, size_t want_len)
{
    size_t len = strlen(body), n = 0;
    char out[384], in_place[256];

    ck_assert_msg(quotedtext_format(body, len, quote, out, &n), "%c%s%c declined", quote, body, quote);
    ck_assert_msg(n == want_len && memcmp(out, want, n) == 0, "%c%s%c: [%.*s], not [%s]", quote, body, quote,
                  (int)n, out, want);
    if (quote == '"')
        return;
    memcpy(in_place, body, len);
    ck_assert(quotedtext_format(in_place, len, quote, in_place, &n));
    ck_assert_mem_eq(in_place, want, n);
}

#define check_text(body, want) check_quoted('\'', body, want, sizeof(want) - 1)
#define check_double(body, want) check_quoted('"', body, want, sizeof(want) - 1)

START_TEST(spec)
{
    check_text("here''s to \"quotes\"", "here's to \"quotes\"");              /* example 7.7 */
    check_text(" 1st non-empty\n\n 2nd non-empty \n\t3rd non-empty ",        /* example 7.9 */
               " 1st non-empty\n2nd non-empty 3rd non-empty ");
    check_text("", "");
    check_text("''", "'");
    check_text("  a  ", "  a  ");           /* one line: its white space is text */
    check_text("a\n  b", "a b");            /* a break folds to a space */
    check_text("a  \t\n \t b", "a b");      /* white space around a break is trimmed */
    check_text("a\n\n\n  b", "a\n\nb");     /* k empty lines give k line feeds */
    check_text("a\n  \t\n  b", "a\nb");     /* a line of white space is empty */
    check_text("   \n  a", " a");           /* a first line of white space only */
    check_text("\n\n  a", "\na");
    check_text("a\n   ", "a ");             /* the last line ends at the quote, not a break */
    check_text("a\n\n   ", "a\n");
    check_text("a\r\n\r\n  b\r\n  c", "a\nb c"); /* CRLF */
    check_text("\xc3\xa9''\n  \xe2\x82\xac", "\xc3\xa9' \xe2\x82\xac");
}
END_TEST

START_TEST(spec_double)
{
    check_double("implicit block key", "implicit block key"); /* example 7.4 */
    check_double("folded \nto a space,\t\n \nto a line feed, or \t\\\n \\ \tnon-content", /* example 7.5 */
                 "folded to a space,\nto a line feed, or \t \tnon-content");
    check_double(" 1st non-empty\n\n 2nd non-empty \n\t3rd non-empty ", /* example 7.6 */
                 " 1st non-empty\n2nd non-empty 3rd non-empty ");
    check_double("Fun with \\\\\n\\\" \\a \\b \\e \\f\n\\n \\r \\t \\v \\0\n" /* example 5.13 */
                 "\\  \\_ \\N \\L \\P \\\n  \\x41 \\u0041 \\U00000041",
                 "Fun with \\ \" \a \b \x1b \f \n \r \t \v \0 "
                 "  \xc2\xa0 \xc2\x85 \xe2\x80\xa8 \xe2\x80\xa9 A A A");
    check_double("", "");
    check_double("a\\/b\\\tc", "a/b\tc");               /* \/ and \<TAB> */
    check_double("\\xe9\\u20ac\\U0001F600", "\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80");
    check_double("\\L\\P\\L", "\xe2\x80\xa8\xe2\x80\xa9\xe2\x80\xa8"); /* half as long again */
    check_double("a\n  b", "a b");
    check_double("a \\\n  b", "a b");      /* an escaped break keeps the white space before it */
    check_double("a\\\n  \n\n  b", "a\n\nb"); /* then empty lines give line feeds */
    check_double("a\\\n   ", "a");         /* and a last line of white space nothing */
    check_double("a\\\n\n   ", "a\n");
    check_double("a\\\\\n b", "a\\ b");   /* an escaped backslash before a break */
    check_double("a\\t\n b", "a\t b");      /* an escaped tab is text, not trimmed */
    check_double("a\\\t  \n b", "a\t b");
    check_double("\\x41 \t\n b", "A b");
    check_double("a\n  \\\n  b", "a b");
    check_double("a\r\n\r\n  b\r\n  c", "a\nb c");
}
END_TEST

/* libfyaml 0.7.12 gave "ab" and two bytes it never wrote for an escaped space before a
 * break, "a\n" for a CRLF before a last line of white space (stop 45, yamlprobe). */
START_TEST(double_misread)
{
    check_double("a\\ \n      b", "a  b");
    check_double("a\\ \r\n  b\\ \n\n  c", "a  b \nc");
    check_double("\\ \n", "  ");
    check_double("a\r\n      ", "a ");
    check_double("a\r\n\r\n  ", "a\n");
}
END_TEST

/* libfyaml 0.7.12 gave "a'''b ", "a'''''" and a byte it never wrote, "a'''''", and for
 * the multi-line one "x'''''''"; " '\n'" for a line of '' after an empty first line,
 * "a\n" for the CRLF one: each found by rendering them (stop 45). */
START_TEST(escapes_in_a_row)
{
    check_text("a''''b c", "a''b c");
    check_text("a''''''b c", "a'''b c");
    check_text("a''''''bc", "a'''bc");
    check_text("a'''''' ", "a''' ");
    check_text("''''''", "'''");
    check_text("x''''\n  y z''\n\n  w", "x'' y z'\nw");
    check_text("a''''''''''''''''''''''''''''''''''''''''''''''''''''''''''''b",
               "a''''''''''''''''''''''''''''''b");
    check_text("\n  ''\n  ''", " ' '");
    check_text("a\r\n  ", "a ");
}
END_TEST

START_TEST(declines)
{
    static const char *const bodies[] = {"a'b", "a'", "'", "a''' b", "a\rb", "a\r", ("a\xc2\x85" "b"),
                                         "a\xe2\x80\xa8", "a\xe2\x80\xa9 b"};

    static const char *const doubles[] = {"a\"b", "a\\qb", "\\uD800", "\\uDFFF", "\\U00110000", "\\x4", "\\xZZ",
                                          "\\u12", "a\\", "a\\\\\\", "a\rb", ("a\xc2\x85" "b")};
    char out[16];
    size_t n;

    for (size_t i = 0; i < sizeof(bodies) / sizeof(bodies[0]); i++)
        ck_assert_msg(!quotedtext_format(bodies[i], strlen(bodies[i]), '\'', out, &n), "case %zu taken", i);
    for (size_t i = 0; i < sizeof(doubles) / sizeof(doubles[0]); i++)
        ck_assert_msg(!quotedtext_format(doubles[i], strlen(doubles[i]), '"', out, &n), "double %zu taken", i);
}
END_TEST

/* cases.txt's C escapes read in place; returns the length. */
static size_t unescape_case(char *s)
{
    char *w = s;

    for (const char *r = s; *r; r++) {
        if (*r != '\\') {
            *w++ = *r;
            continue;
        }
        r++;
        if (*r == 'x') {
            *w++ = (char)strtoul((char[]){r[1], r[2], 0}, NULL, 16);
            r += 2;
        } else {
            *w++ = *r == 'n' ? '\n' : *r == 'r' ? '\r' : *r == 't' ? '\t' : *r;
        }
    }
    return (size_t)(w - s);
}

/* Random bodies quoted with `quote` in table `path` (gen.py beside it says how it was
 * made) and their text as two YAML readers agree on it; returns how many. */
static size_t two_readers_agree(const char *path, char quote)
{
    FILE *fp = fopen(path, "r");
    char line[1024], out[1536];
    size_t cases = 0;

    ck_assert_msg(fp, "%s", path);
    while (fgets(line, sizeof(line), fp)) {
        char *tab = strchr(line, '\t'), *nl = strchr(line, '\n');
        size_t blen, wlen, n = 0;

        ck_assert_msg(tab && nl, "%s: line %zu", path, cases + 1);
        *tab = *nl = '\0';
        blen = unescape_case(line);
        wlen = unescape_case(tab + 1);
        ck_assert_msg(quotedtext_format(line, blen, quote, out, &n), "%s: case %zu declined", path, cases + 1);
        ck_assert_msg(n == wlen && memcmp(out, tab + 1, n) == 0, "%s: case %zu: [%.*s], not [%.*s]", path, cases + 1,
                      (int)n, out, (int)wlen, tab + 1);
        cases++;
    }
    fclose(fp);
    return cases;
}

/* Random bodies with escapes, CRLF, tabs and blank lines. */
START_TEST(two_readers)
{
    ck_assert_uint_eq(two_readers_agree("test/conformance/quotedtext/cases.txt", '\''), 1500);
    ck_assert_uint_eq(two_readers_agree("test/conformance/quotedtext/cases-double.txt", '"'), 1500);
}
END_TEST

static unsigned rnd(uint64_t *s, unsigned n)
{
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (unsigned)((*s >> 33) % n);
}

/* A document with a scalar quoted with `quote` of a random form: a value, a key, a
 * sequence's item, in a flow mapping; lines of text, escapes, white space (tabs after the
 * indentation), empty ones; LF or CRLF breaks; double-quoted, escaped breaks. */
static size_t random_doc(uint64_t *s, char quote, char *buf)
{
    static const char *const singles[] = {"a", "b c", " ", "  ", "\t", "''", "''''", "#", ": ", "- ", "\xc3\xa9"};
    static const char *const doubles[] = {"a", "b c", " ", "  ", "\t", "#", ": ", "\xc3\xa9", "\\\\", "\\\"",
                                          "\\ ", "\\t", "\\\t", "\\n", "\\0", "\\x41", "\\xe9", "\\u20ac",
                                          "\\U0001F600", "\\/", "\\_", "\\e", "\\r", "\\L", "\\N", "\\P"};
    static const char *const ctx[] = {"k: ", "- ", "", "{k: ", "- k: "};
    static const char *const ctx_end[] = {"\n", "\n", ": v\n", "}\n", "\n"};
    const char *const *atoms = quote == '"' ? doubles : singles;
    unsigned atoms_of = quote == '"' ? sizeof(doubles) / sizeof(doubles[0]) : sizeof(singles) / sizeof(singles[0]);
    unsigned c = rnd(s, 5), lines = 1 + rnd(s, 4);
    const char *brk = rnd(s, 4) ? "\n" : "\r\n";
    char *o = buf;

    o += sprintf(o, "%s%c", ctx[c], quote);
    for (unsigned i = 0; i < lines; i++) {
        unsigned atoms_n = rnd(s, 5);

        if (i)
            o += sprintf(o, "%s%*s%s", brk, 4, "", rnd(s, 4) ? "" : "\t");
        for (unsigned k = 0; k < atoms_n; k++)
            o += sprintf(o, "%s", atoms[rnd(s, atoms_of)]);
        if (quote == '"' && i + 1 < lines && !rnd(s, 4))
            o += sprintf(o, "\\");
    }
    o += sprintf(o, "%c%s", quote, ctx_end[c]);
    return (size_t)(o - buf);
}

START_TEST(random_forms)
{
    struct quotedtext_tally t = {0};
    uint64_t seed = 45;
    char buf[1024];
    size_t singles;

    for (int i = 0; i < 60000; i++) {
        size_t len = random_doc(&seed, i < 30000 ? '\'' : '"', buf);

        quotedtext_compare(buf, len, &t);
        if (t.differ)
            ck_abort_msg("case %d differs: %s", i, t.first);
    }
    singles = t.compared - t.compared_double;
    fprintf(stderr, "quotedtext: %zu random single- and %zu double-quoted scalars compared with libfyaml, %zu where "
            "it is known wrong not\n", singles, t.compared_double, t.not_compared);
    ck_assert_uint_gt(singles, 10000);
    ck_assert_uint_gt(t.compared_double, 10000);
    ck_assert_uint_eq(t.declined, 0);
}
END_TEST

static struct quotedtext_tally corpus;

static void corpus_file(const char *path, const char *text, size_t len, void *ctx)
{
    (void)ctx;
    quotedtext_compare(text, len, &corpus);
    if (corpus.differ)
        ck_abort_msg("%s: %s", path, corpus.first);
}

/* Every quoted scalar of the corpus (../shared/corpus) and of the fixtures. */
START_TEST(corpus_and_fixtures)
{
    size_t corpus_files = unit_each_corpus_yaml(corpus_file, NULL);

    fprintf(stderr, "quotedtext: %zu quoted scalars (%zu double-quoted) of %zu YAML files compared with libfyaml, "
            "%zu declined, %zu where it is known wrong not\n", corpus.compared, corpus.compared_double, corpus_files,
            corpus.declined, corpus.not_compared);
    ck_assert_uint_gt(corpus.compared, 800);
}
END_TEST

/* quotedtext_shallow: a line after the first, with text or the closing quote, fewer spaces
 * deep than the key's column + 1 (npm yaml's continueScalar; YAML 1.2.2 6.1) */
START_TEST(shallow_lines)
{
    static const struct {
        const char *body;
        size_t least, line, col; /* line 0: none */
    } cases[] = {
        {"a\nb", 3, 1, 0},          /* QB6E */
        {"a\n   b", 3, 0, 0},
        {"a\n  b", 3, 1, 2},
        {"a\n\n   b\n  ", 3, 3, 2}, /* the closing quote's line */
        {"a\n\n\r\n   b", 3, 0, 0},  /* empty lines are not held to it */
        {"a\n \tb", 3, 1, 1},       /* a tab is no indentation */
        {"a\n    \tb", 3, 0, 0},
        {"a b", 3, 0, 0},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t line = 0, col = 0;
        bool got = quotedtext_shallow(cases[i].body, strlen(cases[i].body), cases[i].least, &line, &col);

        ck_assert_msg(got == (cases[i].line != 0), "case %zu", i);
        if (got)
            ck_assert_msg(line == cases[i].line && col == cases[i].col, "case %zu: %zu:%zu", i, line, col);
    }
}
END_TEST

Suite *quotedtext_suite(void)
{
    Suite *s = suite_create("quotedtext");
    TCase *tc = tcase_create("libfyaml");

    tcase_add_test(tc, spec);
    tcase_add_test(tc, escapes_in_a_row);
    tcase_add_test(tc, spec_double);
    tcase_add_test(tc, double_misread);
    tcase_add_test(tc, declines);
    tcase_add_test(tc, two_readers);
    tcase_add_test(tc, random_forms);
    tcase_add_test(tc, shallow_lines);
    tcase_add_test(tc, corpus_and_fixtures);
    suite_add_tcase(s, tc);
    return s;
}

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/yscalar.h"
#include "unit.h"

#define TYPE(s) yscalar_type((s), strlen(s))
#define MISREAD(s) yscalar_misread((s), strlen(s))
#define STYLE(s, key) yscalar_style((s), strlen(s), (key))

START_TEST(core_types)
{
    ck_assert_int_eq(TYPE(""), YS_NULL);
    ck_assert_int_eq(TYPE("~"), YS_NULL);
    ck_assert_int_eq(TYPE("Null"), YS_NULL);
    ck_assert_int_eq(TYPE("true"), YS_BOOL);
    ck_assert_int_eq(TYPE("FALSE"), YS_BOOL);
    ck_assert_int_eq(TYPE("yes"), YS_STRING); /* YAML 1.2 */
    ck_assert_int_eq(TYPE("10"), YS_INT);
    ck_assert_int_eq(TYPE("-3"), YS_INT);
    ck_assert_int_eq(TYPE("0x1F"), YS_INT);
    ck_assert_int_eq(TYPE("0o17"), YS_INT);
    ck_assert_int_eq(TYPE("1.5"), YS_FLOAT);
    ck_assert_int_eq(TYPE(".5"), YS_FLOAT);
    ck_assert_int_eq(TYPE("1e3"), YS_FLOAT);
    ck_assert_int_eq(TYPE("-.inf"), YS_FLOAT);
    ck_assert_int_eq(TYPE(".NaN"), YS_FLOAT);
    ck_assert_int_eq(TYPE("1_000"), YS_STRING);
    ck_assert_int_eq(TYPE("h200"), YS_STRING);
    ck_assert_int_eq(TYPE("10\n"), YS_STRING);
}
END_TEST

START_TEST(misread_by_some_reader)
{
    static const char *const bad[] = {
        "yes", "No", "ON", "off", "y", "N", "true", "null", "~", "0123", "0o17", "0x1F",
        "1_000", "12:30", "1:20:30", "+1", ".5", "1e3", ".inf", "-.Inf", ".NaN",
        "2001-12-14", "2001-12-14t21:59:43.10-05:00", "=", "<<", "10", "-3", "1.",
    };
    static const char *const fine[] = {
        "yesterday", "nope", "h200_35gb", "image-build", "4xh100", "1st", "v1.2.3", "a:b",
        "on-call", "--shard-id=0", "12:30pm", "2001-12", "x=1", "<<<", ".venv",
    };

    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
        ck_assert_msg(MISREAD(bad[i]), "'%s' should need quotes", bad[i]);
    for (size_t i = 0; i < sizeof(fine) / sizeof(fine[0]); i++)
        ck_assert_msg(!MISREAD(fine[i]), "'%s' should stay plain", fine[i]);
}
END_TEST

START_TEST(styles)
{
    ck_assert_int_eq(STYLE("pytest -v -s models", false), YS_PLAIN);
    ck_assert_int_eq(STYLE(":nvidia: H200", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a: b", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a #b", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a#b", false), YS_PLAIN);
    ck_assert_int_eq(STYLE("-v", false), YS_PLAIN);
    ck_assert_int_eq(STYLE("- v", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("*x", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("%N", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE(" lead", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("trail ", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("---", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("tab\there", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("line1\nline2\n", false), YS_LITERAL);
    ck_assert_int_eq(STYLE("line1\nline2\n", true), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a\r\nb", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a\n  \nb", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("\n\n", false), YS_DOUBLE_QUOTED);
    ck_assert_int_eq(STYLE("a\xe2\x80\xa8" "b", false), YS_DOUBLE_QUOTED);
}
END_TEST

/* The pieced-text tests' generator: a linear congruential step, its high bits. */
static uint32_t next_random(uint32_t *seed)
{
    *seed = *seed * 1103515245u + 12345u;
    return *seed >> 16;
}

/* `count` pieces drawn at random appended to text[0..len): the new length. */
static size_t add_pieces(char *text, size_t len, const char *const *pieces, size_t n_pieces, size_t count,
                         uint32_t *seed)
{
    for (size_t k = 0; k < count; k++) {
        const char *piece = pieces[next_random(seed) % n_pieces];

        memcpy(text + len, piece, strlen(piece));
        len += strlen(piece);
    }
    return len;
}

/* Whether text with a line break is written as a literal block, line by line as the
 * rule says: no line only of spaces and tabs, no byte a block cannot hold raw, a line
 * that is not empty. */
static bool literal_by_lines(const char *s, size_t len)
{
    static const char *const special[] = {"\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xEF\xBB\xBF"};
    bool text = false;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c < 0x20 && c != '\t' && c != '\n') || c == 0x7F)
            return false;
        for (size_t k = 0; k < 4; k++)
            if (len - i >= strlen(special[k]) && !memcmp(s + i, special[k], strlen(special[k])))
                return false;
    }
    for (size_t i = 0; i < len;) {
        size_t e = i, q;

        while (e < len && s[e] != '\n')
            e++;
        for (q = i; q < e && (s[q] == ' ' || s[q] == '\t'); q++)
            ;
        if (q == e && e > i)
            return false;
        text |= e > i;
        i = e + 1;
    }
    return text;
}

/* The lines yscalar_literal_lines gives, put back together. */
struct joined {
    char text[24 * 11 + 1];
    size_t len;
};

static void join_line(void *user, const char *line, size_t len, bool nl)
{
    struct joined *j = user;

    memcpy(j->text + j->len, line, len);
    j->len += len;
    if (nl)
        j->text[j->len++] = '\n';
}

/* The one-pass, word-at-a-time scan of multi-line text agrees with the rule on texts
 * pieced from the bytes it tells apart, at every offset in a word; the lines it gives
 * the emitter are the text's. */
START_TEST(literal_style_as_by_lines)
{
    static const char *const pieces[] = {"a", " ", "\t", "\n", "\n", "\r", "\x01", "\x7F", "\xC2\x85",
                                         "\xC2", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80",
                                         "\xEF\xBB\xBF", "\xC3\xA9", "abcdefghijk", "#: x", "~"};
    const size_t n_pieces = sizeof(pieces) / sizeof(pieces[0]);
    uint32_t seed = 12345;
    char text[24 * 11]; /* count pieces, the longest 11 bytes */

    for (int t = 0; t < 300000; t++) {
        size_t len = 0, count;

        count = 1 + next_random(&seed) % 24;
        len = add_pieces(text, len, pieces, n_pieces, count, &seed);
        if (!memchr(text, '\n', len))
            continue;
        ck_assert_msg(yscalar_style(text, len, false) ==
                          (literal_by_lines(text, len) ? YS_LITERAL : YS_DOUBLE_QUOTED),
                      "text %d", t);
        if (literal_by_lines(text, len)) {
            struct joined j = {.len = 0};

            ck_assert(yscalar_literal_lines(text, len, join_line, &j));
            ck_assert_msg(j.len == len && !memcmp(j.text, text, len), "text %d", t);
        }
    }
}
END_TEST

/* Whether text between two letters is plain, byte by byte as the rule says: no ": ",
 * no " #", no byte a plain scalar cannot hold raw (a tab either). */
static bool plain_by_bytes(const char *s, size_t len)
{
    static const char *const special[] = {"\xC2\x85", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xEF\xBB\xBF"};

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if (c < 0x20 || c == 0x7F || (c == ':' && s[i + 1] == ' ') || (c == '#' && s[i - 1] == ' '))
            return false;
        for (size_t k = 0; k < 4; k++)
            if (len - i >= strlen(special[k]) && !memcmp(s + i, special[k], strlen(special[k])))
                return false;
    }
    return true;
}

/* The word-at-a-time scan of one-line text agrees with the rule on texts pieced from the
 * bytes it tells apart, at every offset in a word. */
START_TEST(plain_style_as_by_bytes)
{
    static const char *const pieces[] = {"a", " ", ":", "#", "\t", "\x01", "\x7F", "\xC2\x85", "\xC2",
                                         "\xE2\x80\xA8", "\xE2\x80", "\xEF\xBB\xBF", "\xC3\xA9",
                                         "abcdefghijk", "-", "~"};
    const size_t n_pieces = sizeof(pieces) / sizeof(pieces[0]);
    uint32_t seed = 54321;
    char text[2 + 24 * 11]; /* x, count pieces (the longest 11 bytes), x */

    for (int t = 0; t < 300000; t++) {
        size_t len = 1, count;

        text[0] = 'x';
        count = next_random(&seed) % 25;
        len = add_pieces(text, len, pieces, n_pieces, count, &seed);
        text[len++] = 'x';
        ck_assert_msg(yscalar_style(text, len, t % 2) ==
                          (plain_by_bytes(text, len) ? YS_PLAIN : YS_DOUBLE_QUOTED),
                      "text %d", t);
    }
}
END_TEST

/* Printable ASCII, a word at a time with the last word overlapping: every length to
 * 40, a byte that is not text at every place (each edge of the range). */
START_TEST(printable_at_every_place)
{
    static const unsigned char bad[] = {0x00, '\t', '\n', 0x1F, 0x7F, 0x80, 0xC3, 0xFF};
    char text[40];

    memset(text, 'a', sizeof(text));
    for (size_t n = 0; n <= sizeof(text); n++) {
        text[0] = ' ';
        if (n)
            text[n - 1] = '~';
        ck_assert_msg(yscalar_printable(text, n), "length %zu", n);
        for (size_t at = 0; at < n; at++) {
            char was = text[at];

            for (size_t k = 0; k < sizeof(bad); k++) {
                text[at] = (char)bad[k];
                ck_assert_msg(!yscalar_printable(text, n), "length %zu, 0x%02x at %zu", n, bad[k], at);
            }
            text[at] = was;
        }
        memset(text, 'a', sizeof(text));
    }
}
END_TEST

/* ---- the scanners against the specifications' regular expressions ---- */

/* YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution). */
static const char CORE_NULL[] = "^(?:~|null|Null|NULL|)$";
static const char CORE_BOOL[] = "^(?:true|True|TRUE|false|False|FALSE)$";
static const char CORE_INT[] = "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$";
static const char CORE_FLOAT[] =
    "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    "|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$";
/* Everything a YAML 1.1 (https://yaml.org/type/) or 1.2 reader would not take as a
 * string. */
static const char MISREAD[] =
    "^(?:|~|null|Null|NULL" /* the empty text is a null */
    "|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    "|[-+]?[0-9][0-9_]*"
    "|[-+]?0b[01_]+|0o[0-7_]+|[-+]?0x[0-9a-fA-F_]+"
    "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\\.[0-9_]*)?"
    "|[-+]?(?:[0-9][0-9_]*)?\\.[0-9_]*(?:[eE][-+]?[0-9]+)?"
    "|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
    "|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)"
    "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt \\t].*)?"
    "|=|<<)$";

struct oracle {
    pcre2_code *null, *bool_, *int_, *float_, *misread;
    pcre2_match_data *md;
};

static pcre2_code *oracle_compile(const char *src)
{
    int err;
    PCRE2_SIZE off;
    pcre2_code *re = pcre2_compile((PCRE2_SPTR)src, PCRE2_ZERO_TERMINATED, PCRE2_DOLLAR_ENDONLY,
                                   &err, &off, NULL);

    ck_assert_ptr_nonnull(re);
    pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
    return re;
}

static bool oracle_matches(const struct oracle *o, pcre2_code *re, const char *s, size_t len)
{
    return pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, o->md, NULL) >= 0;
}

/* Fails at the first text on which a scanner and its regex disagree (checked without
 * Check's assertions, which cost a system call each). */
static void agree(const struct oracle *o, const char *s, size_t len)
{
    enum yscalar_type want = oracle_matches(o, o->null, s, len)     ? YS_NULL
                             : oracle_matches(o, o->bool_, s, len)  ? YS_BOOL
                             : oracle_matches(o, o->int_, s, len)   ? YS_INT
                             : oracle_matches(o, o->float_, s, len) ? YS_FLOAT
                                                                    : YS_STRING;

    if (yscalar_type(s, len) != want)
        ck_abort_msg("type of '%.*s': %d, the regex says %d", (int)len, s, yscalar_type(s, len), want);
    if (yscalar_misread(s, len) != oracle_matches(o, o->misread, s, len))
        ck_abort_msg("misread('%.*s') = %d, the regex says the opposite", (int)len, s,
                     yscalar_misread(s, len));
}

/* Every string of up to 4 characters over the characters that matter, then 300,000
 * strings made of the pieces numbers and dates are made of. */
START_TEST(scanners_agree_with_the_regexes)
{
    static const char alphabet[] = "0159_-+.:eEboxXaAfinNIT \t\n~=<";
    static const char *const pieces[] = {
        "0", "1", "5", "9", "12", "59", "60", "2001", "-", "+", ".", ":", "_", "e", "E",
        "0b", "0o", "0x", "inf", "Inf", "nan", "NaN", "T", "t", " ", "\t", "\n", "~",
        "<<", "=", "a", "F", "null", "yes", "On",
    };
    const size_t n_alpha = sizeof(alphabet) - 1, n_pieces = sizeof(pieces) / sizeof(pieces[0]);
    struct oracle o = {oracle_compile(CORE_NULL), oracle_compile(CORE_BOOL), oracle_compile(CORE_INT),
                       oracle_compile(CORE_FLOAT), oracle_compile(MISREAD),
                       pcre2_match_data_create(4, NULL)};
    char buf[64];
    uint64_t rng = 0x9E3779B97F4A7C15u;

    for (size_t len = 0; len <= 4; len++) {
        size_t total = 1;

        for (size_t i = 0; i < len; i++)
            total *= n_alpha;
        for (size_t k = 0; k < total; k++) {
            size_t v = k;

            for (size_t i = 0; i < len; i++, v /= n_alpha)
                buf[i] = alphabet[v % n_alpha];
            agree(&o, buf, len);
        }
    }
    for (int k = 0; k < 300000; k++) {
        size_t len = 0, parts;

        rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
        parts = 1 + rng % 8;
        for (size_t i = 0; i < parts; i++) {
            const char *p;

            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            p = pieces[rng % n_pieces];
            memcpy(buf + len, p, strlen(p));
            len += strlen(p);
        }
        agree(&o, buf, len);
    }
    pcre2_code_free(o.null);
    pcre2_code_free(o.bool_);
    pcre2_code_free(o.int_);
    pcre2_code_free(o.float_);
    pcre2_code_free(o.misread);
    pcre2_match_data_free(o.md);
}
END_TEST

/* A finite float, or a decimal integer a !!float tags, in the one form YAML 1.1 and 1.2
 * readers and JSON read alike, with the same value: every text of up to 6 characters
 * over the characters of such numbers. */
/* A multi-line plain scalar folded from its bytes: YAML 1.2.2's example 7.12 (Plain
 * Lines) and the line ends and white space around them; fanout's renderings of the
 * corpora and 3,000 generated scalars agreed with libfyaml's text when this was written. */
START_TEST(plain_fold)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"1st non-empty\n\n 2nd non-empty \n\t3rd non-empty", "1st non-empty\n2nd non-empty 3rd non-empty"},
        {"a\n  b", "a b"},
        {"a \t\n\t  b", "a b"},
        {"a\r\n  b\r\n  c", "a b c"},
        {"a\r\n  \r\n\t\r\n  b", "a\n\nb"},
        {"always() &&\n      (x == 'true')", "always() && (x == 'true')"},
        {"\xe4\xb8\xad\n \xe4\xb8\xad", "\xe4\xb8\xad \xe4\xb8\xad"},
        {"a", "a"},
    };

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char buf[64];
        size_t n = strlen(cases[i].in), len;

        memcpy(buf, cases[i].in, n);
        len = yscalar_plain_fold(buf, n);
        ck_assert_msg(len == strlen(cases[i].out) && memcmp(buf, cases[i].out, len) == 0, "case %zu: [%.*s]", i,
                      (int)len, buf);
    }
}
END_TEST

START_TEST(float_canonical)
{
    static const struct {
        const char *in, *out;
    } cases[] = {
        {"3", "3.0"}, {"-3", "-3.0"}, {"+3", "3.0"}, {"0", "0.0"}, {".5", "0.5"}, {"-.5", "-0.5"},
        {"5.", "5.0"}, {"1.25", "1.25"}, {"1e3", "1.0e+3"}, {"+1E-3", "1.0e-3"},
        {"2.5e+10", "2.5e+10"}, {"007.10", "007.10"},
    };
    static const char alphabet[] = "05-+.eE";
    static const char canonical[] = "^-?[0-9]+\\.[0-9]+(?:e[-+][0-9]+)?$";
    /* https://yaml.org/type/float.html, finite forms */
    static const char float_1_1[] = "^[-+]?(?:[0-9][0-9_]*)?\\.[0-9.]*(?:[eE][-+][0-9]+)?$";
    pcre2_code *core = oracle_compile(CORE_FLOAT), *canon = oracle_compile(canonical),
               *yaml11 = oracle_compile(float_1_1), *int_ = oracle_compile("^[-+]?[0-9]+$");
    struct oracle o = {.md = pcre2_match_data_create(4, NULL)};
    char in[8], out[16];

    for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t n = yscalar_float_canonical(cases[i].in, strlen(cases[i].in), out);

        ck_assert_str_eq(out, cases[i].out);
        ck_assert_uint_eq(n, strlen(cases[i].out));
    }
    for (size_t len = 1, total = 7; len <= 6; len++, total *= 7) {
        for (size_t k = 0; k < total; k++) {
            size_t v = k, n;

            for (size_t i = 0; i < len; i++, v /= 7)
                in[i] = alphabet[v % 7];
            in[len] = '\0';
            if (!oracle_matches(&o, core, in, len) && !oracle_matches(&o, int_, in, len))
                continue;
            n = yscalar_float_canonical(in, len, out);
            if (n > len + 3 || !oracle_matches(&o, canon, out, n) || !oracle_matches(&o, yaml11, out, n) ||
                yscalar_type(out, n) != YS_FLOAT || strtod(out, NULL) != strtod(in, NULL))
                ck_abort_msg("'%s' written '%s'", in, out);
        }
    }
    pcre2_code_free(core);
    pcre2_code_free(canon);
    pcre2_code_free(yaml11);
    pcre2_code_free(int_);
    pcre2_match_data_free(o.md);
}
END_TEST

Suite *yscalar_suite(void)
{
    Suite *s = suite_create("yscalar");
    TCase *tc = tcase_create("core");

    tcase_add_test(tc, core_types);
    tcase_add_test(tc, misread_by_some_reader);
    tcase_add_test(tc, styles);
    tcase_add_test(tc, literal_style_as_by_lines);
    tcase_add_test(tc, plain_style_as_by_bytes);
    tcase_add_test(tc, printable_at_every_place);
    tcase_add_test(tc, scanners_agree_with_the_regexes);
    tcase_add_test(tc, float_canonical);
    tcase_add_test(tc, plain_fold);
    suite_add_tcase(s, tc);
    return s;
}

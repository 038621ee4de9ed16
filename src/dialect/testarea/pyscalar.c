/* pyscalar: PyYAML's reading of a test-area scalar and pydantic's lax coercions of it
 * (pyscalar.h). Each form below is one alternative of a resolver.py regular expression,
 * in its order; the values are constructor.py's. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/yscalar.h"

#include "pyscalar.h"

#define DEC "0123456789"

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* s[i..len) past the characters of `set` and `_` (PyYAML's [0-9_]* and the like). */
static size_t span_us(const char *s, size_t i, size_t len, const char *set)
{
    while (i < len && (s[i] == '_' || (s[i] && strchr(set, s[i]))))
        i++;
    return i;
}

/* The digits of s[i..len) up to `max` of them: the index after them. */
static size_t span_digits(const char *s, size_t i, size_t len, size_t max)
{
    for (size_t n = 0; n < max && i < len && is_digit(s[i]); n++)
        i++;
    return i;
}

static size_t sign_len(const char *s, size_t len)
{
    return len && (s[0] == '-' || s[0] == '+');
}

/* (?::[0-5]?[0-9])+ from s[i]: the index after the groups (i when there are none). Two
 * digits are one group's when the first is 0-5: with one, the second would have to be a
 * ':', a '.' or the end. */
static size_t base60_groups(const char *s, size_t i, size_t len)
{
    while (i + 1 < len && s[i] == ':' && is_digit(s[i + 1])) {
        size_t two = i + 2 < len && s[i + 1] <= '5' && is_digit(s[i + 2]);

        i += 2 + two;
    }
    return i;
}

struct word {
    const char *text;
    size_t len;
};
#define WORD(s) {s, sizeof(s) - 1}

static bool is_word(const char *s, size_t len, const struct word *words)
{
    for (; words->text; words++)
        if (words->len == len && !memcmp(s, words->text, len))
            return true;
    return false;
}

static const struct word trues[] = {WORD("yes"),  WORD("Yes"),  WORD("YES"), WORD("true"), WORD("True"),
                                    WORD("TRUE"), WORD("on"),   WORD("On"),  WORD("ON"),   {NULL, 0}};
static const struct word falses[] = {WORD("no"),    WORD("No"),  WORD("NO"),  WORD("false"), WORD("False"),
                                     WORD("FALSE"), WORD("off"), WORD("Off"), WORD("OFF"),   {NULL, 0}};

/* (?:[eE][-+][0-9]+)?$ from s[i]. */
static bool exponent_ends(const char *s, size_t i, size_t len)
{
    if (i == len)
        return true;
    if ((s[i] != 'e' && s[i] != 'E') || i + 2 >= len || (s[i + 1] != '-' && s[i + 1] != '+'))
        return false;
    return span_digits(s, i + 2, len, SIZE_MAX) == len;
}

static bool is_float(const char *s, size_t len)
{
    size_t i = sign_len(s, len), j, k;
    static const struct word infs[] = {WORD(".inf"), WORD(".Inf"), WORD(".INF"), {NULL, 0}},
                             nans[] = {WORD(".nan"), WORD(".NaN"), WORD(".NAN"), {NULL, 0}};

    if (is_word(s + i, len - i, infs) || is_word(s, len, nans)) /* [-+]?\.(?:inf...) | \.(?:nan...) */
        return true;
    if (len > 1 && s[0] == '.' && is_digit(s[1])) /* \.[0-9][0-9_]*(?:[eE][-+][0-9]+)? */
        return exponent_ends(s, span_us(s, 2, len, DEC), len);
    if (i == len || !is_digit(s[i]))
        return false;
    j = span_us(s, i + 1, len, DEC);
    k = base60_groups(s, j, len);
    if (k == len || s[k] != '.')
        return false;
    if (k == j) /* [-+]?(?:[0-9][0-9_]*)\.[0-9_]*(?:[eE][-+][0-9]+)? */
        return exponent_ends(s, span_us(s, k + 1, len, DEC), len);
    return span_us(s, k + 1, len, DEC) == len; /* [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+\.[0-9_]* */
}

static bool is_int(const char *s, size_t len)
{
    size_t i = sign_len(s, len), j;

    if (i == len)
        return false;
    if (len - i > 2 && s[i] == '0' && s[i + 1] == 'b') /* [-+]?0b[0-1_]+ */
        return span_us(s, i + 2, len, "01") == len;
    if (len - i > 2 && s[i] == '0' && s[i + 1] == 'x') /* [-+]?0x[0-9a-fA-F_]+ */
        return span_us(s, i + 2, len, DEC "abcdefABCDEF") == len;
    if (s[i] == '0') /* [-+]?0 | [-+]?0[0-7_]+ */
        return span_us(s, i + 1, len, "01234567") == len;
    if (s[i] < '1' || s[i] > '9')
        return false;
    j = span_us(s, i + 1, len, DEC); /* [-+]?[1-9][0-9_]* , then (?::[0-5]?[0-9])+ */
    return j == len || base60_groups(s, j, len) == len;
}

/* [0-9]{4}-[0-9][0-9]-[0-9][0-9] | [0-9]{4}-[0-9][0-9]?-[0-9][0-9]?(?:[Tt]|[ \t]+)[0-9][0-9]?
 * :[0-9][0-9]:[0-9][0-9](?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9][0-9]?(?::[0-9][0-9])?))? */
static bool is_timestamp(const char *s, size_t len)
{
    size_t i, at, day;

    if (span_digits(s, 0, len, 4) != 4 || len < 8 || s[4] != '-')
        return false;
    if (len == 10 && span_digits(s, 5, len, 2) == 7 && s[7] == '-' && span_digits(s, 8, len, 2) == 10)
        return true;
    if ((i = span_digits(s, 5, len, 2)) == 5 || i == len || s[i] != '-' ||
        (day = at = span_digits(s, i + 1, len, 2)) == i + 1 || at == len)
        return false;
    if (s[at] == 'T' || s[at] == 't')
        at++;
    else
        while (at < len && (s[at] == ' ' || s[at] == '\t'))
            at++;
    if (at == day || (i = span_digits(s, at, len, 2)) == at || i + 6 > len || s[i] != ':' ||
        span_digits(s, i + 1, len, 2) != i + 3 || s[i + 3] != ':' || span_digits(s, i + 4, len, 2) != i + 6)
        return false;
    at = i + 6;
    if (at < len && s[at] == '.')
        at = span_digits(s, at + 1, len, SIZE_MAX);
    while (at < len && (s[at] == ' ' || s[at] == '\t'))
        at++;
    if (at == len || (s[at] == 'Z' && at + 1 == len))
        return true;
    if (s[at] != '-' && s[at] != '+')
        return false;
    i = span_digits(s, at + 1, len, 2);
    if (i == at + 1)
        return false;
    return i == len || (s[i] == ':' && span_digits(s, i + 1, len, 2) == i + 3 && i + 3 == len);
}

/* construct_yaml_int: `_` dropped, the sign read, then 0, 0b (base 2), 0x (16), a leading
 * 0 (8), a ':' (base 60 groups), else base 10. */
static enum py_type int_value(const char *s, size_t len, long long *out)
{
    size_t i = sign_len(s, len);
    unsigned base = 10, digits = 0;
    unsigned long long v = 0, group = 0, limit = (unsigned long long)INT64_MAX + (s[0] == '-');
    bool over = false;

    if (len - i > 1 && s[i] == '0' && (s[i + 1] == 'b' || s[i + 1] == 'x')) {
        base = s[i + 1] == 'b' ? 2 : 16;
        i += 2;
    } else if (s[i] == '0') {
        base = 8;
    } else if (memchr(s, ':', len)) {
        base = 60;
    }
    for (; i < len; i++) {
        unsigned d = (unsigned char)s[i];

        if (d == '_')
            continue;
        if (base == 60 && d == ':') {
            over |= v > (limit - group) / 60; /* a group's digits wait for the next ':' */
            v = v * 60 + group;
            group = 0;
            continue;
        }
        d = is_digit((char)d) ? d - '0' : (d | 0x20) - 'a' + 10;
        digits++;
        if (base == 60) {
            group = group * 10 + d; /* a group is at most 59 after the first */
            over |= group > limit;
        } else {
            over |= v > (limit - d) / base;
            v = over ? v : v * base + d;
        }
    }
    if (base == 60) {
        over |= v > (limit - group) / 60;
        v = over ? v : v * 60 + group;
    }
    if (!digits)
        return PY_FAILS; /* int('', 2) */
    if (over)
        return PY_BIG_INT;
    *out = s[0] == '-' ? (long long)(0 - v) : (long long)v;
    return PY_INT;
}

/* construct_yaml_float: `_` dropped, lower case, then .inf, .nan, base 60 groups, or
 * Python's float() (strtod: both round correctly). */
static double float_value(const char *s, size_t len)
{
    char local[64], *text = len < sizeof(local) ? local : malloc(len + 1);
    size_t n = 0, i = sign_len(s, len);
    double v = NAN, group;
    char *end, *at;

    if (!text)
        return NAN;
    for (; i < len; i++)
        if (s[i] != '_')
            text[n++] = (char)(s[i] >= 'A' && s[i] <= 'Z' ? s[i] | 0x20 : s[i]);
    text[n] = '\0';
    if (!strcmp(text, ".inf")) {
        v = INFINITY;
    } else if (strcmp(text, ".nan") && !strchr(text, ':')) {
        v = strtod(text, NULL);
    } else if (strcmp(text, ".nan")) {
        for (v = 0, at = text; (group = strtod(at, &end)), *end == ':'; at = end + 1)
            v = (v + group) * 60;
        v += group;
    }
    if (text != local)
        free(text);
    return s[0] == '-' ? -v : v;
}

struct py_value {
    enum py_type type;
    long long integer;
    double real;
    bool boolean;
    const char *text; /* PY_STR */
    size_t len;
};

/* Whether one of resolver.py's implicit resolvers (bool, float, int, null, timestamp) is
 * filed under c (yaml_implicit_resolvers: a text starting with another is a string at once;
 * '~' and "" are the null's). */
static bool resolvable(char c)
{
    switch (c) {
    case 'y': case 'Y': case 'n': case 'N': case 't': case 'T': case 'f': case 'F': case 'o': case 'O':
    case '-': case '+': case '.': case '~':
        return true;
    default:
        return is_digit(c);
    }
}

static enum py_type py_read(const struct ynode *n, struct py_value *v)
{
    const char *s = ynode_scalar(n, &v->len);
    size_t len = v->len;

    v->text = s;
    if (!n)
        return v->type = PY_NULL;
    if (!s)
        return v->type = PY_OTHER;
    if (ynode_is_string(n))
        return v->type = PY_STR;
    if (yscalar_null(s, len)) /* PyYAML's nulls are the core schema's */
        return v->type = PY_NULL;
    if (!resolvable(s[0]))
        return v->type = PY_STR;
    if (is_word(s, len, trues) || is_word(s, len, falses)) {
        v->boolean = is_word(s, len, trues);
        return v->type = PY_BOOL;
    }
    if (is_float(s, len)) {
        v->real = float_value(s, len);
        return v->type = PY_FLOAT;
    }
    if (is_int(s, len))
        return v->type = int_value(s, len, &v->integer);
    return v->type = is_timestamp(s, len) ? PY_TIMESTAMP : PY_STR;
}

enum py_type py_scalar_type(const struct ynode *n)
{
    struct py_value v;

    /* a quoted scalar, or a plain one no resolver is filed under: most of a file's strings
     * (py_read was 90 instructions a string of the vLLM test areas' commands) */
    if (ynode_is_string(n) || (ynode_is_scalar(n) && n->u.scalar.len && !resolvable(n->u.scalar.text[0])))
        return PY_STR;
    return py_read(n, &v);
}

/* The length of the Unicode white space (Rust's char::is_whitespace, which pydantic-core's
 * str.trim() uses) at s[0..len), or 0. */
static size_t space_at(const unsigned char *s, size_t len)
{
    if (len && (*s == ' ' || (*s >= '\t' && *s <= '\r')))
        return 1;
    if (len >= 2 && s[0] == 0xC2 && (s[1] == 0x85 || s[1] == 0xA0))
        return 2;
    if (len < 3)
        return 0;
    if ((s[0] == 0xE1 && s[1] == 0x9A && s[2] == 0x80) || (s[0] == 0xE3 && s[1] == 0x80 && s[2] == 0x80) ||
        (s[0] == 0xE2 && s[1] == 0x80 && (s[2] <= 0x8A || s[2] == 0xA8 || s[2] == 0xA9 || s[2] == 0xAF)) ||
        (s[0] == 0xE2 && s[1] == 0x81 && s[2] == 0x9F))
        return 3;
    return 0;
}

/* The white-space length that ends s[0..len) (a UTF-8 sequence is at most 3 bytes here). */
static size_t space_before(const unsigned char *s, size_t len)
{
    for (size_t w = 1; w <= 3 && w <= len; w++)
        if (space_at(s + len - w, w) == w)
            return w;
    return 0;
}

/* pydantic-core's str_as_int: trimmed, a sign, decimal digits with single `_` between
 * them, then at most a `.` and zeros. */
static bool str_int(const char *text, size_t len, long long *out)
{
    const unsigned char *s = (const unsigned char *)text;
    size_t i, w;
    unsigned long long v = 0, limit;
    bool neg;

    while ((w = space_at(s, len)) != 0)
        s += w, len -= w;
    while ((w = space_before(s, len)) != 0)
        len -= w;
    i = sign_len((const char *)s, len);
    neg = i && s[0] == '-';
    limit = (unsigned long long)INT64_MAX + neg;
    if (i == len || !is_digit((char)s[i]))
        return false;
    for (; i < len && (is_digit((char)s[i]) || (s[i] == '_' && i + 1 < len && is_digit((char)s[i + 1]))); i++) {
        if (s[i] == '_')
            continue;
        if (v > (limit - (s[i] - '0')) / 10)
            return false;
        v = v * 10 + (s[i] - '0');
    }
    if (i < len && s[i] == '.' && i + 1 < len)
        for (i++; i < len && s[i] == '0'; i++)
            ;
    if (i != len)
        return false;
    *out = neg ? (long long)(0 - v) : (long long)v;
    return true;
}

/* A float with no fraction within int64 (2^63 itself is not). */
static bool whole(double d, long long *out)
{
    if (!(d >= -0x1p63 && d < 0x1p63) || d != trunc(d))
        return false;
    *out = (long long)d;
    return true;
}

bool py_lax_int(const struct ynode *n, long long *out)
{
    struct py_value v;

    switch (py_read(n, &v)) {
    case PY_INT:
        *out = v.integer;
        return true;
    case PY_BOOL:
        *out = v.boolean;
        return true;
    case PY_FLOAT:
        return whole(v.real, out);
    case PY_STR:
        return str_int(v.text, v.len, out);
    default:
        return false;
    }
}

bool py_strict_int(const struct ynode *n, long long *out)
{
    struct py_value v;

    if (py_read(n, &v) != PY_INT)
        return false;
    *out = v.integer;
    return true;
}

bool py_lax_bool(const struct ynode *n, bool *out)
{
    static const struct word falsy[] = {WORD("0"), WORD("off"), WORD("f"), WORD("false"), WORD("n"), WORD("no"), {NULL, 0}},
                             truthy[] = {WORD("1"), WORD("on"), WORD("t"), WORD("true"), WORD("y"), WORD("yes"), {NULL, 0}};
    struct py_value v;
    char lower[8];

    switch (py_read(n, &v)) {
    case PY_BOOL:
        *out = v.boolean;
        return true;
    case PY_INT:
        *out = v.integer == 1;
        return v.integer == 0 || v.integer == 1;
    case PY_FLOAT:
        *out = v.real == 1;
        return v.real == 0 || v.real == 1;
    case PY_STR:
        if (v.len >= sizeof(lower))
            return false;
        for (size_t i = 0; i < v.len; i++)
            lower[i] = (char)(v.text[i] >= 'A' && v.text[i] <= 'Z' ? v.text[i] | 0x20 : v.text[i]);
        *out = is_word(lower, v.len, truthy);
        return *out || is_word(lower, v.len, falsy);
    default:
        return false;
    }
}

const char *py_type_name(enum py_type t)
{
    static const char *const names[] = {
        [PY_NULL] = "nothing",      [PY_BOOL] = "a boolean", [PY_INT] = "an integer",
        [PY_BIG_INT] = "an integer past 64 bits", [PY_FLOAT] = "a float", [PY_STR] = "a string",
        [PY_TIMESTAMP] = "a date",  [PY_FAILS] = "nothing it can read", [PY_OTHER] = "a mapping or a list",
    };

    return names[t];
}

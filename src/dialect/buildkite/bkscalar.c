/* bkscalar: a scalar as Buildkite's agent makes it a string (bkscalar.h). Transcribed from
 * gopkg.in/yaml.v3 v3.0.1 resolve.go (resolve, resolveMapList, yamlStyleFloat,
 * parseTimestamp) and Go's strconv (ParseInt with base 0, FormatFloat 'g' with the
 * shortest precision, as fmt's %v prints a float64). */
#include "bkscalar.h"

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* yaml.v3's resolveMapList: the plain scalars it reads by their spelling. */
static const struct {
    const char *text;
    enum bk_scalar kind;
    const char *as;
} spelled[] = {
    {"true", BK_SCALAR_BOOL, "true"},    {"True", BK_SCALAR_BOOL, "true"},    {"TRUE", BK_SCALAR_BOOL, "true"},
    {"false", BK_SCALAR_BOOL, "false"},  {"False", BK_SCALAR_BOOL, "false"},  {"FALSE", BK_SCALAR_BOOL, "false"},
    {"~", BK_SCALAR_NULL, NULL},         {"null", BK_SCALAR_NULL, NULL},      {"Null", BK_SCALAR_NULL, NULL},
    {"NULL", BK_SCALAR_NULL, NULL},      {".nan", BK_SCALAR_FLOAT, "NaN"},    {".NaN", BK_SCALAR_FLOAT, "NaN"},
    {".NAN", BK_SCALAR_FLOAT, "NaN"},    {".inf", BK_SCALAR_FLOAT, "+Inf"},   {".Inf", BK_SCALAR_FLOAT, "+Inf"},
    {".INF", BK_SCALAR_FLOAT, "+Inf"},   {"+.inf", BK_SCALAR_FLOAT, "+Inf"},  {"+.Inf", BK_SCALAR_FLOAT, "+Inf"},
    {"+.INF", BK_SCALAR_FLOAT, "+Inf"},  {"-.inf", BK_SCALAR_FLOAT, "-Inf"},  {"-.Inf", BK_SCALAR_FLOAT, "-Inf"},
    {"-.INF", BK_SCALAR_FLOAT, "-Inf"},
};

static bool digit(char c)
{
    return c >= '0' && c <= '9';
}

/* 1 or 2 digits at *p, at most `most`, at least `least`: the value, or -1. */
static int number12(const char **p, const char *end, int least, int most)
{
    int v = 0, n = 0;

    while (*p < end && digit(**p) && n < 2) {
        v = v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n && v >= least && v <= most ? v : -1;
}

/* parseTimestamp: four digits, `-`, then one of Go's layouts "2006-1-2T15:4:5.999999999Z07:00"
 * (`T` or `t`), "2006-1-2 15:4:5.999999999" and "2006-1-2" (time.Parse: a month and a day
 * of one or two digits, in range). */
static bool timestamp(const char *s, size_t len)
{
    static const int days[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    const char *p = s + 5, *end = s + len;
    int year, month, day;
    char sep;

    if (len < 8 || !digit(s[0]) || !digit(s[1]) || !digit(s[2]) || !digit(s[3]) || s[4] != '-')
        return false;
    year = (s[0] - '0') * 1000 + (s[1] - '0') * 100 + (s[2] - '0') * 10 + (s[3] - '0');
    if ((month = number12(&p, end, 1, 12)) < 0 || p == end || *p++ != '-' || (day = number12(&p, end, 1, 31)) < 0 ||
        day > days[month - 1] || (month == 2 && day == 29 && (year % 4 || (year % 100 == 0 && year % 400))))
        return false;
    if (p == end)
        return true;
    sep = *p++;
    if ((sep != 'T' && sep != 't' && sep != ' ') || number12(&p, end, 0, 23) < 0 || p == end || *p++ != ':' ||
        number12(&p, end, 0, 59) < 0 || p == end || *p++ != ':' || number12(&p, end, 0, 59) < 0)
        return false;
    if (p + 1 < end && (*p == '.' || *p == ',') && digit(p[1]))
        for (p++; p < end && digit(*p); p++)
            ;
    if (sep == ' ')
        return p == end;
    if (p < end && *p == 'Z')
        return p + 1 == end;
    return p < end && (*p == '+' || *p == '-') && end - p == 6 && digit(p[1]) && digit(p[2]) && p[3] == ':' &&
           digit(p[4]) && digit(p[5]);
}

/* Go's strconv.ParseInt(s, 0, 64) (`_` already dropped): a sign, then 0b, 0o, 0x or a
 * leading 0 (octal) or decimal digits. 1: *v set; 2: past int64 but a uint64 (no sign:
 * ParseUint's), *u set; 0: not an integer. */
static int parse_int(const char *s, size_t len, long long *v, uint64_t *u)
{
    const char *p = s, *end = s + len;
    bool neg = false, sign = false;
    unsigned base = 10;
    uint64_t n = 0;

    if (p < end && (*p == '+' || *p == '-'))
        neg = *p++ == '-', sign = true;
    if (p == end)
        return 0;
    if (*p == '0') {
        char x = end - p >= 3 ? (char)(p[1] | 0x20) : 0;

        base = x == 'b' ? 2 : x == 'o' ? 8 : x == 'x' ? 16 : 8;
        p += base == 8 && x != 'o' ? 1 : 2;
    }
    for (; p < end; p++) {
        unsigned d = digit(*p) ? (unsigned)(*p - '0')
                     : (*p | 0x20) >= 'a' && (*p | 0x20) <= 'f' ? (unsigned)((*p | 0x20) - 'a' + 10) : 99;

        if (d >= base || n > (UINT64_MAX - d) / base)
            return 0;
        n = n * base + d;
    }
    if (n <= (uint64_t)INT64_MAX || (neg && n == (uint64_t)INT64_MAX + 1)) {
        *v = neg ? (long long)(0 - n) : (long long)n;
        return 1;
    }
    *u = n;
    return sign ? 0 : 2;
}

/* yaml.v3's yamlStyleFloat: ^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$ */
static bool yaml_style_float(const char *s, size_t len)
{
    const char *p = s, *end = s + len, *q;

    if (p < end && (*p == '+' || *p == '-'))
        p++;
    if (p < end && *p == '.') {
        for (q = ++p; p < end && digit(*p); p++)
            ;
        if (p == q)
            return false;
    } else {
        for (q = p; p < end && digit(*p); p++)
            ;
        if (p == q)
            return false;
        if (p < end && *p == '.')
            for (p++; p < end && digit(*p); p++)
                ;
    }
    if (p < end && (*p == 'e' || *p == 'E')) {
        if (++p < end && (*p == '+' || *p == '-'))
            p++;
        for (q = p; p < end && digit(*p); p++)
            ;
        if (p == q)
            return false;
    }
    return p == end;
}

/* A decimal float of s[0, len) as Go's ParseFloat reads it (correctly rounded, as strtod):
 * one past float64's range is an error there (ErrRange: yaml.v3 keeps `1e400` a string),
 * one below it 0 or a subnormal, as strtod gives it. */
static bool parse_float(const char *s, size_t len, double *d)
{
    char buf[512], *endp;

    if (len >= sizeof(buf))
        return false;
    memcpy(buf, s, len);
    buf[len] = '\0';
    *d = strtod(buf, &endp);
    return endp == buf + len && !isinf(*d);
}

/* fmt.Sprint of a float64: strconv.FormatFloat(d, 'g', -1, 64): the shortest digits that
 * read back as d, with an exponent (two digits at least) when it is below -4 or 6 and
 * more, else as a decimal. */
static size_t go_float(double d, char buf[BK_SCALAR_BUF])
{
    char e[40], digits[20];
    size_t nd = 0, o = 0;
    int exp = 0;

    if (isnan(d) || isinf(d))
        return (size_t)snprintf(buf, BK_SCALAR_BUF, "%s", isnan(d) ? "NaN" : d > 0 ? "+Inf" : "-Inf");
    if (d == 0)
        return (size_t)snprintf(buf, BK_SCALAR_BUF, "%s", signbit(d) ? "-0" : "0");
    for (int p = 1; p <= 17; p++) {
        snprintf(e, sizeof(e), "%.*e", p - 1, d);
        if (strtod(e, NULL) == d)
            break;
    }
    for (const char *c = e; *c && *c != 'e'; c++) {
        if (digit(*c))
            digits[nd++] = *c;
    }
    exp = atoi(strchr(e, 'e') + 1);
    if (d < 0)
        buf[o++] = '-';
    if (exp < -4 || exp >= 6) {
        buf[o++] = digits[0];
        if (nd > 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + 1, nd - 1);
            o += nd - 1;
        }
        return o + (size_t)snprintf(buf + o, BK_SCALAR_BUF - o, "e%c%02d", exp < 0 ? '-' : '+', abs(exp));
    }
    /* exp in [-4, 5]: "0.000ddd", or the integer part, then the digits after the point */
    if (exp < 0) {
        buf[o++] = '0';
        buf[o++] = '.';
        for (int i = exp + 1; i < 0; i++)
            buf[o++] = '0';
        memcpy(buf + o, digits, nd);
        o += nd;
    } else {
        for (int i = 0; i <= exp; i++)
            buf[o++] = (size_t)i < nd ? digits[i] : '0';
        if ((int)nd > exp + 1) {
            buf[o++] = '.';
            memcpy(buf + o, digits + exp + 1, nd - (size_t)exp - 1);
            o += nd - (size_t)exp - 1;
        }
    }
    buf[o] = '\0';
    return o;
}

enum bk_scalar bk_scalar_text(const struct ynode *n, char buf[BK_SCALAR_BUF], const char **text, size_t *len)
{
    const char *t = ynode_scalar(n, len);
    char plain[512];
    size_t pl = 0;
    long long v;
    uint64_t u;
    double d;
    int in;

    *text = t;
    if (!t)
        return BK_SCALAR_OTHER;
    if (ynode_is_string(n))
        return BK_SCALAR_STRING;
    if (*len == 0)
        return BK_SCALAR_NULL;
    for (size_t i = 0; strchr("tTfF~nN.+-", *t) && i < sizeof(spelled) / sizeof(spelled[0]); i++) {
        if (strlen(spelled[i].text) == *len && !memcmp(spelled[i].text, t, *len)) {
            if (spelled[i].as) {
                *text = spelled[i].as;
                *len = strlen(spelled[i].as);
            }
            return spelled[i].kind;
        }
    }
    if (*t == '.') { /* not spelled out: maybe a float (".5") */
        if (!parse_float(t, *len, &d) || !yaml_style_float(t, *len))
            return BK_SCALAR_STRING;
        *len = go_float(d, buf);
        *text = buf;
        return BK_SCALAR_FLOAT;
    }
    if (!digit(*t) && *t != '+' && *t != '-')
        return BK_SCALAR_STRING;
    if (timestamp(t, *len))
        return BK_SCALAR_TIMESTAMP;
    for (size_t i = 0; i < *len; i++) {
        if (t[i] == '_')
            continue;
        if (pl == sizeof(plain))
            return BK_SCALAR_STRING; /* no number is that long */
        plain[pl++] = t[i];
    }
    if ((in = parse_int(plain, pl, &v, &u)) == 1) {
        *len = (size_t)snprintf(buf, BK_SCALAR_BUF, "%lld", v);
        *text = buf;
        return BK_SCALAR_INT;
    }
    if (in == 2) {
        *len = (size_t)snprintf(buf, BK_SCALAR_BUF, "%llu", (unsigned long long)u);
        *text = buf;
        return BK_SCALAR_UINT;
    }
    if (yaml_style_float(plain, pl) && parse_float(plain, pl, &d)) {
        *len = go_float(d, buf);
        *text = buf;
        return BK_SCALAR_FLOAT;
    }
    return BK_SCALAR_STRING;
}

/* t[0, len) as `-`, then decimal digits, short enough to be a count. */
static bool decimal(const char *t, size_t len, long long *out)
{
    size_t i = len && t[0] == '-' ? 1 : 0, first = i;
    long long v = 0;

    for (; i < len && digit(t[i]) && v < 1000000000000LL; i++)
        v = v * 10 + (t[i] - '0');
    if (i != len || i == first)
        return false; /* "2.5", "1e+06", "+Inf", or too long to be a count */
    *out = t[0] == '-' ? -v : v;
    return true;
}

bool bk_scalar_int(const struct ynode *n, long long *out)
{
    char buf[BK_SCALAR_BUF];
    size_t len = 0;
    const char *t = ynode_scalar(n, &len);
    enum bk_scalar kind;

    /* most counts are written plainly (`4`): yaml.v3's decimal int, read without the
     * agent's text (a leading 0 is octal: not here) */
    if (t && !ynode_is_string(n) && len && *t != '0' && digit(*t) && decimal(t, len, out))
        return true;
    kind = bk_scalar_text(n, buf, &t, &len);
    return (kind == BK_SCALAR_INT || kind == BK_SCALAR_FLOAT) && decimal(t, len, out);
}

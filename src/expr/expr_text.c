/* Text and numbers as JavaScript sees them: @actions/expressions is written in
 * TypeScript, so its string lengths, white space, case mappings and number formats are
 * JavaScript's, and fanout reproduces them over UTF-8. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/text.h"

#include "expr_internal.h"

/* ---- UTF-8 ---- */

uint32_t expr_utf8_next(const char *s, size_t len, size_t *i)
{
    const unsigned char *p = (const unsigned char *)s + *i;
    size_t left = len - *i;
    uint32_t cp, min;
    size_t n;

    if (p[0] < 0x80) {
        (*i)++;
        return p[0];
    }
    if (p[0] >= 0xC2 && p[0] <= 0xDF) {
        n = 2, cp = p[0] & 0x1F, min = 0x80;
    } else if (p[0] >= 0xE0 && p[0] <= 0xEF) {
        n = 3, cp = p[0] & 0x0F, min = 0x800;
    } else if (p[0] >= 0xF0 && p[0] <= 0xF4) {
        n = 4, cp = p[0] & 0x07, min = 0x10000;
    } else {
        goto bad;
    }
    if (left < n)
        goto bad;
    for (size_t k = 1; k < n; k++) {
        if ((p[k] & 0xC0) != 0x80)
            goto bad;
        cp = cp << 6 | (p[k] & 0x3F);
    }
    if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF))
        goto bad;
    *i += n;
    return cp;
bad:
    (*i)++;
    return 0xDC00 | p[0];
}

bool expr_utf8_valid(const char *s, size_t len, size_t *bad)
{
    size_t i = 0;

    while (i < len) {
        size_t at = i;
        uint32_t cp;
        uint64_t w;

        /* ASCII, the common case, without decoding: eight bytes at a time */
        if (len - i >= 8 && (memcpy(&w, s + i, 8), !(w & 0x8080808080808080u))) {
            i += 8;
            continue;
        }
        if ((unsigned char)s[i] < 0x80) {
            i++;
            continue;
        }
        cp = expr_utf8_next(s, len, &i);

        /* A decoded 0xDCxx is a bad byte: real surrogates are refused above. */
        if (cp >= 0xDC00 && cp <= 0xDFFF) {
            *bad = at;
            return false;
        }
    }
    return true;
}

size_t expr_utf16_len(const char *s, size_t len)
{
    size_t n = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];

        if ((c & 0xC0) != 0x80)
            n++;
        if (c >= 0xF0)
            n++;
    }
    return n;
}

bool expr_is_js_space(uint32_t cp)
{
    if (cp < 0x80)
        return cp == ' ' || (cp >= '\t' && cp <= '\r');
    return cp == 0xA0 || cp == 0x1680 || (cp >= 0x2000 && cp <= 0x200A) || cp == 0x2028 ||
           cp == 0x2029 || cp == 0x202F || cp == 0x205F || cp == 0x3000 || cp == 0xFEFF;
}

void expr_js_trim(const char *s, size_t *start, size_t *end)
{
    while (*start < *end) {
        size_t i = *start;

        if (!expr_is_js_space(expr_utf8_next(s, *end, &i)))
            break;
        *start = i;
    }
    while (*end > *start) {
        size_t at = *end - 1, i;

        while (at > *start && ((unsigned char)s[at] & 0xC0) == 0x80)
            at--;
        i = at;
        if (!expr_is_js_space(expr_utf8_next(s, *end, &i)) || i != *end)
            break;
        *end = at;
    }
}

/* ---- case ---- */

uint32_t expr_fold(uint32_t cp)
{
    const struct expr_case_range *r = expr_upper_ranges;
    size_t lo = 0, hi = expr_upper_ranges_len;

    if (cp < 0x80)
        return cp >= 'a' && cp <= 'z' ? cp - 32 : cp;
    /* The last run starting at or before cp (runs do not overlap). */
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;

        if (r[mid].first <= cp)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0)
        return cp;
    r += lo - 1;
    if (cp <= r->last && (cp - r->first) % r->stride == 0)
        return (uint32_t)((int32_t)cp + r->delta);
    return cp;
}

/* Writes cp as UTF-8 (a bad byte, 0xDC00 + byte, as that byte); the length. */
static size_t utf8_put(uint32_t cp, char *out)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp >= 0xDC80 && cp <= 0xDCFF) {
        out[0] = (char)(cp & 0xFF);
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xC0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3F));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xE0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3F));
        out[2] = (char)(0x80 | (cp & 0x3F));
        return 3;
    }
    out[0] = (char)(0xF0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3F));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3F));
    out[3] = (char)(0x80 | (cp & 0x3F));
    return 4;
}

char *expr_upper(const char *s, size_t len, size_t *out_len)
{
    /* A mapping may grow a character by one byte (U+0250's upper case is 3 bytes). */
    char *out = len < SIZE_MAX / 2 ? malloc(len * 2 + 1) : NULL;
    size_t i = 0, n = 0;

    if (!out)
        return NULL;
    while (i < len)
        n += utf8_put(expr_fold(expr_utf8_next(s, len, &i)), out + n);
    out[n] = '\0';
    *out_len = n;
    return out;
}

/* The order of JavaScript's `<` on strings: UTF-16 code units. */
static uint32_t utf16_key(uint32_t cp)
{
    if (cp < 0x10000)
        return cp << 10;
    return (0xD800 + ((cp - 0x10000) >> 10)) << 10 | (cp & 0x3FF);
}

int expr_fold_compare(const char *a, size_t alen, const char *b, size_t blen)
{
    size_t i = 0, j;

    /* ASCII in place, up to the first other byte: its folding is ASCII, in the same
     * order (decoding and folding each character was most of a matrix value's ==) */
    for (; i < alen && i < blen && ((unsigned char)a[i] | (unsigned char)b[i]) < 0x80; i++) {
        unsigned char x = (unsigned char)a[i], y = (unsigned char)b[i];

        x = x >= 'a' && x <= 'z' ? x - 32 : x;
        y = y >= 'a' && y <= 'z' ? y - 32 : y;
        if (x != y)
            return x < y ? -1 : 1;
    }
    j = i;
    while (i < alen && j < blen) {
        uint32_t x = utf16_key(expr_fold(expr_utf8_next(a, alen, &i)));
        uint32_t y = utf16_key(expr_fold(expr_utf8_next(b, blen, &j)));

        if (x != y)
            return x < y ? -1 : 1;
    }
    if (i < alen)
        return 1;
    return j < blen ? -1 : 0;
}

int expr_find(const char *hay, size_t hlen, const char *needle, size_t nlen)
{
    size_t small[64], *fail, k = 0;
    int found = 0;

    if (nlen == 0)
        return 1;
    if (nlen > hlen)
        return 0;
    /* Knuth-Morris-Pratt: a naive search is quadratic, and both texts may be long. */
    fail = nlen <= 64 ? small : malloc(nlen * sizeof(*fail));
    if (!fail)
        return -1;
    fail[0] = 0;
    for (size_t i = 1; i < nlen; i++) {
        while (k > 0 && needle[i] != needle[k])
            k = fail[k - 1];
        if (needle[i] == needle[k])
            k++;
        fail[i] = k;
    }
    k = 0;
    for (size_t i = 0; i < hlen; i++) {
        while (k > 0 && hay[i] != needle[k])
            k = fail[k - 1];
        if (hay[i] == needle[k])
            k++;
        if (k == nlen) {
            found = 1;
            break;
        }
    }
    if (fail != small)
        free(fail);
    return found;
}

/* ---- numbers to text ---- */

/* Unsigned integer below 2^53, in decimal. */
static size_t put_integer(uint64_t u, bool neg, char *buf)
{
    size_t k = 0;

    if (neg)
        buf[k++] = '-';
    return k + text_decimal(buf + k, u);
}

/* The number 0.DIGITS x 10^e (k digits, no trailing zeros) written out: in full when
 * `fixed`, else as d.ddd and the exponent e - 1, as JavaScript (e+7) or .NET (E+07)
 * writes it. */
static size_t layout(const char *digits, size_t k, long e, bool neg, bool fixed, bool dotnet,
                     char buf[EXPR_NUMBUF])
{
    size_t n = 0;

    if (neg)
        buf[n++] = '-';
    if (fixed && (long)k <= e) {
        memcpy(buf + n, digits, k);
        n += k;
        for (long z = 0; z < e - (long)k; z++)
            buf[n++] = '0';
    } else if (fixed && 0 < e) {
        memcpy(buf + n, digits, (size_t)e);
        n += (size_t)e;
        buf[n++] = '.';
        memcpy(buf + n, digits + e, k - (size_t)e);
        n += k - (size_t)e;
    } else if (fixed) {
        buf[n++] = '0';
        buf[n++] = '.';
        for (long z = 0; z < -e; z++)
            buf[n++] = '0';
        memcpy(buf + n, digits, k);
        n += k;
    } else {
        buf[n++] = digits[0];
        if (k > 1) {
            buf[n++] = '.';
            memcpy(buf + n, digits + 1, k - 1);
            n += k - 1;
        }
        n += (size_t)(dotnet ? snprintf(buf + n, EXPR_NUMBUF - n, "E%c%02ld", e - 1 < 0 ? '-' : '+', labs(e - 1))
                             : snprintf(buf + n, EXPR_NUMBUF - n, "e%c%ld", e - 1 < 0 ? '-' : '+', labs(e - 1)));
    }
    buf[n] = '\0';
    return n;
}

size_t expr_js_number(double d, char buf[EXPR_NUMBUF])
{
    char tmp[EXPR_NUMBUF], digits[20];
    size_t k = 0;
    bool neg = d < 0;
    long e;
    int p;

    if (isnan(d))
        return (size_t)snprintf(buf, EXPR_NUMBUF, "NaN");
    if (isinf(d))
        return (size_t)snprintf(buf, EXPR_NUMBUF, neg ? "-Infinity" : "Infinity");
    if (d == 0)
        return (size_t)snprintf(buf, EXPR_NUMBUF, "0");
    d = fabs(d);
    if (d < 9007199254740992.0 && d == floor(d))
        return put_integer((uint64_t)d, neg, buf);
    /* The shortest digits that read back as d: when 15 do, the correctly rounded 15 less
     * their trailing zeros are the shortest (a shorter decimal that reads back lies on
     * the 15-digit grid within half a step), else 16, else 17. A subnormal has fewer
     * significant bits, so every length is tried. */
    for (p = d < 2.2250738585072014e-308 ? 1 : 15; p < 17; p++) {
        snprintf(tmp, sizeof(tmp), "%.*e", p - 1, d);
        if (strtod(tmp, NULL) == d)
            break;
    }
    if (p == 17)
        snprintf(tmp, sizeof(tmp), "%.16e", d);
    for (const char *s = tmp; *s != 'e'; s++) {
        if (*s != '.')
            digits[k++] = *s;
    }
    e = strtol(strchr(tmp, 'e') + 1, NULL, 10) + 1; /* digits are 0.ddd x 10^e */
    while (k > 1 && digits[k - 1] == '0')
        k--;
    return layout(digits, k, e, neg, -6 < e && e <= 21, false, buf);
}

size_t expr_g15_number(double d, char buf[EXPR_NUMBUF])
{
    char exact[800], digits[16];
    size_t k = 15;
    long e;

    if (isnan(d))
        return (size_t)snprintf(buf, EXPR_NUMBUF, "NaN");
    if (isinf(d))
        return (size_t)snprintf(buf, EXPR_NUMBUF, d < 0 ? "-Infinity" : "Infinity");
    if (d == 0)
        return (size_t)snprintf(buf, EXPR_NUMBUF, signbit(d) ? "-0" : "0");
    /* An integer of at most 15 digits is its digits: no rounding to see (and the exact
     * digits below cost a 767-digit printf, most of a matrix's names) */
    if (fabs(d) < 1e15 && d == trunc(d))
        return put_integer((uint64_t)fabs(d), d < 0, buf);
    /* Every digit of the double (767 at most), so that the rounding at the 15th sees the
     * exact value: .NET rounds half away from zero, printf half to even. */
    snprintf(exact, sizeof(exact), "%.767e", fabs(d));
    digits[0] = exact[0];
    memcpy(digits + 1, exact + 2, 14);
    e = strtol(strchr(exact, 'e') + 1, NULL, 10) + 1;
    if (exact[16] >= '5') {
        size_t i = 15;

        while (i > 0 && digits[i - 1] == '9')
            digits[--i] = '0';
        if (i == 0) { /* 999... rounds to 1000... */
            digits[0] = '1';
            e++;
        } else {
            digits[i - 1]++;
        }
    }
    while (k > 1 && digits[k - 1] == '0')
        k--;
    /* scientific when the exponent is below -5 or past 14 (d.ddE+XX, two digits at least) */
    return layout(digits, k, e, d < 0, -4 < e && e <= 15, true, buf);
}

size_t expr_coerce_number(double d, char buf[EXPR_NUMBUF])
{
    char fixed[64];
    double t;

    /* (+d.toFixed(15)).toString(): toFixed leaves numbers from 1e21 on (and NaN,
     * Infinity) to toString, and an integer keeps its value. */
    if (isnan(d) || isinf(d) || fabs(d) >= 1e21 || d == floor(d))
        return expr_js_number(d, buf);
    /* toFixed rounds a tie away from zero, printf to even. A tie at the 16th decimal
     * means |d| = odd / 2^16 exactly; then print 16 decimals (exact) and round up. */
    t = ldexp(fabs(d), 16);
    if (t == floor(t) && fmod(t, 2.0) == 1.0) {
        size_t n = (size_t)snprintf(fixed, sizeof(fixed), "%.16f", d) - 1;
        size_t i = n;

        fixed[n] = '\0';
        while (i-- > 0) {
            if (fixed[i] == '.')
                continue;
            if (fixed[i] == '-' || fixed[i] != '9') {
                if (fixed[i] == '-') { /* carry out of the first digit: -9.9 -> -10.0 */
                    memmove(fixed + i + 2, fixed + i + 1, n - i);
                    fixed[i + 1] = '1';
                } else {
                    fixed[i]++;
                }
                break;
            }
            fixed[i] = '0';
            if (i == 0) {
                memmove(fixed + 1, fixed, n + 1);
                fixed[0] = '1';
            }
        }
    } else {
        snprintf(fixed, sizeof(fixed), "%.15f", d);
    }
    return expr_js_number(strtod(fixed, NULL), buf);
}

/* ---- text to numbers ---- */

/* The double nearest sign * 0.<digits> * 10^exp10, the digits given as an integer part
 * and a fraction part. strtod does the rounding; it is handed at most 780 significant
 * digits plus a final 1 standing for any nonzero digits dropped, which rounds the same
 * (a double's exact decimal expansion needs at most 767), so no allocation is needed. */
static double decimal_value(bool neg, const char *ip, size_t ilen, const char *fp, size_t flen,
                            long exp10)
{
    char buf[832];
    size_t n = 0, k = 0, total = ilen + flen, skipped = 0;
    bool dropped = false;

    if (neg)
        buf[n++] = '-';
    buf[n++] = '0';
    buf[n++] = '.';
    for (size_t i = 0; i < total; i++) {
        char c = i < ilen ? ip[i] : fp[i - ilen];

        if (k == 0 && c == '0') {
            skipped++;
            continue;
        }
        if (k < 780) {
            buf[n++] = c;
            k++;
        } else if (c != '0') {
            dropped = true;
        }
    }
    if (k == 0)
        return neg ? -0.0 : 0.0;
    if (dropped)
        buf[n++] = '1';
    snprintf(buf + n, sizeof(buf) - n, "e%ld", exp10 + (long)ilen - (long)skipped);
    return strtod(buf, NULL);
}

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* An exponent's digits as a long, saturated far beyond any double's range. */
static long exponent_value(const char *s, size_t len, bool neg)
{
    long e = 0;

    for (size_t i = 0; i < len; i++) {
        if (e < 1000000)
            e = e * 10 + (s[i] - '0');
    }
    return neg ? -e : e;
}

/* Digits of a radix 2, 8 or 16 integer, rounded to the nearest double (ties to even):
 * 64 bits are kept, the rest only shift the value and tell whether it was exact. */
static double radix_value(const char *s, size_t len, unsigned bits)
{
    uint64_t m = 0;
    long shift = 0;
    bool sticky = false;
    int width = 0;

    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i];
        unsigned v = c <= '9' ? c - '0' : (c | 0x20) - 'a' + 10;

        for (int b = (int)bits - 1; b >= 0; b--) {
            unsigned bit = v >> b & 1;

            if (m >> 63) {
                shift++;
                sticky |= bit;
            } else {
                m = m << 1 | bit;
            }
        }
    }
    for (uint64_t x = m; x; x >>= 1)
        width++;
    if (width > 53) {
        int extra = width - 53;
        uint64_t rem = m & ((UINT64_C(1) << extra) - 1), half = UINT64_C(1) << (extra - 1);

        m >>= extra;
        shift += extra;
        if (rem > half || (rem == half && (sticky || (m & 1))))
            m++;
    }
    if (shift > 2000)
        return INFINITY;
    return ldexp((double)m, (int)shift);
}

static bool all_radix(const char *s, size_t len, unsigned radix)
{
    if (len == 0)
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned c = (unsigned char)s[i], v;

        if (c >= '0' && c <= '9')
            v = c - '0';
        else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')
            v = (c | 0x20) - 'a' + 10;
        else
            return false;
        if (v >= radix)
            return false;
    }
    return true;
}

/* StrUnsignedDecimalLiteral after an optional sign:
 * digits [. digits?] [exp] | . digits [exp] | Infinity; NaN when it is not one. */
static double unsigned_decimal(const char *s, size_t len, bool neg)
{
    size_t i = 0, ilen, fstart, flen = 0;
    long e = 0;

    if (len == 8 && memcmp(s, "Infinity", 8) == 0)
        return neg ? -INFINITY : INFINITY;
    while (i < len && is_digit(s[i]))
        i++;
    ilen = i;
    fstart = i;
    if (i < len && s[i] == '.') {
        fstart = ++i;
        while (i < len && is_digit(s[i]))
            i++;
        flen = i - fstart;
    }
    if (ilen + flen == 0)
        return NAN;
    if (i < len && (s[i] == 'e' || s[i] == 'E')) {
        bool eneg = false;
        size_t dstart;

        i++;
        if (i < len && (s[i] == '+' || s[i] == '-'))
            eneg = s[i++] == '-';
        dstart = i;
        while (i < len && is_digit(s[i]))
            i++;
        if (i == dstart)
            return NAN;
        e = exponent_value(s + dstart, i - dstart, eneg);
    }
    if (i != len)
        return NAN;
    return decimal_value(neg, s, ilen, s + fstart, flen, e);
}

double expr_js_to_number(const char *s, size_t len)
{
    size_t start = 0, end = len;

    expr_js_trim(s, &start, &end);
    s += start;
    len = end - start;
    if (len == 0)
        return 0;
    /* 0x / 0o / 0b take no sign. */
    if (len > 2 && s[0] == '0') {
        char r = (char)(s[1] | 0x20);
        unsigned radix = r == 'x' ? 16 : r == 'o' ? 8 : r == 'b' ? 2 : 0;

        if (radix)
            return all_radix(s + 2, len - 2, radix)
                       ? radix_value(s + 2, len - 2, radix == 16 ? 4 : radix == 8 ? 3 : 1)
                       : NAN;
    }
    if (s[0] == '+' || s[0] == '-')
        return unsigned_decimal(s + 1, len - 1, s[0] == '-');
    return unsigned_decimal(s, len, false);
}

double expr_json_number(const char *s, size_t len)
{
    bool neg = s[0] == '-';

    return unsigned_decimal(s + neg, len - neg, neg);
}

double expr_yaml_number(const char *s, size_t len)
{
    bool neg = len > 0 && s[0] == '-';
    size_t sign = len > 0 && (s[0] == '-' || s[0] == '+');

    /* GitHub's YamlObjectReader.MatchInteger reads these as Int32 (Int32.TryParse with
     * AllowHexSpecifier, Convert.ToInt32(s, 8)): 32 bits in two's complement, 0xFFFFFFFF
     * is -1. (More bits are an error there; fanout keeps their value.) */
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'o')) {
        double v = radix_value(s + 2, len - 2, s[1] == 'x' ? 4 : 3);

        return v >= 2147483648.0 && v <= 4294967295.0 ? v - 4294967296.0 : v;
    }
    if (len - sign == 4 && s[sign] == '.' && !is_digit(s[sign + 1])) { /* .inf, .nan */
        if (s[sign + 1] == 'n' || s[sign + 1] == 'N')
            return NAN;
        return neg ? -INFINITY : INFINITY;
    }
    return unsigned_decimal(s + sign, len - sign, neg);
}

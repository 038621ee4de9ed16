#include "fanout/yscalar.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

/* The number and date forms are scanned by hand: they are a handful of character runs,
 * and a regex engine cost a JIT compile and its pages in every run (a tenth of the
 * time of a small render). test_yscalar.c checks these scanners against the regular
 * expressions of the YAML 1.1 and 1.2 specifications on every string of a dense set. */

/* A cursor over s[0..len). */
struct scan {
    const char *p, *end;
};

static bool is_digit(char c) { return c >= '0' && c <= '9'; }
static bool is_digit_(char c) { return is_digit(c) || c == '_'; }
static bool is_bin_(char c) { return c == '0' || c == '1' || c == '_'; }
static bool is_oct(char c) { return c >= '0' && c <= '7'; }
static bool is_oct_(char c) { return is_oct(c) || c == '_'; }
static bool is_hex(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
static bool is_hex_(char c) { return is_hex(c) || c == '_'; }

static bool done(const struct scan *s)
{
    return s->p == s->end;
}

/* Takes one character if it is `c`. */
static bool take(struct scan *s, char c)
{
    if (s->p < s->end && *s->p == c) {
        s->p++;
        return true;
    }
    return false;
}

/* Takes the longest run of characters `ok` accepts; how many. */
static size_t run(struct scan *s, bool (*ok)(char))
{
    const char *start = s->p;

    while (s->p < s->end && ok(*s->p))
        s->p++;
    return (size_t)(s->p - start);
}

/* Takes `word` if the text goes on with it. */
static bool take_word(struct scan *s, const char *word)
{
    size_t n = strlen(word);

    if ((size_t)(s->end - s->p) >= n && memcmp(s->p, word, n) == 0) {
        s->p += n;
        return true;
    }
    return false;
}

static bool take_sign(struct scan *s)
{
    return take(s, '-') || take(s, '+');
}

static bool is_exactly(const char *s, size_t len, const char *const *words, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (strlen(words[i]) == len && memcmp(words[i], s, len) == 0)
            return true;
    }
    return false;
}

#define IS_ONE_OF(s, len, ...)                                                            \
    is_exactly((s), (len), (const char *const[]){__VA_ARGS__},                            \
               sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* `.inf` in its three spellings (the dot taken already). */
static bool take_inf(struct scan *s)
{
    return take_word(s, "inf") || take_word(s, "Inf") || take_word(s, "INF");
}

static bool take_nan(struct scan *s)
{
    return take_word(s, "nan") || take_word(s, "NaN") || take_word(s, "NAN");
}

/* [eE][-+]?[0-9]+, all of it or nothing. */
static bool take_exponent(struct scan *s)
{
    struct scan at = *s;

    if (!take(&at, 'e') && !take(&at, 'E'))
        return false;
    take_sign(&at);
    if (!run(&at, is_digit))
        return false;
    *s = at;
    return true;
}

/* YAML 1.2 core: [-+]?[0-9]+ | 0o[0-7]+ | 0x[0-9a-fA-F]+ */
static bool core_int(const char *t, size_t len)
{
    struct scan s = {t, t + len}, prefixed = s;

    if ((take_word(&prefixed, "0o") && run(&prefixed, is_oct) && done(&prefixed)) ||
        (prefixed = s, take_word(&prefixed, "0x") && run(&prefixed, is_hex) && done(&prefixed)))
        return true;
    take_sign(&s);
    return run(&s, is_digit) && done(&s);
}

/* YAML 1.2 core: [-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?
 *              | [-+]?\.(inf|Inf|INF) | \.(nan|NaN|NAN) */
static bool core_float(const char *t, size_t len)
{
    struct scan s = {t, t + len}, nan = s;

    if (take(&nan, '.') && take_nan(&nan) && done(&nan))
        return true;
    take_sign(&s);
    if (take(&s, '.')) {
        struct scan inf = s;

        if (take_inf(&inf) && done(&inf))
            return true;
        if (!run(&s, is_digit))
            return false;
    } else {
        if (!run(&s, is_digit))
            return false;
        if (take(&s, '.'))
            run(&s, is_digit);
    }
    take_exponent(&s);
    return done(&s);
}

enum yscalar_type yscalar_type(const char *s, size_t len)
{
    if (len == 0)
        return YS_NULL;
    /* by the first character: most scalars are strings, told by it alone (three
     * strchr calls were a hundred instructions a scalar in the template schema's check) */
    switch (s[0]) {
    case '~':
    case 'n':
    case 'N':
        return yscalar_null(s, len) ? YS_NULL : YS_STRING;
    case 't':
    case 'T':
    case 'f':
    case 'F':
        return (len == 4 || len == 5) && IS_ONE_OF(s, len, "true", "True", "TRUE", "false", "False", "FALSE")
                   ? YS_BOOL
                   : YS_STRING;
    case '-':
    case '+':
    case '.':
    case '0':
    case '1':
    case '2':
    case '3':
    case '4':
    case '5':
    case '6':
    case '7':
    case '8':
    case '9':
        return core_int(s, len) ? YS_INT : core_float(s, len) ? YS_FLOAT : YS_STRING;
    default:
        return YS_STRING;
    }
}

size_t yscalar_float_canonical(const char *t, size_t len, char *out)
{
    struct scan s = {t, t + len};
    const char *digits;
    size_t n = 0, k;

    if (take(&s, '-'))
        out[n++] = '-';
    else
        take(&s, '+');
    digits = s.p;
    if ((k = run(&s, is_digit)) == 0)
        out[n++] = '0';
    memcpy(out + n, digits, k);
    n += k;
    out[n++] = '.';
    if (take(&s, '.') && (digits = s.p, k = run(&s, is_digit)) > 0) {
        memcpy(out + n, digits, k);
        n += k;
    } else {
        out[n++] = '0';
    }
    if (take(&s, 'e') || take(&s, 'E')) {
        out[n++] = 'e';
        out[n++] = take(&s, '-') ? '-' : (take(&s, '+'), '+');
        digits = s.p;
        k = run(&s, is_digit);
        memcpy(out + n, digits, k);
        n += k;
    }
    out[n] = '\0';
    return n;
}

/* The words a YAML 1.1 or 1.2 reader takes for a null or a boolean. */
static bool is_keyword(const char *s, size_t len)
{
    return len <= 5 && strchr("nNyYtTfFoO", s[0]) &&
           IS_ONE_OF(s, len, "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N",
                     "no", "No", "NO", "true", "True", "TRUE", "false", "False", "FALSE", "on",
                     "On", "ON", "off", "Off", "OFF");
}

/* YAML 1.1 timestamp: [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}([Tt \t].*)? where . is not \n. */
static bool timestamp(const char *t, size_t len)
{
    struct scan s = {t, t + len};
    size_t month, day;

    if (run(&s, is_digit) != 4 || !take(&s, '-'))
        return false;
    month = run(&s, is_digit);
    if (month < 1 || month > 2 || !take(&s, '-'))
        return false;
    day = run(&s, is_digit);
    if (day < 1 || day > 2)
        return false;
    if (done(&s))
        return true;
    if (!strchr("Tt \t", *s.p) || *s.p == '\0')
        return false;
    return !memchr(s.p, '\n', (size_t)(s.end - s.p));
}

/* (:[0-5]?[0-9])+ (\.[0-9_]*)? to the end: the rest of a YAML 1.1 sexagesimal number. */
static bool sexagesimal_rest(struct scan *s)
{
    while (take(s, ':')) {
        if (s->end - s->p >= 2 && s->p[0] >= '0' && s->p[0] <= '5' && is_digit(s->p[1]))
            s->p += 2;
        else if (s->p < s->end && is_digit(s->p[0]))
            s->p++;
        else
            return false;
    }
    if (take(s, '.'))
        run(s, is_digit_);
    return done(s);
}

/* YAML 1.1 numbers: [-+]? then decimal [0-9][0-9_]* (0123 is octal to it), 0b binary,
 * 0x hex, sexagesimal 1:20:30(.5), floats with or without an integer part (even "."),
 * exponents, .inf; unsigned 0o octal and .nan. */
static bool number_1_1(const char *t, size_t len)
{
    struct scan s = {t, t + len}, at = s;

    if (take_word(&at, "0o"))
        return run(&at, is_oct_) && done(&at);
    if ((at = s, take(&at, '.')) && take_nan(&at) && done(&at))
        return true;
    take_sign(&s);
    if ((at = s, take_word(&at, "0b")))
        return run(&at, is_bin_) && done(&at);
    if ((at = s, take_word(&at, "0x")))
        return run(&at, is_hex_) && done(&at);
    if (take(&s, '.')) {
        at = s;
        if (take_inf(&at) && done(&at))
            return true;
        run(&s, is_digit_);
        take_exponent(&s);
        return done(&s);
    }
    if (done(&s) || !is_digit(*s.p))
        return false;
    run(&s, is_digit_);
    if (done(&s))
        return true;
    if (*s.p == ':')
        return sexagesimal_rest(&s);
    if (take(&s, '.')) {
        run(&s, is_digit_);
        take_exponent(&s);
        return done(&s);
    }
    return take_exponent(&s) && done(&s);
}

bool yscalar_misread(const char *s, size_t len)
{
    if (len == 0)
        return true;
    /* A text that starts with a letter can only be one of the words; numbers, dates and
     * the rest start with a digit, a sign, a dot or one of ~ = <. */
    if ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))
        return is_keyword(s, len);
    if (len <= 2 && IS_ONE_OF(s, len, "~", "=", "<<"))
        return true;
    if (!strchr("-+0123456789.", s[0]))
        return false;
    return number_1_1(s, len) || timestamp(s, len);
}

/* Characters that never appear raw in our plain or block output. */
static bool is_special(const unsigned char *p, size_t left)
{
    if (p[0] < 0x20 || p[0] == 0x7F)
        return p[0] != '\t' && p[0] != '\n';
    if (p[0] == 0xC2 && left > 1 && p[1] == 0x85) /* NEL */
        return true;
    if (p[0] == 0xE2 && left > 2 && p[1] == 0x80 && (p[2] == 0xA8 || p[2] == 0xA9)) /* LS, PS */
        return true;
    if (p[0] == 0xEF && left > 2 && p[1] == 0xBB && p[2] == 0xBF) /* BOM */
        return true;
    return false;
}

/* A mask with the high bit of each byte of w equal to c: the lowest bit set is the
 * first's (a borrow only reaches the bytes above a zero of w ^ c). */
static uint64_t bytes_equal(uint64_t w, unsigned char c)
{
    const uint64_t low = 0x0101010101010101ull, x = w ^ (low * c);

    return (x - low) & ~x & 0x8080808080808080ull;
}

/* The offset in its word of the first byte a mask of the above marks; on a big-endian
 * machine 0, so that the scan takes the word's first byte alone. */
static size_t first_marked(uint64_t mask)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    return (size_t)__builtin_ctzll(mask) / 8;
#else
    (void)mask;
    return 0;
#endif
}


/* Bytes that stand for themselves anywhere in a plain scalar: printable ASCII but ':' and
 * '#'. A table: the byte loop was most of the emitter's cost of choosing a style. */
static const unsigned char plain_byte[256] = {
#define ROW16(a) a, a, a, a, a, a, a, a, a, a, a, a, a, a, a, a
    ROW16(0), ROW16(0),
    1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, /* 0x20: '#' */
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, /* 0x30: ':' */
    ROW16(1), ROW16(1), ROW16(1),
    1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, /* 0x70: DEL */
#undef ROW16
};

static bool plain_ok(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;

    if (len == 0 || s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
        return false;
    switch (s[0]) {
    case '?':
    case ':':
    case '-':
        /* Indicators only start a plain scalar when a non-space follows. */
        if (len == 1 || s[1] == ' ')
            return false;
        break;
    case ',': case '[': case ']': case '{': case '}': case '#': case '&': case '*': case '!':
    case '|': case '>': case '\'': case '"': case '%': case '@': case '`':
        return false;
    default:
        break;
    }
    if (len >= 3 && (!memcmp(s, "---", 3) || !memcmp(s, "...", 3)))
        return false;
    for (size_t i = 0; i < len; i++) {
        unsigned char c;

        /* a word at a time to the next byte that does not stand for itself (a byte at a
         * time was 4 instructions a byte of a long command) */
        for (uint64_t w, bad; i + 8 <= len; i += 8) {
            memcpy(&w, p + i, 8);
            if ((bad = yscalar_unprintable_bytes(w) | bytes_equal(w, ':') | bytes_equal(w, '#')) != 0) {
                i += first_marked(bad);
                break;
            }
        }
        if (i == len)
            break;
        c = p[i];
        if (plain_byte[c])
            continue; /* the last bytes, fewer than a word */
        if (c == ':' && i + 1 < len && s[i + 1] == ' ')
            return false;
        if (c == '#' && i > 0 && s[i - 1] == ' ')
            return false;
        if (c < 0x20 || c == 0x7F || (c >= 0x80 && is_special(p + i, len - i)))
            return false; /* tabs and line breaks too */
    }
    return !yscalar_misread(s, len);
}

/* Text with a line break, in one pass a word at a time: a word of printable ASCII is
 * skipped whole, else the scan goes to its first other byte (a line break, a tab, UTF-8).
 * A memchr and a printable check for every line cost as much again (220 instructions a
 * line of a workflow's `run:` text). Not inlined: its loop's registers were saved on
 * every call of yscalar_style, most of them for single-line text. */
__attribute__((noinline)) bool yscalar_literal_lines(const char *s, size_t len, yscalar_line_fn *line, void *user)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, start = 0; /* the line's first byte */
    bool text = false, empty = true, blank = true; /* the line so far: no byte; only blanks */

    while (i < len) {
        unsigned char c;

        if (!blank) {
            for (; i + 8 <= len; i += 8) {
                uint64_t w, bad;

                memcpy(&w, p + i, 8);
                if ((bad = yscalar_unprintable_bytes(w)) != 0) {
                    i += first_marked(bad);
                    break;
                }
            }
            if (i == len)
                break;
        }
        c = p[i];
        if (c == '\n') {
            /* A line of only spaces or tabs is read back as an empty line. */
            if (blank && !empty)
                return false;
            if (line)
                line(user, s + start, i - start, true);
            start = i + 1;
            empty = blank = true;
        } else {
            empty = false;
            text = true;
            if (c != ' ' && c != '\t') {
                blank = false;
                if ((c < 0x20 || c >= 0x7F) && is_special(p + i, len - i))
                    return false;
            }
        }
        i++;
    }
    /* Text made only of line breaks cannot be told apart from an empty block. */
    if ((blank && !empty) || !text)
        return false;
    if (line && start < len)
        line(user, s + start, len - start, false);
    return true;
}

enum yscalar_style yscalar_style(const char *s, size_t len, bool is_key)
{
    /* a line break first: most scalars have none */
    if (!is_key && len && memchr(s, '\n', len) && yscalar_literal_lines(s, len, NULL, NULL))
        return YS_LITERAL;
    return plain_ok(s, len) ? YS_PLAIN : YS_DOUBLE_QUOTED;
}

bool yscalar_has_yaml11_break(const char *s, size_t n)
{
    const char *end = s + n;

    for (const char *q = s; (q = memchr(q, 0xC2, (size_t)(end - q))) != NULL; q++)
        if (end - q > 1 && (unsigned char)q[1] == 0x85)
            return true;
    for (const char *q = s; (q = memchr(q, 0xE2, (size_t)(end - q))) != NULL; q++)
        if (end - q > 2 && (unsigned char)q[1] == 0x80 && ((unsigned char)q[2] | 1) == 0xA9)
            return true;
    return false;
}

size_t yscalar_plain_fold(char *p, size_t n)
{
    const char *q = p, *e = p + n;
    char *o = p;

    for (;;) {
        const char *nl = memchr(q, '\n', (size_t)(e - q)), *te = nl ? nl : e;
        size_t breaks = 0;

        while (te > q && (te[-1] == ' ' || te[-1] == '\t' || te[-1] == '\r'))
            te--;
        memmove(o, q, (size_t)(te - q));
        o += te - q;
        if (!nl)
            return (size_t)(o - p);
        for (q = nl + 1;; q++, breaks++) { /* empty lines: white space, then a break */
            while (q < e && (*q == ' ' || *q == '\t'))
                q++;
            if (q + 1 < e && q[0] == '\r' && q[1] == '\n')
                q++;
            if (q == e || *q != '\n')
                break;
        }
        if (breaks)
            o = (char *)memset(o, '\n', breaks) + breaks;
        else
            *o++ = ' ';
    }
}

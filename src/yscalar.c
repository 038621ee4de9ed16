#define PCRE2_CODE_UNIT_WIDTH 8
#include "fanout/yscalar.h"

#include <pcre2.h>
#include <string.h>

/* YAML 1.2 core schema, per type. */
static const char CORE_NULL[] = "^(?:~|null|Null|NULL|)$";
static const char CORE_BOOL[] = "^(?:true|True|TRUE|false|False|FALSE)$";
static const char CORE_INT[] = "^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$";
static const char CORE_FLOAT[] =
    "^(?:[-+]?(?:\\.[0-9]+|[0-9]+(?:\\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?"
    "|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN))$";
/* Everything a YAML 1.1 or 1.2 reader would not take as a string. */
static const char MISREAD[] =
    "^(?:~|null|Null|NULL"
    "|y|Y|yes|Yes|YES|n|N|no|No|NO|true|True|TRUE|false|False|FALSE|on|On|ON|off|Off|OFF"
    "|[-+]?[0-9][0-9_]*"                           /* decimal (and 1.1 octal 0123) */
    "|[-+]?0b[01_]+|0o[0-7_]+|[-+]?0x[0-9a-fA-F_]+" /* binary, octal, hex */
    "|[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\\.[0-9_]*)?" /* 1.1 sexagesimal 1:20:30 */
    "|[-+]?(?:[0-9][0-9_]*)?\\.[0-9_]*(?:[eE][-+]?[0-9]+)?" /* floats */
    "|[-+]?[0-9][0-9_]*[eE][-+]?[0-9]+"
    "|[-+]?\\.(?:inf|Inf|INF)|\\.(?:nan|NaN|NAN)"
    "|[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt \\t].*)?" /* 1.1 timestamps */
    "|=|<<)$";

enum { RX_NULL, RX_BOOL, RX_INT, RX_FLOAT, RX_MISREAD, RX_COUNT };

static pcre2_code *compiled[RX_COUNT];
static pcre2_match_data *match_data;

/* Compiled once on first use; these patterns are constants, so failure is a bug. */
static pcre2_code *rx(int which)
{
    static const char *const src[RX_COUNT] = {CORE_NULL, CORE_BOOL, CORE_INT, CORE_FLOAT, MISREAD};

    if (!compiled[which]) {
        int err;
        PCRE2_SIZE off;

        compiled[which] = pcre2_compile((PCRE2_SPTR)src[which], PCRE2_ZERO_TERMINATED,
                                        PCRE2_DOLLAR_ENDONLY, &err, &off, NULL);
        if (compiled[which])
            pcre2_jit_compile(compiled[which], PCRE2_JIT_COMPLETE);
    }
    if (!match_data)
        match_data = pcre2_match_data_create(4, NULL);
    return compiled[which];
}

static bool matches(int which, const char *s, size_t len)
{
    pcre2_code *re = rx(which);

    return re && match_data &&
           pcre2_match(re, (PCRE2_SPTR)s, len, 0, 0, match_data, NULL) >= 0;
}

enum yscalar_type yscalar_type(const char *s, size_t len)
{
    /* The first character rules most texts out before any pattern runs. */
    if (len == 0 || (len == 1 && s[0] == '~'))
        return YS_NULL;
    if (len == 4 && strchr("nN", s[0]) && matches(RX_NULL, s, len))
        return YS_NULL;
    if ((len == 4 || len == 5) && strchr("tTfF", s[0]) && matches(RX_BOOL, s, len))
        return YS_BOOL;
    if (strchr("-+0123456789.", s[0])) {
        if (matches(RX_INT, s, len))
            return YS_INT;
        if (matches(RX_FLOAT, s, len))
            return YS_FLOAT;
    }
    return YS_STRING;
}

/* The words a YAML 1.1 or 1.2 reader takes for a null or a boolean. */
static bool is_keyword(const char *s, size_t len)
{
    static const char *const words[] = {
        "null", "Null", "NULL", "y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO",
        "true", "True", "TRUE", "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF",
    };

    if (len > 5)
        return false;
    for (size_t i = 0; i < sizeof(words) / sizeof(words[0]); i++) {
        if (words[i][0] == s[0] && strlen(words[i]) == len && memcmp(words[i], s, len) == 0)
            return true;
    }
    return false;
}

bool yscalar_misread(const char *s, size_t len)
{
    if (len == 0)
        return true;
    /* A text that starts with a letter can only be one of the words; numbers, dates and
     * the rest start with a digit, a sign, a dot or one of ~ = <. */
    if ((s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z'))
        return is_keyword(s, len);
    if (!strchr("~-+0123456789.=<", s[0]))
        return false;
    return matches(RX_MISREAD, s, len);
}

/* Characters that never appear raw in our plain or block output. */
static bool is_special(const unsigned char *p, size_t left, size_t *skip)
{
    *skip = 1;
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

static bool plain_ok(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;

    if (len == 0 || s[0] == ' ' || s[len - 1] == ' ' || s[len - 1] == ':')
        return false;
    if (strchr("?:-", s[0])) {
        /* Indicators only start a plain scalar when a non-space follows. */
        if (len == 1 || s[1] == ' ')
            return false;
    } else if (strchr(",[]{}#&*!|>'\"%@`", s[0])) {
        return false;
    }
    if (len >= 3 && (!memcmp(s, "---", 3) || !memcmp(s, "...", 3)))
        return false;
    for (size_t i = 0; i < len; i++) {
        size_t skip;

        if (p[i] == '\t' || p[i] == '\n' || is_special(p + i, len - i, &skip))
            return false;
        if (p[i] == ':' && i + 1 < len && s[i + 1] == ' ')
            return false;
        if (p[i] == '#' && i > 0 && s[i - 1] == ' ')
            return false;
    }
    return !yscalar_misread(s, len);
}

static bool literal_ok(const char *s, size_t len)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t line_start = 0;
    bool blank = true;

    if (len == 0 || !memchr(s, '\n', len))
        return false;
    for (size_t i = 0; i < len; i++) {
        size_t skip;

        if (is_special(p + i, len - i, &skip))
            return false;
        if (p[i] == '\n') {
            /* A line of only spaces or tabs is read back as an empty line. */
            if (blank && i > line_start)
                return false;
            line_start = i + 1;
            blank = true;
        } else if (p[i] != ' ' && p[i] != '\t') {
            blank = false;
        }
    }
    if (blank && len > line_start)
        return false;
    /* Text made only of line breaks cannot be told apart from an empty block. */
    for (size_t i = 0; i < len; i++) {
        if (s[i] != '\n')
            return true;
    }
    return false;
}

enum yscalar_style yscalar_style(const char *s, size_t len, bool is_key)
{
    if (!is_key && literal_ok(s, len))
        return YS_LITERAL;
    return plain_ok(s, len) ? YS_PLAIN : YS_DOUBLE_QUOTED;
}

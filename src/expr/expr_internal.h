/* What the files of src/expr share: the value layout, text and number helpers (in
 * JavaScript's terms, since @actions/expressions defines the semantics), the syntax tree
 * and the limits. Nothing here is for the rest of fanout: include/fanout/expr.h is. */
#ifndef FANOUT_EXPR_INTERNAL_H
#define FANOUT_EXPR_INTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fanout/expr.h"
#include "fanout/strbuf.h"

/* @actions/expressions' limits (errors.ts): an expression's length in UTF-16 code units
 * (JavaScript's String.length) and the parser's depth counter. */
#define EXPR_MAX_LENGTH 21000
#define EXPR_MAX_DEPTH 50
/* fanout's own: the nesting of a value read by fromJSON or from YAML. JSON.parse has
 * no such limit, but every walk over a value recurses and must stop somewhere. */
#define EXPR_MAX_VALUE_DEPTH 1000
/* The longest string an evaluation may make, in bytes: toJSON(toJSON(...)) doubles at
 * each level. GitHub's runner refuses an evaluation past 1 MB of memory (a string costs
 * two bytes a character there); JavaScript stops only at 2^29 - 24 characters. */
#define EXPR_MAX_STRING ((size_t)1 << 20)
/* The runner's own cap, for toJSON (EvaluationContext: MaxMemory 1 MiB; MemoryCounter:
 * each piece toJSON writes costs 26 bytes and two a UTF-16 code unit). */
#define EXPR_MAX_MEMORY 1048576
#define EXPR_PIECE_COST 26

/* ---- values ---- */

/* A key that fits `small` is held there, not malloc'd: an object of a matrix row or a
 * job's strategy is made for every configuration, and its keys' mallocs and frees were
 * a tenth of the matrix workflow's object building. */
#define EXPR_KEY_SMALL 16

struct expr_pair {
    char *key; /* NUL-terminated; len excludes the NUL; `small` when it fits */
    size_t len;
    struct expr_value *v;
    char small[EXPR_KEY_SMALL];
};

struct expr_value {
    size_t refs; /* 0: a constant (expr_null, expr_bool), shared and never freed */
    uint8_t kind;  /* enum expr_kind */
    bool filtered; /* an array made by a `*` filter (FilteredArray): indexing maps over it */
    bool unknown;  /* expr_unknown(): a member whose value is not known */
    union {
        bool b;
        double d;
        struct {
            char *s; /* NUL-terminated (in the same block); may hold NULs */
            size_t len;
        } str;
        struct {
            struct expr_value **items;
            size_t n, cap;
        } arr;
        struct {
            struct expr_pair *pairs;
            size_t n, cap;
            uint32_t *slots; /* hash index (pair index + 1, 0 = empty), once past a few keys */
            size_t nslots;
            size_t unknown; /* members whose value is unknown (expr_holds_unknown, at each read of a context) */
        } obj;
    } u;
};

/* A new empty array whose indexing maps over its items (the result of `x.*`). */
struct expr_value *expr_filtered_array(void);
bool expr_is_primitive(const struct expr_value *v);
/* ExpressionData.number(): null 0, booleans 0/1, strings as JavaScript's Number(). */
double expr_to_number(const struct expr_value *v);
/* The index of `key` in `object` (case-insensitive), or -1. */
long expr_object_find(const struct expr_value *object, const char *key, size_t len);
/* a > b and a < b, with GitHub's coercions. */
bool expr_greater(const struct expr_value *a, const struct expr_value *b);
bool expr_less(const struct expr_value *a, const struct expr_value *b);

/* ---- growable text ---- (a failed allocation sticks in `oom`; later calls do nothing) */

/* coerceString(): appends `v` as a string. */
void expr_buf_coerce(struct strbuf *b, const struct expr_value *v);

/* expr_parse without its table of trees: for a text that is not parsed again. */
struct expr *expr_parse_new(const char *text, size_t len, struct expr_error *err);

/* ---- Unicode ---- */

struct expr_case_range {
    uint32_t first, last;
    int32_t delta;
    uint8_t stride;
};

extern const struct expr_case_range expr_upper_ranges[];
extern const size_t expr_upper_ranges_len;

/* The code point at s[*i] (advancing *i). A byte that does not start a valid UTF-8
 * sequence comes back as 0xDC00 + byte, a value no case mapping touches. */
uint32_t expr_utf8_next(const char *s, size_t len, size_t *i);
/* True when s[0..len) is valid UTF-8; else the offset of the first bad byte in *bad. */
bool expr_utf8_valid(const char *s, size_t len, size_t *bad);
/* JavaScript's String.length of the UTF-8 text (a code point past U+FFFF counts 2). */
size_t expr_utf16_len(const char *s, size_t len);
/* JavaScript's white space and line terminators (/\s/, String.prototype.trim). */
bool expr_is_js_space(uint32_t cp);
/* s[*start..*end) without the JavaScript white space at both ends. */
void expr_js_trim(const char *s, size_t *start, size_t *end);
/* One code point as GitHub's runtime compares it: every case-insensitive comparison
 * (==, <, contains, startsWith, endsWith, object keys) is .NET's OrdinalIgnoreCase, the
 * simple upper-case mapping of each character (expr_casemap.c says which). */
uint32_t expr_fold(uint32_t cp);
/* Compares the upper-case foldings of a and b in UTF-16 code-unit order (<0, 0, >0). */
int expr_fold_compare(const char *a, size_t alen, const char *b, size_t blen);
/* Whether `needle` occurs in `hay` (1) or not (0), in linear time; -1 when out of memory. */
int expr_find(const char *hay, size_t hlen, const char *needle, size_t nlen);

/* ---- numbers ---- */

/* NumberData.coerceString(): at most 15 decimals, then toString(). */
size_t expr_coerce_number(double d, char buf[EXPR_NUMBUF]);
/* The value of a JSON number s[0..len) (already checked against JSON's grammar). */
double expr_json_number(const char *s, size_t len);
/* The value of a plain YAML scalar the core schema types as an int or a float. */
double expr_yaml_number(const char *s, size_t len);

/* ---- JSON ---- */

/* JSON.stringify of `v`: with `pretty`, two-space indentation (toJSON); otherwise
 * compact, with `'` written \u0027, ±Infinity written 1e400 and -1e400 and NaN refused
 * (-1), for the fromJSON('...') literal of a residual expression. */
int expr_buf_json(struct strbuf *b, const struct expr_value *v, bool pretty);
/* A JSON string literal, escaped as JSON.stringify does (`'` too when `no_quote`). */
void expr_buf_json_string(struct strbuf *b, const char *s, size_t len, bool no_quote);

/* ---- syntax tree ---- */

enum expr_node_kind {
    EN_LIT,   /* u.lit */
    EN_CTX,   /* u.name */
    EN_INDEX, /* kids[0][kids[1]]; kids[1] NULL for `*` */
    EN_NOT,   /* !kids[0] */
    EN_CHAIN, /* kids[0] ops[0] kids[1] ops[1] ... (left to right) */
    EN_AND,   /* kids[0] && ... && kids[n-1] */
    EN_OR,
    EN_CALL, /* fn(kids[0], ...) */
};

enum expr_op { EOP_EQ, EOP_NE, EOP_LT, EOP_LE, EOP_GT, EOP_GE };

enum expr_fn {
    EF_CONTAINS,
    EF_STARTSWITH,
    EF_ENDSWITH,
    EF_FORMAT,
    EF_JOIN,
    EF_TOJSON,
    EF_FROMJSON,
    EF_CASE,
    EF_HASHFILES, /* never known to fanout, like the status functions below */
    EF_SUCCESS,
    EF_ALWAYS,
    EF_CANCELLED,
    EF_FAILURE,
};

struct expr_fn_info {
    const char *name; /* the documented spelling */
    unsigned min, max;
};

extern const struct expr_fn_info expr_fns[];

static inline bool expr_fn_is_status(unsigned fn)
{
    return fn >= EF_SUCCESS;
}

struct expr_node {
    uint8_t kind; /* enum expr_node_kind */
    uint8_t fn;   /* EN_CALL: enum expr_fn */
    uint32_t n;   /* kids */
    size_t pos;   /* byte offset of the node's token in the parsed text */
    union {
        struct expr_value *lit;
        const char *name; /* lower case */
        struct expr_node **kids;
    } u;
    uint8_t *ops; /* EN_CHAIN: n - 1 of enum expr_op */
};

/* Memory for nodes, freed at once. */
struct expr_chunk;

struct expr_arena {
    struct expr_chunk *chunks;
    char *p;
    size_t left;
    size_t chunk; /* the next chunk's size; 0: the usual 1 KiB */
};

/* A new chunk for expr_arena_alloc, its first `size` bytes taken; NULL when out of memory. */
void *expr_arena_grow(struct expr_arena *a, size_t size);

/* Inline: a bump of a pointer, called for every node (its call was a tenth of a parse). */
static inline void *expr_arena_alloc(struct expr_arena *a, size_t size)
{
    void *p;

    size = (size + 15) & ~(size_t)15;
    if (size > a->left)
        return expr_arena_grow(a, size);
    p = a->p;
    a->p += size;
    a->left -= size;
    return p;
}
void expr_arena_free(struct expr_arena *a);

/* A value held by a node, released with the arena's owner. */
struct expr_held {
    struct expr_value *v;
    struct expr_held *next;
};

struct expr {
    struct expr_arena arena;
    struct expr_node *root;
    struct expr_held *held;
    bool has_status;    /* calls success(), failure(), always() or cancelled() anywhere */
    /* the functions past EF_CASE it calls, which a place must allow: bit f - EF_HASHFILES,
     * and the fewest and the most arguments of their calls */
    unsigned placed;
    uint32_t placed_args[EF_FAILURE - EF_HASHFILES + 1][2];
    unsigned shared;    /* owners besides the first (expr_parse's cache shares trees) */
    unsigned contexts;  /* the contexts it names: bit i for expr_parse.c's contexts[i] */
    unsigned max_depth; /* the parser's deepest level in it (EXPR_MAX_DEPTH at most) */
    /* expr_eval's residual when nothing in the tree was known, a function of the tree
     * alone: kept once it was written without a problem (NULL before; expr_eval.c) */
    struct expr_kept *kept;
};

/* ---- evaluation ---- */

/* Appends `s` as an expression literal: '...' with quotes doubled (fromJSON('"..."')
 * when it holds a NUL, which an expression cannot spell). */
void expr_buf_string_literal(struct strbuf *b, const char *s, size_t len);

/* Sets *err (offset and a printf-style message); returns -1. */
int expr_fail(struct expr_error *err, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#endif

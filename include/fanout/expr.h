/* expr: GitHub Actions expressions (`${{ }}`) with GitHub's semantics, evaluated partly.
 * Contexts that are known (matrix, strategy, inputs given on the command line...) are
 * substituted and constant sub-expressions folded; what stays unknown (github, secrets,
 * status functions...) is kept as an expression and printed back in one canonical form.
 *
 * Values are reference counted: objects and arrays compare equal only when they are the
 * same instance (GitHub's rule), which sharing a reference keeps true. */
#ifndef FANOUT_EXPR_H
#define FANOUT_EXPR_H

#include <stdbool.h>
#include <stddef.h>

struct ynode;

/* ---- values ---- */

enum expr_kind { EXPR_NULL, EXPR_BOOL, EXPR_NUMBER, EXPR_STRING, EXPR_ARRAY, EXPR_OBJECT };

struct expr_value;

/* Each returns a new reference, or NULL when out of memory. */
struct expr_value *expr_null(void);
struct expr_value *expr_bool(bool b);
struct expr_value *expr_number(double d);
struct expr_value *expr_string(const char *s, size_t len);
struct expr_value *expr_array(void);
struct expr_value *expr_object(void);

/* A member of a context object whose value is not known (an input declared without a
 * default, not given): `inputs.x` naming it stays in the residual while the object's
 * other members are known, and the object used whole (`toJSON(inputs)`) is unknown. */
struct expr_value *expr_unknown(void);
/* Whether object `v` has such a member. */
bool expr_holds_unknown(const struct expr_value *v);

/* Take the reference to `item` / `v` (also on failure). 0, or -1 when out of memory.
 * expr_object_set replaces the value of a key already present (keys compare
 * case-insensitively, as GitHub's dictionaries do) and keeps first-insertion order. */
int expr_array_append(struct expr_value *array, struct expr_value *item);
int expr_object_set(struct expr_value *object, const char *key, size_t len, struct expr_value *v);
/* expr_object_set of a key `object` does not have, not looked for (the keys of another
 * object, which are unique: a matrix row's are its vectors'). */
int expr_object_add(struct expr_value *object, const char *key, size_t len, struct expr_value *v);

struct expr_value *expr_ref(struct expr_value *v);
/* A deep copy of `v` (a new reference; NULL when out of memory): values that share no
 * reference count with v's, for another thread (diff renders its sides at once). */
struct expr_value *expr_copy(const struct expr_value *v);
void expr_unref(struct expr_value *v);

enum expr_kind expr_kind_of(const struct expr_value *v);
bool expr_bool_value(const struct expr_value *v);
double expr_number_value(const struct expr_value *v);
const char *expr_string_value(const struct expr_value *v, size_t *len);

/* Items of an array, pairs of an object (in insertion order); borrowed references. */
size_t expr_len(const struct expr_value *v);
struct expr_value *expr_item(const struct expr_value *array, size_t i);
const char *expr_key(const struct expr_value *object, size_t i, size_t *len);
struct expr_value *expr_member(const struct expr_value *object, size_t i);
/* The value of `key` (case-insensitive), or NULL. Borrowed. */
struct expr_value *expr_get(const struct expr_value *object, const char *key, size_t len);

/* v[index] as GitHub's index operator reads it (`matrix['os'][0]`): an object by its
 * key (a number as its text), an array by an integer (a string as its number); null
 * when there is none or `v` is no array or object. A new reference; NULL when out of
 * memory. */
struct expr_value *expr_index(const struct expr_value *v, const struct expr_value *index);

/* GitHub's truthiness, loose `==`, and coercion to string (`3.1`, `true`, `Array`...). */
bool expr_truthy(const struct expr_value *v);
bool expr_equal(const struct expr_value *a, const struct expr_value *b);
char *expr_to_string(const struct expr_value *v); /* malloc'd, NULL when out of memory */
/* toJSON's text (two-space indentation, as GitHub prints it); malloc'd. */
char *expr_to_json(const struct expr_value *v);

#define EXPR_NUMBUF 40

/* JavaScript's Number.prototype.toString(): the shortest digits that read back as the
 * same double, without an exponent from 1e-6 to 1e21 (also what JSON.stringify writes);
 * its length. */
size_t expr_js_number(double d, char buf[EXPR_NUMBUF]);
/* .NET's Double.ToString("G15", InvariantCulture), how GitHub's runtime writes a number
 * (NumberExpressionData.ToString, ExpressionUtility.ConvertToParseToken): 15 significant
 * digits rounded half away from zero, trailing zeros dropped, 1E-05 and 1E+15 on in
 * scientific form, NaN, Infinity, -Infinity, -0; its length. */
size_t expr_g15_number(double d, char buf[EXPR_NUMBUF]);
/* JavaScript's Number(string): NaN when the text is not a number. */
double expr_js_to_number(const char *s, size_t len);
/* UTF-8 text in the upper case GitHub's runtime compares it in (.NET's OrdinalIgnoreCase:
 * each character's simple upper-case mapping); malloc'd, NUL-terminated, or NULL. */
char *expr_upper(const char *s, size_t len, size_t *out_len);
/* fromJSON. NULL with *error set (malloc'd) on invalid JSON or out of memory. JSON.parse's
 * grammar exactly; of keys that differ only in case the first spelling stays, with the
 * last value written in that spelling; nesting deeper than 1,000 is refused. */
struct expr_value *expr_from_json(const char *text, size_t len, char **error);
/* A YAML value as GitHub reads it: plain scalars typed by YAML's core schema (`3.10`
 * is the number 3.1, `true` a boolean, `~` null), quoted and block scalars strings.
 * NULL when out of memory or nested deeper than 1,000. */
struct expr_value *expr_from_ynode(const struct ynode *n);

/* ---- contexts ---- */

/* Named values (`matrix`, `inputs`...). A name not set is unknown: references to it stay
 * in the residual expression. Names compare case-insensitively. Expressions may only
 * name GitHub's contexts (github env vars job jobs steps runner secrets strategy matrix
 * needs inputs): expr_parse refuses any other, as GitHub does. */
struct expr_contexts;

struct expr_contexts *expr_contexts_create(void);
/* Takes the reference to `v`; replaces an earlier value. 0, or -1 when out of memory. */
int expr_contexts_set(struct expr_contexts *c, const char *name, struct expr_value *v);
/* Borrowed, or NULL when unknown. */
struct expr_value *expr_contexts_get(const struct expr_contexts *c, const char *name);
void expr_contexts_destroy(struct expr_contexts *c);

/* ---- parsing and evaluation ---- */

/* Where and why: `offset` is a byte offset into the text given to the function. */
struct expr_error {
    size_t offset;
    char message[200];
};

struct expr;

/* Parses one expression (the text between `${{` and `}}`, or an `if:` value). NULL with
 * *err set on a syntax error (double-quoted string, unknown function or context, wrong
 * argument count, unbalanced parentheses, nesting deeper than GitHub allows, longer
 * than 21,000 characters, invalid UTF-8...). */
struct expr *expr_parse(const char *text, size_t len, struct expr_error *err);
void expr_free(struct expr *e);

/* What an expression may name where it is written, as GitHub's workflow parser is told
 * it for a key (a definition's `context` list in its schema): named-values, and the
 * functions beyond the built-in ones (contains startsWith endsWith format join toJSON
 * fromJSON case) with their argument counts. */
struct expr_function {
    const char *name;
    unsigned min, max;
};

struct expr_names {
    const char *const *contexts;
    size_t n_contexts;
    const struct expr_function *functions;
    size_t n_functions;
};

/* Parses `text` as GitHub's parser does when given `names` (only names GitHub defines
 * can be allowed: a context or function outside expr_parse's stays an error). 0, or -1
 * with *err set; *not_here tells that the error is a named-value or function GitHub
 * defines but `names` does not allow. */
int expr_check(const char *text, size_t len, const struct expr_names *names, bool *not_here,
               struct expr_error *err);

/* Parses `text` as expr_parse does, where GitHub's parser allows `names` (expr_check's
 * language): for a place whose functions take other argument counts than expr_parse's
 * (a job's if: lets failure() and success() name jobs). NULL with *err set. */
struct expr *expr_parse_in(const char *text, size_t len, const struct expr_names *names,
                           struct expr_error *err);

/* True when the expression refers to context `name` (`matrix`, ...). */
bool expr_uses_context(const struct expr *e, const char *name);

/* True when the expression calls a status function (success(), failure(), always(),
 * cancelled()): a job's if: without one has success() ANDed in by GitHub. */
bool expr_calls_status(const struct expr *e);

/* What an expression reads: a context, then the properties named after it by `.name` or
 * `['name']` (`matrix.os`, `steps['build'].outputs.x`), as far as each is a literal name
 * and up to EXPR_PATH_MAX of them; a computed index ends the path (`matrix[inputs.k]`
 * reads matrix, then inputs.k). `context` is lower case, `offset` the byte offset of
 * its name in the text parsed; the names are as written, not NUL-terminated. Valid
 * during the call. */
#define EXPR_PATH_MAX 3

struct expr_path_part {
    const char *name;
    size_t len;
};

struct expr_path {
    const char *context;
    size_t offset, n;
    struct expr_path_part props[EXPR_PATH_MAX];
};

/* Return non-zero to stop. */
typedef int (*expr_path_fn)(void *user, const struct expr_path *path);

/* Calls fn for each path `e` reads, in the order written. 0, or what fn returned. */
int expr_each_path(const struct expr *e, expr_path_fn fn, void *user);

/* The same over a workflow string's `${{ }}` expressions (with `condition`: an `if:`
 * value, with or without `${{ }}`, read as expr_condition_eval reads it), offsets into
 * `text`. Expressions that do not parse read nothing (evaluating them says why). */
int expr_text_paths(const char *text, size_t len, bool condition, expr_path_fn fn, void *user);

/* The outcome of an evaluation: exactly one of `value` (fully known) and `residual`
 * (canonical text of what stays unknown, without `${{ }}`) is set. `status` tells
 * whether the residual still calls a status function (success(), failure(), always(),
 * cancelled()); `unknown` names the unknown contexts and functions it depends on,
 * comma-separated ("github, secrets"). Free with expr_result_clear. */
struct expr_result {
    struct expr_value *value;
    char *residual;
    char *unknown;
    bool status;
};

void expr_result_clear(struct expr_result *r);

/* Evaluates `e` against `c`. With `condition` set, the result only has to keep the
 * truthiness (an `if:`), which allows `x && true` -> `x`; and when `e` calls a status
 * function but the result no longer does, it becomes always() (a truthy constant) or
 * `always() && rest`, since GitHub ANDs success() into a condition without one.
 * Returns 0, or -1 with *err set for an evaluation error (fromJSON of invalid JSON, a
 * string past 1 MiB, a residual GitHub would refuse...) or out of memory. */
int expr_eval(const struct expr *e, const struct expr_contexts *c, bool condition,
              struct expr_result *out, struct expr_error *err);

/* A workflow string with `${{ }}` parts. A text that is exactly one `${{ }}` (nothing
 * around it, not even a space: GitHub makes anything else a string) yields that
 * expression's value (which may be an array or object); otherwise the parts are joined
 * as strings. When a part stays unknown the residual is the text with the known parts
 * substituted and the unknown ones as `${{ canonical }}` (known text that would read as
 * `${{` is written `${{ '...' }}`). A text without `${{` is returned as a string. Error
 * offsets point into `text`. */
int expr_template_eval(const char *text, size_t len, const struct expr_contexts *c,
                       struct expr_result *out, struct expr_error *err);

/* A workflow string GitHub makes a string of (a job's `name`), evaluated as its C#
 * runtime does it, which differs from @actions/expressions in how numbers print: as
 * expr_template_eval, but a known value is a string, each expression's number in G15
 * (EvaluationResult.ConvertToString around other text, where -0 prints as 0;
 * NumberToken.ToString alone), null empty, booleans true/false; except that a text of one
 * expression whose value is an array or object gives that value (GitHub fails there:
 * "A sequence was not expected"; the caller says so). */
int expr_template_string(const char *text, size_t len, const struct expr_contexts *c,
                         struct expr_result *out, struct expr_error *err);

/* The offset of the first `${{` in s[0..len) (what makes a workflow string a template),
 * or SIZE_MAX. */
size_t expr_template_open(const char *s, size_t len);

/* The end (its second '}') of the expression that opens with `${{` at byte `at` of
 * s[0..len): the first `}}` outside a quoted string ('' toggles twice); 0 when it is not
 * closed. */
size_t expr_template_close(const char *s, size_t len, size_t at);

/* A workflow string whose value is exactly `s` (len bytes): `s` itself, or when it holds
 * what GitHub would read as an expression (`${{`) or a NUL, `${{ 's' }}`. Malloc'd,
 * NUL-terminated, its length in *out_len; NULL when out of memory. */
char *expr_template_literal(const char *s, size_t len, size_t *out_len);

/* The expression GitHub's converter makes of an `if:` value (workflow-parser's
 * if-condition.js convertToIfCondition, after template-reader.js parseScalar): a text
 * that is one `${{ e }}` gives e (one whose value is a string literal, that string), a
 * text with `${{ }}` parts and more the format() of it (a string: truthy unless empty,
 * *formatted set), any other text itself; trimmed, and an empty one is success().
 * Malloc'd, its length in *out_len; *base is where it stands in `text` when it is a
 * part of it as written (for error offsets), else SIZE_MAX. The `${{ }}` parts are parsed
 * as expr_parse_in parses with `names` (NULL: as expr_parse). NULL with *err set (a `${{`
 * not closed, a part that does not parse, out of memory). */
char *expr_condition_text(const char *text, size_t len, const struct expr_names *names, size_t *out_len,
                          size_t *base, bool *formatted, struct expr_error *err);

/* An `if:` value: an expression with or without `${{ }}` (GitHub accepts both), evaluated
 * with `condition` set. */
int expr_condition_eval(const char *text, size_t len, const struct expr_contexts *c,
                        struct expr_result *out, struct expr_error *err);

#endif

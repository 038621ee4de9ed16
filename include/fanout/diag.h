/* diag: findings and errors in one place, printed as `file:line:col: error: message [rule]`.
 * The class of each message decides the exit code: input errors (2) beat findings (1). */
#ifndef FANOUT_DIAG_H
#define FANOUT_DIAG_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>

#include "fanout/rules.h"

/* DIAG_SARIF: the messages of a process are one SARIF 2.1.0 log (diag_sarif.c), begun
 * by the first SARIF diag created, whatever its stream (stderr), and ended by
 * diag_sarif_end. */
enum diag_format { DIAG_TEXT, DIAG_GITHUB, DIAG_JSON, DIAG_SARIF };

/* A note tells what fanout could not do and left as written; it never fails a run. */
enum diag_severity { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE };

/* Exit-code classes (the values are the exit codes). */
enum diag_class { DIAG_FINDING = 1, DIAG_INPUT = 2 };

struct diag;

/* How a rule's findings are treated (the config's `rules:`, --ignore). Input errors
 * (exit 2) keep their level whatever is asked. */
enum diag_level { DIAG_LEVEL_DEFAULT, DIAG_LEVEL_ERROR, DIAG_LEVEL_WARNING, DIAG_LEVEL_OFF };

struct diag_rule_level {
    enum rule_id rule;
    enum diag_level level;
};

/* The line a message points at, for the snippet under a text message: at most
 * DIAG_EXCERPT_CHARS characters of it, around the column. */
#define DIAG_EXCERPT_CHARS 160
struct diag_excerpt {
    char text[4 * DIAG_EXCERPT_CHARS + 1]; /* NUL-terminated, as read (escaped when shown) */
    size_t caret;                          /* the byte of `text` the column is at */
};

/* What a run's messages show, shared by every diag of the run (the caller keeps it
 * alive): -q (errors only), each rule's level, and for the text format colour and the
 * source line with a caret under the column, which `excerpt` finds (false: none). */
struct diag_policy {
    bool quiet, color, snippets;
    const struct diag_rule_level *levels;
    size_t n_levels;
    bool (*excerpt)(const char *file, unsigned line, unsigned col, struct diag_excerpt *out);
};

/* Messages go to `out` (normally stderr). */
struct diag *diag_create(FILE *out, enum diag_format format);
void diag_destroy(struct diag *d);

/* A diag that holds its messages until diag_flush_into prints them to `to` (and adds
 * their counts; `to` is not itself buffered), or diag_destroy drops them. For findings
 * that only matter when something else found nothing. */
struct diag *diag_create_buffered(enum diag_format format);
/* The same with `like`'s format and policy (the held-back findings of a run). */
struct diag *diag_create_buffered_like(const struct diag *like);
/* The same, its rules shadowing as `like`'s do (diag_shadow): a stand-in for `like` in
 * another thread (diff renders HEAD while BASE reports into `like`), flushed into it. */
struct diag *diag_create_buffered_for(const struct diag *like);
void diag_flush_into(struct diag *from, struct diag *to);

/* A place in the inputs: a file by its number (an index into the run's names), line and
 * column (1-based; line 0: the whole file). */
struct ypos {
    unsigned file;
    unsigned line;
    unsigned col;
};

#define YPOS_MAX_FILES 4096

/* line/col are 1-based; line 0 means "the whole file". `rule` may be RULE_NONE. */
void diag_report(struct diag *d, enum diag_severity sev, enum diag_class cls,
                 const char *file, unsigned line, unsigned col, enum rule_id rule,
                 const char *fmt, ...) __attribute__((format(printf, 8, 9)));

void diag_vreport(struct diag *d, enum diag_severity sev, enum diag_class cls,
                  const char *file, unsigned line, unsigned col, enum rule_id rule,
                  const char *fmt, va_list ap) __attribute__((format(printf, 8, 0)));

/* diag_report at `at`, its file named by `files` (the run's names by file number). */
void diag_at(struct diag *d, enum diag_severity sev, enum diag_class cls, const char *const *files,
             struct ypos at, enum rule_id rule, const char *fmt, ...) __attribute__((format(printf, 7, 8)));

void diag_vat(struct diag *d, enum diag_severity sev, enum diag_class cls, const char *const *files,
              struct ypos at, enum rule_id rule, const char *fmt, va_list ap)
    __attribute__((format(printf, 7, 0)));

/* Text from the input or the command line, written so that it stays on its line and
 * nothing in it acts on a terminal or a CI log: control characters (C0, DEL, C1, the
 * Unicode line separators and bidirectional overrides) and bytes that are not UTF-8 are
 * escaped, and what the GitHub runner would take for a workflow command is broken.
 * Shared by every writer of these formats:
 * - a JSON string literal (\n, \uNNNN; bad bytes as U+FFFD; `##[` as `##\u005b`);
 * - workflow-command data and property values, with GitHub's own escapes (% CR LF; a
 *   property also : and ,), other controls as in text;
 * - plain text (\n \r \t \xNN \uNNNN; `##[` as `##\x5B`); `line_start`: `s` begins a
 *   line, where `::` after white space becomes `\x3A:`. */
void diag_write_json_string(FILE *out, const char *s);
void diag_write_github_escaped(FILE *out, const char *s);
void diag_write_github_property(FILE *out, const char *s);
void diag_write_text(FILE *out, const char *s, bool line_start);

void diag_set_policy(struct diag *d, const struct diag_policy *p);

/* The format of the messages from now on (the config's `error-format`, known once the
 * diag that reports the config's errors exists). */
void diag_set_format(struct diag *d, enum diag_format format);

/* Where a capturing diag's findings go instead of being printed: each finding (class
 * DIAG_FINDING) once the policy has leveled, shadowed or dropped it (not -q, which only
 * prints), its `file` and `msg` alive until the call returns. */
struct diag_sink {
    void (*finding)(void *user, enum diag_severity sev, const char *file, unsigned line, unsigned col,
                    enum rule_id rule, const char *msg);
    void *user;
};

/* A diag like `to` (format, policy, shadowing) whose findings go to `sink` (kept, not
 * copied) and whose other messages (input errors, what a run did) go into `to`, printed
 * and counted there. It counts its findings too, so a render into it stops as it would:
 * diff renders each side into one and reports only the findings HEAD has and BASE not. */
struct diag *diag_create_capture(struct diag *to, const struct diag_sink *sink);

/* For another SARIF log (diff --format sarif): its opening, up to the `results` array
 * opened; whether `file` names an artifact (a result needs one: code scanning refuses a
 * log with a result that has no location); and one result at `file` (an artifact) and
 * `line` (0: the whole file), `rule` its ruleId (NULL: none). */
void diag_sarif_open(FILE *out);
bool diag_sarif_is_artifact(const char *file);
void diag_sarif_result(FILE *out, const char *rule, enum diag_severity sev, const char *file, unsigned line,
                       unsigned col, const char *msg);

/* The SARIF log's driver: fanout's version and where to read about it (both kept, not
 * copied; NULL: not said). */
void diag_sarif_driver(const char *version, const char *information_uri);

/* Ends the SARIF log, if one was begun: the rules its messages named, the notifications
 * (messages about no file), and `status`: the exit code, or 128 + N for a run that ends
 * by signal N. A run's every way out calls it once, so the log is always whole. */
void diag_sarif_end(int status);

/* A muted diag counts nothing and prints nothing (used for a second pass over
 * input that the first pass already reported on). */
void diag_set_muted(struct diag *d, bool muted);

/* Keeps only the findings of `rule` (and every input error); RULE_NONE keeps all. For
 * commands that run a whole render for one rule's sake (`shards check`). */
void diag_keep_only(struct diag *d, enum rule_id rule);

/* From now on, a finding of rule `later` at the place (file, line, column) of a finding
 * of rule `earlier` reported before is dropped: one problem said once when two checks
 * see it (the dialect's unknown-key, then the schema's additionalProperties at the same
 * key). So is a held error (diag_flush_into) at such a place: what a schema says of a
 * step whose typo was reported (a step with `comand` has no type). */
void diag_shadow(struct diag *d, enum rule_id earlier, enum rule_id later);

/* A finding of `rule` at `at` that is not said again (said once per file before): it
 * shadows what diag_shadow makes it shadow, as if reported, and is neither printed nor
 * counted. */
void diag_cover(struct diag *d, const char *const *files, struct ypos at, enum rule_id rule);

/* `fanout: <what> <arg>` on a line of its own (`arg` escaped as text): what the run did,
 * which is no problem and shows under -q too (check --write's "wrote FILE"); in SARIF a
 * note of the invocation. */
void diag_say(struct diag *d, const char *what, const char *arg);

unsigned diag_errors(const struct diag *d);
unsigned diag_warnings(const struct diag *d);
bool diag_has_input_error(const struct diag *d);

/* 0 when clean; 2 after any input error; 1 after findings (warnings count only when strict). */
int diag_exit_code(const struct diag *d, bool strict);

#endif

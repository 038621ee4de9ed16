/* pipediff's parts (private to src/diff): what they share. A side (pipediff_side.c)
 * renders its operand into a sink that packs each job to a spool and one record per job
 * (the digest of its comparable fields) to an external sort, then groups the records
 * into logical steps; a job read back is made into its comparable fields
 * (pipediff_codec.c, its values shown on one line by pipediff_values.c).
 * The sides are merge-joined and matched steps compared field by field
 * (pipediff_compare.c); the steps only one side has are paired as renames or reported
 * added or removed (pipediff_unmatched.c); the matched steps out of order are moves
 * (pipediff_moves.c). Findings are spooled, sorted and printed in the report's format
 * (pipediff_report.c). pipediff.c runs the whole. The dialects' fields come only from
 * their `diff` tables (dialect.h). */
#ifndef FANOUT_PIPEDIFF_INTERNAL_H
#define FANOUT_PIPEDIFF_INTERNAL_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "fanout/dialect.h"
#include "fanout/emit.h"
#include "fanout/inputs.h"
#include "fanout/pipediff.h"
#include "fanout/text.h"
#include "fanout/xsort.h"
#include "fanout/ynode.h"

#define VALUE_MAX 160 /* characters of a value shown in a message */
#define STR_(x) #x
#define STR(x) STR_(x)
#define SORT_BUDGET (1u << 20)
/* A side's jobs go to its spool in writes of about this many bytes: the spool holds
 * every job of the side (about 20 MB at 10 MB of pipeline), and a write a text, stdio's
 * 4 KiB at a time, made most of a diff's system time. */
#define SPOOL_CHUNK (64u << 10)
#define SPOOL_PAGE 4096u /* a spool is read back a page at a time (pd_spool_read) */
#define RENAME_MAX 1000   /* removed and added steps looked at for renames, at most, a side */
#define RENAME_PERCENT 80 /* of the fields either has, at least, alike in both, for a rename */
#define LABEL_MAX 80      /* characters of a label shown */
#define LIST_MAX 8        /* jobs and commands listed under an added step */
#define WHOLE_MAX 40      /* characters of values a compact line shows whole, not by words */
#define FNV_PRIME 0x100000001b3ull

/* ---------- values on one line ---------- */

struct blob;

struct text {
    char buf[VALUE_MAX + 32]; /* the value, "...", a digest */
    size_t len;
    bool cut;
    struct blob *whole; /* not NULL: the value goes there whole instead (pd_show_whole) */
};

/* ---------- a job's comparable fields, serialized ----------
 * Made from a job read back from the spool (pd_entries_read), for the jobs compared,
 * renamed, added or removed. Entries: a type byte, where it is written (file, line, a literal block's first line:
 * three 32-bit numbers), the name, the value as shown and the value as JSON (each a
 * 32-bit length and its bytes). FIELD is a field's value; QUIET a field left out of the
 * comparison (at its default, or --ignore-field), kept for the job's JSON; ENV one entry
 * of its env (the shard variables left out: they show up as a re-sharding); SUB one of
 * a job's own items (a workflow job's steps, named as its dialect says), SUBFIELD each
 * of its fields ("<item>\x1f<field>": a scalar's whole text, else the value as shown
 * and "\x1f<digest>"); STEP a whole job that is not a mapping; COMMAND the first line of
 * a command it runs (named as its dialect says), for an added step's report. */

enum entry_type { E_FIELD, E_QUIET, E_ENV, E_STEP, E_SUB, E_SUBFIELD, E_COMMAND };

struct blob {
    char *buf;
    size_t len, cap;
};

/* ---------- the jobs per runner (pipediff_runners.c) ---------- */

struct pd_durations; /* a --durations file: job id -> minutes */

/* One runner's jobs on one side, `timed` of them taking `minutes` together. */
struct pd_runner {
    char *name; /* where they run, as a value is shown (NULL: a free slot) */
    uint32_t jobs, timed;
    double minutes;
};

/* A runner a job's value `where` was shown as (pd_tally_job): `key`, that value's
 * kinds, styles and texts (which alone decide how it shows). */
struct pd_runner_memo {
    struct blob key;
    char *name;
};

#define RUNNER_MEMO 16

/* A side's jobs by runner (sorted by name), all its jobs' figures, and its longest job. */
struct pd_tally {
    struct pd_runner *slot;
    size_t cap, n;
    uint32_t jobs, timed;
    double minutes, longest;
    char *longest_id; /* as `fanout jobs` lists it */
    bool has_longest;
    struct blob blob;
    /* the runners shown last (showing a value was 1,100 instructions a job, most jobs
     * run where one before them does), the next to replace, and a value's key */
    struct pd_runner_memo memo[RUNNER_MEMO];
    unsigned memo_next;
    struct blob key;
};

/* The run's: the durations of each side (given once: both sides share it) and the
 * sides' tallies over every kind of jobs compared. */
struct pd_runners {
    struct pd_durations *durations[2];
    bool shared;
    struct pd_tally side[2];
};

/* 0, or -1 after reporting a durations file that cannot be read (exit 2). */
int pd_runners_open(struct pd_runners *rs, const struct pd_opts *pd, struct diag *d);
void pd_runners_close(struct pd_runners *rs);
/* A durations file (TSV or JSON, docs/diff.md), or NULL after reporting why not. */
struct pd_durations *pd_durations_read(const char *path, struct diag *d);
bool pd_durations_get(const struct pd_durations *m, const char *id, size_t len, double *minutes);
/* Job `id` (len bytes) takes `minutes` (-1: what was given is no number of minutes),
 * given at line:col of the file: 0, or -1 after reporting why not (an id empty or given
 * twice, not a duration). */
int pd_durations_add(struct pd_durations *m, const char *id, size_t len, double minutes, unsigned line, unsigned col);
/* Reports `msg` at line:col of the file (rule durations); -1. */
int pd_durations_error(struct pd_durations *m, unsigned line, unsigned col, const char *msg);
/* A number's text (len bytes) as a count: finite, 0 or more; -1 for anything else. */
double pd_minutes_of(const char *t, size_t len);
/* pipediff_junit.c: the durations of a JUnit XML report at `path`, each <testsuite> a
 * job's run, into m. 0, or -1 after reporting why not. */
int pd_junit_read(struct pd_durations *m, const char *path);
void pd_durations_free(struct pd_durations *m);
/* Counts rendered job `job` on its runner (the first of dd->machine it has), with its
 * minutes when `dur` (may be NULL) has them (`note`: what its file says of its label,
 * dialect_diff.label_value's). 0, or -1 when out of memory. */
int pd_tally_job(struct pd_tally *t, const struct pd_durations *dur, const struct dialect_diff *dd,
                 const char *note, const struct dialect_job *job);
int pd_tally_merge(struct pd_tally *into, const struct pd_tally *from);
void pd_tally_clear(struct pd_tally *t);
/* Whether pd_print_runners says anything. */
bool pd_runners_changed(const struct pd_runners *rs);
/* The runners whose jobs or minutes changed, and the sides' minutes, in `format` (nothing
 * when none changed). 0, or -1 when out of memory. */
int pd_print_runners(const struct pd_runners *rs, enum pd_format format, FILE *out);

/* ---------- a side: the sink that records a rendering ---------- */

struct hkey {
    uint64_t h1, h2;
};

/* A side's rule findings, held back to report only those the change introduces
 * (pipediff_findings.c): spooled and sorted by place, then by key. */
struct pd_found {
    struct side *side;
    struct diag *capture; /* what the side renders into */
    struct diag_sink sink;
    FILE *spool;          /* their files' names and messages */
    uint64_t spool_len;
    struct xsort *places, *keys, *starts; /* the findings by place, by key; the jobs by place */
    uint32_t seq, last_file;
    /* the job start added last (a fan-out's jobs share one: added once) */
    uint32_t start_file, start_line;
    struct hkey start_id;
    bool started;
    bool failed;
};

/* A job a matrix adjustment skips: its identity and values as record_step keeps them,
 * and the adjustment's reason ("" for `skip: true`). */
struct skipped_job {
    char *id, *row, *reason;
};

#define SKIPPED_MAX 4096
#define SKIPPED_BYTES (1u << 20)

/* A job HEAD's CI will not run for the change (the not-run hook): its identity, its
 * place among those told, and why. */
struct not_run_job {
    struct hkey id;
    uint32_t seq;
    char *why;
};

#define NOT_RUN_MAX 4096
#define NOT_RUN_BYTES (1u << 20)

struct side {
    const char *name; /* the operand, for messages */
    const struct dialect *dialect;
    const struct pd_opts *pd; /* the fields left out of the comparison */
    struct strset *fields;    /* the field names its jobs have, when some are left out */
    struct diag *diag;
    const char *const *paths; /* the files rendered, by file number (the caller's) */
    size_t n_paths;
    /* when a side's files are several builds: each file's build, named alike on both sides
     * (pipediff_builds.c), which scopes the identities of jobs (keys are unique per
     * build); else NULL (the caller's) */
    const struct hkey *build_scope;
    char **names;             /* their names in messages where render renames them (else NULL) */
    FILE *spool;
    uint64_t spool_len; /* bytes written to it */
    struct blob out;    /* the jobs' texts on their way to it (SPOOL_CHUNK at a time) */
    /* once it is written: what was read of it last (SPOOL_CHUNK bytes from window_off),
     * as a changed job's texts are read one after another */
    char *window;
    uint64_t window_off;
    size_t window_len;
    struct xsort *steps;
    /* the identities a derived job would have, for each job (struct hkey): a step whose
     * identity is one has a parent on this side; the last one, as a fan-out's jobs
     * share it */
    struct xsort *marks;
    struct hkey marked;
    uint32_t seq;
    /* what the rendering holds besides its jobs (top-level settings, groups' own fields) */
    struct pd_outside *outside;
    const struct ynode **jobs; /* the current item's jobs, by address */
    size_t n_jobs, cap_jobs;
    struct blob blob;
    struct blob json;          /* a value as JSON, written by `json_em` through `json_file` */
    FILE *json_file;
    struct emitter *json_em;
    bool failed;
    struct xsort *logicals; /* by lid, after grouping; their `rank` unset (pd_logical_rank) */
    /* a bit for each job (by seq) that begins a logical step, and how many do before each
     * 64 jobs: a logical step's rank in rendering order is the count of those before its
     * first job (1.5 bits a job; a sort of the logical steps by `first` did it) */
    uint64_t *firsts;
    uint32_t *firsts_before;
    FILE *shards;           /* the logical steps' shard tuples */
    uint64_t shards_len;
    uint64_t shards_at;     /* where its last read ended (UINT64_MAX: not known) */
    FILE *unmatched;        /* the logical steps the other side has not (struct logical) */
    uint32_t n_unmatched;
    /* the jobs its matrices' adjustments skip (at most SKIPPED_MAX of them and about
     * SKIPPED_BYTES of text; past that a skipped job reads as removed) */
    struct skipped_job *skipped;
    size_t n_skipped, skipped_bytes;
    bool skipped_sorted;
    /* the jobs the change leaves out (at most NOT_RUN_MAX of them and about
     * NOT_RUN_BYTES of reasons; past that one is not marked) */
    struct not_run_job *not_run;
    size_t n_not_run, not_run_bytes;
    bool not_run_sorted;
    /* its fan-outs (steps of several jobs) by identity, for the references a fan-out's
     * change rewrites (pipediff_fanref.c): 20 bytes a fan-out */
    struct fanout_count *fanouts;
    size_t n_fanouts, cap_fanouts;
    /* what each file says of its jobs' labels (dialect_diff.label_note), by file number */
    char **notes;
    size_t n_notes;
    const struct pd_durations *durations; /* NULL: none given */
    struct pd_tally tally;                /* its jobs per runner */
    struct pd_found found; /* its rule findings */
};


struct entry {
    enum entry_type type;
    uint32_t file, line; /* where it is written (its key), as the side numbers its files */
    uint32_t body;       /* a literal block's first line (its lines are the value's), or 0 */
    const char *name, *value, *json; /* NUL-terminated copies in the entries' buffer */
};

struct entries {
    struct entry *v;
    size_t n;
    char *text;
};


/* ---------- recording a side ---------- */

struct fanout_count {
    struct hkey id;
    uint32_t jobs;
};

/* A rendered step (groups flattened). */
struct step_rec { /* 72 bytes: the 64-bit members first, no padding between */
    struct hkey id;
    uint64_t digest;
    /* its texts in the spool, one after the other from `off`: the job packed (its
     * entries: pd_entries_read), the configuration's label (a matrix job's values), its
     * values by name (pd_row_text), the job's own label (pd_job_title), its identity;
     * written together, one offset says where each is */
    uint64_t off;
    uint32_t seq;
    uint32_t shard, shards;
    uint32_t data_len, label_len, row_len, title_len, id_len;
    uint32_t file, line; /* where it is written */
};


/* One job of a logical step, in the side's shard spool (`shards` of them in a row). */
struct shard_tuple {
    uint64_t digest, off; /* off: its texts, as step_rec's */
    uint32_t data_len, label_len, row_len, title_len;
    uint32_t file, line;
};

/* Where a job's label, row and title are in its side's spool. */
static inline uint64_t pd_label_at(const struct shard_tuple *t)
{
    return t->off + t->data_len;
}

static inline uint64_t pd_row_at(const struct shard_tuple *t)
{
    return pd_label_at(t) + t->label_len;
}

static inline uint64_t pd_title_at(const struct shard_tuple *t)
{
    return pd_row_at(t) + t->row_len;
}

/* A logical step: a step as written, its shards together. */
struct logical {
    struct hkey lid;   /* the identity, with the repeat number */
    uint32_t first;    /* seq of its first step */
    uint32_t rank;     /* its place among the logical steps of its rendering */
    uint32_t shards, repeat;
    uint32_t parent;   /* the step a derived one took its name from exists on this side */
    uint32_t matrix;   /* its jobs are a matrix's configurations, told apart by label */
    uint32_t id_len;
    uint32_t file, line; /* where its first job is written */
    uint64_t id_off;
    uint64_t tuples_off; /* its shards' tuples in the shard spool */
    /* its jobs' digests and packed lengths, in order, as one: a matched step whose jobs
     * are all alike is told without reading its tuples back */
    uint64_t jobs;
};

enum phase { PH_BASE, PH_HEAD, PH_MOVES, PH_OUTSIDE, PH_FOUND };

/* Markdown's headings, in its order (the other formats keep one list); G_FOUND: the rule
 * findings the change introduces (pipediff_findings.c). */
enum group { G_NOT_RUN, G_ADDED, G_REMOVED, G_RENAMED, G_CHANGED, G_RESHARDED, G_MOVED, G_FOUND };

struct finding_rec {
    uint32_t group, block, phase, rank, sub;
    uint32_t len;
    uint64_t off;
};


/* What a finding says: each part a text, or NULL. */
enum part {
    P_KIND,   /* added, removed, renamed, changed, shards (re-sharded), moved; finding (a rule's) */
    P_ID,     /* the step's identity (HEAD's; BASE's for a removal); a finding's rule */
    P_FROM,   /* a rename: BASE's identity */
    P_JOBS,   /* the jobs of a fan-out a change is about ("shards 1-3"); NULL: the step */
    P_FILE,   /* where the step is written (HEAD; BASE for a removal) */
    P_LABEL,  /* its label */
    P_DETAIL, /* the text after "<id>: " */
    P_FIELD,  /* a changed field, its values as shown and as JSON (NULL: none that side) */
    P_OLD,
    P_NEW,
    P_OLD_JSON,
    P_NEW_JSON,
    P_EXTRA_JSON, /* more members of its JSON object ("\"count\": 4") */
    P_MORE,       /* lines under it (an added step's jobs and commands) */
    P_FULL,       /* lines only markdown shows, in <details> (full values, values by job) */
    P_HUNKS,      /* a multi-line value's lines changed: unified hunks (textdiff_texts) */
    P_ADDED,      /* a list's items added and removed, as shown, one a line */
    P_REMOVED,
    P_REACH,      /* a top-level env's change: the jobs it reaches, all of them ("37") */
    P_MARK_FILE, /* where an annotation goes (HEAD's file of the changed field; "": no
                    file); NULL: FILE:LINE */
    P_MARK_NOTE, /* why it goes there, for a reader of the annotation */
    P_REASON,    /* a step HEAD's CI will not run for the change: why */
    P_SEVERITY,  /* a rule finding's: error, warning, note */
    N_PARTS
};

struct finding {
    const char *part[N_PARTS];
    uint32_t line;
    uint32_t col;  /* line's column, where a finding of a rule has one; else 0 */
    uint32_t mark; /* P_MARK_FILE's line */
    bool words; /* P_OLD and P_NEW are the words that differ, over several jobs */
};

/* A matched step, for the moves: its ranks, and HEAD's identity and jobs. */
struct pair_rec {
    uint32_t base_rank, head_rank;
    uint32_t repeat, id_len, shards;
    uint64_t id_off, tuples_off;
};


struct report {
    const struct dialect *dialect; /* the base's: its words for a fan-out */
    enum pd_format format;
    FILE *out;
    unsigned added, removed, renamed, changed, moved, resharded;
    unsigned not_run;  /* steps the change edits that HEAD's CI will not run for it */
    bool change_known; /* HEAD was rendered for a change (its not-run steps are known) */
    bool json_first;
    FILE *spool;         /* the findings' texts */
    uint64_t spool_len;
    struct xsort *findings;
    /* the matched steps (struct pair_rec) as they are compared, for the moves; and by
     * BASE's rank, HEAD's rank of that step (UINT32_MAX: not matched) */
    FILE *pairs;
    uint32_t *head_rank;
    uint32_t n_ranks;
    struct blob blob;
    uint32_t block;      /* which of the sides' dialects is being compared (0: the first) */
    bool failed;
    struct pd_runners runners;
    struct pd_sarif *sarif; /* --format sarif's log (pipediff_sarif.c) */
    struct pd_callers *callers; /* the jobs that stopped naming a job (pipediff_fanref.c) */
    struct pd_parents *parents; /* matched steps' lines, for a removed derived job's parent */
};


/* Where a finding points. */
struct where {
    const char *file; /* NULL: nowhere (the pipeline) */
    uint32_t line;
    char *label;      /* the jobs' labels as one (summarize), else the first's; NULL: none
                         (or the same as the identity) */
};


/* A step both sides have, being compared. */
struct step_ctx {
    struct side *base, *head;
    const struct logical *b, *h;
    struct shard_tuple *tb, *th; /* their jobs */
    const char *id;              /* HEAD's identity */
    struct where at;             /* HEAD's step: its first job, every job's label */
    enum group group;            /* where markdown lists its changes (changed, or renamed) */
    uint32_t sub;                /* the next finding's place under the step */
    bool vectors;                /* its matrix gained or lost a vector (pipediff_vectors.c) */
};

/* A step one side has alone, as a rename candidate: its first job's compared fields. */
struct candidate {
    struct logical l;
    struct field_digest {
        uint64_t name, value;
    } *fields; /* by name */
    size_t n;
    bool paired;
};

/* Whether `name` (len bytes) is `want`; `field` (NULL: no field); one of `list`
 * (NULL-terminated; NULL: none). Inline, and the first byte first: every field of every
 * job asks its dialect's table so. */
static inline bool pd_is_name(const char *name, size_t len, const char *want)
{
    return (len ? *name == *want : !*want) && len == strlen(want) && !memcmp(name, want, len);
}

static inline bool pd_is_field(const char *field, const char *name, size_t len)
{
    return field && pd_is_name(name, len, field);
}

static inline bool pd_in_list(const char *const *list, const char *name, size_t len)
{
    for (; list && *list; list++) {
        if (pd_is_name(name, len, *list))
            return true;
    }
    return false;
}

/* ---------- a changed field, as a reader is shown it ---------- */

/* One side's value of a field: as its entry shows it, and as JSON (NULL: the side has
 * none, and `shown` reads "(none)"). */
struct pd_value {
    const char *shown; /* without a digest */
    const char *json;
    bool raw;          /* shown is a scalar's own text (a job's item's field), not flow style */
    bool cut;          /* shown is cut at VALUE_MAX */
};

/* A field's change in one job (pipediff_change.c), in one of three forms: a list's
 * items added and removed (items_json set), a multi-line text's lines (hunks set), else
 * its values on one line. */
struct change {
    char *detail, *field;
    char *old_v, *new_v;       /* the values as shown, around their first difference */
    char *old_w, *new_w;       /* whole (NULL: as shown), for the words several jobs differ by */
    char *old_json, *new_json; /* NULL: no such value that side */
    char *hunks;               /* the unified hunks of its lines (textdiff_texts) */
    char *added, *removed;     /* the items only one side has, as shown, one a line */
    char *items_json;          /* and as the JSON report's member ("\"items\": {...}") */
    bool cut;                  /* old_v or new_v is cut (pd_window) */
    bool done;                 /* reported */
    uint32_t file, line;       /* where HEAD writes what changed (line 0: unknown) */
};

/* pipediff_change.c */
/* How field `field` changed from a to b (`commands`: a list of it is a command list, read
 * as lines), into *ch (its strings malloc'd). 0, or -1 when out of memory. */
int pd_value_change(struct change *ch, const char *field, bool commands, const struct pd_value *a,
                    const struct pd_value *b);
/* Items of two lists a change passes over: `item` of side `side` (0: a's) says nothing
 * a reader needs (pipediff_fanref.c: a target's fan-out, reported at the target). */
struct pd_skip {
    bool (*item)(void *user, const struct ynode *a, const struct ynode *b, const struct ynode *item, unsigned side);
    void *user;
};
/* pd_value_change, but a list's items `skip` passes over (NULL: none) are not changes:
 * 1 (*ch empty) when nothing else changed. */
int pd_value_change_skip(struct change *ch, const char *field, bool commands, const struct pd_value *a,
                         const struct pd_value *b, const struct pd_skip *skip);
void pd_change_free(struct change *ch);
/* A finding's parts that show change `ch` in its form: its lines' hunks, a list's items. */
void pd_finding_form(struct finding *f, const struct change *ch);
/* Finding f's parts that show change `ch`: its field, its values as shown and as JSON,
 * its form, and when a value is cut the whole values markdown shows (*full, malloc'd,
 * else NULL). 0, or -1 when out of memory. */
int pd_change_parts(struct finding *f, const struct change *ch, char **full);

/* pipediff_values.c */
void pd_text_add(struct text *t, const char *s, size_t n);
void pd_show(struct text *t, const struct ynode *n);
/* `n` on one line as pd_show shows it but whole, NUL-terminated in `b` (which it
 * returns); NULL when out of memory. */
const char *pd_show_whole(struct blob *b, const struct ynode *n);
/* A value's JSON (an entry's) read back into a tree, or NULL when out of memory. */
struct ynode_doc *pd_json_read(const char *json);
/* What a reader is shown of value `s` that differs from `other` (both as pd_show_whole
 * shows them): all of it when both are at most VALUE_MAX characters, else the part
 * around the first difference, "..." where it is cut (*cut says whether it is), at most
 * VALUE_MAX characters of it. Malloc'd; NULL when out of memory. */
char *pd_window(const char *s, const char *other, bool *cut);
int pd_blob_add(struct blob *b, const void *p, size_t n);
/* Room for n more bytes at b->buf + b->len (b->len unchanged): where they go, or NULL
 * when out of memory. */
char *pd_blob_reserve(struct blob *b, size_t n);
int pd_blob_str(struct blob *b, const char *s, size_t n);
uint64_t pd_node_hash(const struct ynode *n, uint64_t h);
uint64_t pd_entry_hash(const char *name, size_t len, const struct ynode *v, uint64_t salt);
bool pd_summarize(char *buf, size_t cap, char *const *t, unsigned m);
void pd_differing_words(const char *a, const char *b, size_t span[2][2]);

/* pipediff_codec.c */
const char *pd_job_title(const struct dialect_diff *dd, const struct ynode *job, size_t *len);
/* `n` in JSON on one line, typed as `render --format json` types it (NUL-terminated in
 * s->json); NULL when it cannot be written. */
const char *pd_json_of(struct side *s, const struct ynode *n);
ssize_t pd_json_write(void *user, const char *buf, size_t n);
/* Job `step` as it renders: its digest into *digest, the job packed at the end of out. */
int pd_serialize(struct side *s, const struct ynode *step, uint64_t *digest, struct blob *out);
/* The entries of the job packed at `off` (`len` bytes) of s->spool. */
int pd_entries_read(struct side *s, uint64_t off, uint32_t len, struct entries *es);
void pd_entries_free(struct entries *es);
const struct entry *pd_entry_find(const struct entries *es, enum entry_type type,
                                  const char *name);
int pd_row_text(struct blob *b, const struct ynode *row);
const struct entry *pd_field_entry(const struct entries *es, const char *name);
/* The dialect's command field `name` (a field that holds what a job runs), or NULL. */
const struct dialect_command *pd_command_field(const struct dialect_diff *dd, const char *name, size_t len);
bool pd_has_type(const struct entries *es, enum entry_type type);

/* pipediff_builds.c */
/* The path of `path` within operand `spec`: relative to a directory, "" for the operand
 * itself (two files compared are one file at two times). */
const char *pd_operand_path(const char *spec, const char *path);
/* One side's files and their builds (render_builds: NULL, one build). */
struct pd_builds_side {
    const char *spec;
    const char *const *paths;
    size_t n;
    const unsigned *first;
};
/* Each file's build, named alike on both sides: scope[side][file], the hash of the path
 * of the file that names its build (new arrays). A BASE build and a HEAD build that share
 * a file (by path within the operand) are one build, and so on through the files they
 * share; such a build is named by its first file of BASE, else its first of HEAD. 0, or
 * -1 when out of memory. */
int pd_builds_match(const struct pd_builds_side side[2], struct hkey *scope[2]);

/* pipediff_side.c */
int pd_hkey_cmp(const struct hkey *a, const struct hkey *b);
/* Whether `n` is one of the current item's jobs. */
bool pd_is_job(const struct side *s, const struct ynode *n);
/* Identity `id` of something in file `file`, scoped to its path within the operand. */
struct hkey pd_scope_to_file(const struct side *s, unsigned file, struct hkey id);
struct hkey pd_hkey_mix(struct hkey k, uint64_t a, uint64_t b);
const char *pd_path_in_operand(const struct side *s, unsigned file);
void pd_side_free(struct side *s);
char *pd_display_id(struct side *s, uint64_t off, uint32_t len, uint32_t repeat);
/* The rank in rendering order of s's logical step that begins with job `first`. */
uint32_t pd_logical_rank(const struct side *s, uint32_t first);
/* len bytes of s's spool at `off` (once it is written) into buf: 0, or -1. Read with
 * pread through s->window: a seek and a read of stdio's for each text made most of
 * the system calls of comparing a changed step. */
int pd_spool_read(struct side *s, uint64_t off, void *buf, size_t len);
/* n shard tuples at `off` of s->shards into t: 0, or -1 when they cannot be read. */
int pd_shards_read(struct side *s, uint64_t off, struct shard_tuple *t, uint32_t n);
struct shard_tuple *pd_read_tuples(struct side *s, const struct logical *l);
/* The same into buf when its cap tuples hold them (every matched step is read, most have
 * one job): buf, a malloc'd array, or NULL. */
struct shard_tuple *pd_read_tuples_into(struct side *s, const struct logical *l, struct shard_tuple *buf,
                                        size_t cap);
char *pd_spooled(struct side *s, uint64_t off, uint32_t len);
const char *pd_job_label(struct side *s, const struct shard_tuple *t, unsigned i, char *buf, size_t cap);
const char *pd_side_file(const struct side *s, uint32_t file);
const char *pd_skip_reason(struct side *s, const char *id, const char *row);
/* The identity of a job `id` (len bytes) written in file `file` of side s. */
struct hkey pd_identity(const struct side *s, unsigned file, const char *id, size_t len);
/* Identity `id` of something keyed in file `file` (a job, a group) scoped as ids are
 * unique: to the file where the dialect's ids are the file's, to its build (named alike
 * on both sides: pd_builds_match) where a side's files are several builds, else not. */
struct hkey pd_scope_id(const struct side *s, unsigned file, struct hkey id);
/* The build of file `file` (pd_builds_match's name; all alike when no side's files are
 * several builds). */
struct hkey pd_build_of(const struct side *s, unsigned file);
/* How many jobs the step of identity `id` has on side s (1: none, or not a fan-out). */
unsigned pd_fanout_jobs(const struct side *s, struct hkey id);
/* The identity of the job that job `id` is derived from by rule `derived` (a pointer
 * into `id`), or NULL when it is not derived (or `derived` is NULL). */
const char *pd_parent_of(const struct dialect_derived *derived, const char *id);
/* Its jobs' runners are added to rs->side[which]; `scope`: its files' builds
 * (pd_builds_match; NULL: one build), kept by the caller until s is freed. */
int pd_render_side(const char *spec, const char *const *paths, size_t n, const struct render_opts *opts,
                   const struct pd_opts *pd, struct pd_runners *rs, unsigned which, const struct hkey *scope,
                   struct side *s, struct diag *d);

/* pipediff_report.c */
int pd_finding_cmp(const void *pa, const void *pb);
void pd_add_finding(struct report *r, enum phase phase, uint32_t rank, uint32_t sub, enum group group,
                    const struct finding *f);
int pd_where_of(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n,
                const char *id, struct where *w);
char *pd_jobs_text(struct side *s, const struct shard_tuple *t, const unsigned *idx, unsigned n);
void pd_finding_init(struct finding *f, const char *kind, const char *id, const struct where *w,
                     const char *detail);
/* Prints the findings in order and the summary (`same`: no finding) in r's format. 0, or
 * -1 when out of memory or temporary space. */
int pd_print_report(struct report *r, bool same);

/* pipediff_findings.c */
/* Begins recording side s's findings: the diag to render it into (its findings held,
 * the rest reported into d), or NULL when out of memory. */
struct diag *pd_found_begin(struct pd_found *f, struct side *s, struct diag *d);
/* A job of the side is written at (file, line), its identity `id`. */
void pd_found_job(struct pd_found *f, uint32_t file, uint32_t line, struct hkey id);
/* The jobs recorded so far are not the rendering's (render's second pass sends them again). */
void pd_found_forget_jobs(struct pd_found *f);
/* The side is recorded: each finding given its job and its key. 0, or -1 when out of
 * memory or temporary space. */
int pd_found_end(struct pd_found *f);
/* Reports into d HEAD's findings `mode` asks for (new: those BASE does not have), and adds
 * them to report r (kind `finding`). 0, or -1. */
int pd_report_findings(enum pd_findings mode, struct pd_found *base, struct pd_found *head, struct diag *d,
                       struct report *r);
void pd_found_free(struct pd_found *f);

/* pipediff_sarif.c */
/* The log begun on r->out (0, or -1 when out of memory); change f (`text`, its line) a
 * result at `file`:`line` (NULL: a notification); the log ended with the summary
 * (0, or -1); its state freed. */
int pd_sarif_begin(struct report *r);
void pd_sarif_finding(struct report *r, const char *file, uint32_t line, uint32_t col, const struct finding *f,
                      const char *text);
int pd_sarif_end(struct report *r, const char *summary);
void pd_sarif_free(struct report *r);

/* pipediff_compare.c */
void pd_compare_matched(struct report *r, struct side *base, struct side *head, const struct logical *b,
                        const struct logical *h, const char *from, unsigned similarity);
void pd_compare(struct report *r, struct side *base, struct side *head);

/* pipediff_unmatched.c */
unsigned pd_similarity(const struct candidate *a, const struct candidate *b);
void pd_report_unmatched(struct report *r, struct side *base, struct side *head);
void pd_unmatched_add(struct report *r, struct side *s, const struct logical *l);
/* HEAD's step h (its jobs t) matched one of BASE: where a removed job derived from it (a
 * test-area AMD mirror) is annotated; kept for a dialect with derived jobs, at most
 * PARENTS_MAX of them. */
void pd_parents_note(struct report *r, const struct side *head, const struct logical *h);
void pd_parents_free(struct report *r);

/* pipediff_notrun.c */
/* The not-run hook of HEAD's rendering (dialect_not_run_fn, user: the side). */
int pd_not_run_record(void *user, const char *id, size_t len, const char *why, struct ypos pos);
void pd_not_run_forget(struct side *s);
/* When HEAD's CI will not run logical step `h` (tuples `t`, at `w`, shown as `id`),
 * which the change adds or changes (`added`), its line, recorded at (phase, rank, sub). */
void pd_not_run_report(struct report *r, struct side *head, const struct logical *h, const struct shard_tuple *t,
                       const struct where *w, const char *id, bool added, enum phase phase, uint32_t rank,
                       uint32_t sub);

/* pipediff_fanref.c */
/* What tells a reference item a fan-out rewrote: the sides, and the file of the job that
 * names it on each (BASE's, HEAD's). */
struct pd_fanref {
    struct side *base, *head;
    unsigned file[2];
};
/* For struct pd_skip (user: a pd_fanref): whether `item` of list a (side 0) or b names a
 * target whose job count differs between the sides, or one of its jobs, while the other
 * list names that target too: a rewrite the target's own line reports. */
bool pd_fanout_item(void *user, const struct ynode *a, const struct ynode *b, const struct ynode *item, unsigned side);

/* A matched job of HEAD whose reference list (needs, depends_on) lost items (`ch`, a
 * change of its dialect's reference field; the job `id` in HEAD's file `job_file`, its
 * first line `at`): where a removed job those items named is annotated. */
void pd_callers_note(struct report *r, struct side *head, uint32_t job_file, const char *id, const struct where *at,
                     const struct change *ch);
/* Where the first (in HEAD's order) of the jobs of its build that named job `id` (len
 * bytes; BASE's file `file` of side `base`) in BASE and not in HEAD writes that list:
 * *file (HEAD's), *line, and *caller its identity (valid until pd_callers_free); false
 * when none. */
bool pd_callers_find(const struct report *r, const struct side *base, uint32_t file, const char *id, size_t len,
                     const char **file_name, uint32_t *line, const char **caller);
void pd_callers_free(struct report *r);

/* pipediff_vectors.c */
/* A matrix's configurations (rows[side]: row texts, n[side] of them) when one side has
 * vectors the other has not: those that have the same values for the other vectors
 * paired, each HEAD configuration with the first BASE one (pairs[k]: BASE's, HEAD's;
 * *matched of them; at most n[1]), their extra[] cleared, and *phrase (malloc'd) says
 * the vectors ("vector os added (2 values)"). How many vectors (0: none, and nothing
 * paired), or -1 when out of memory. */
int pd_match_vectors(char **rows[2], const unsigned n[2], bool *extra[2], unsigned (*pairs)[2], unsigned *matched,
                     char **phrase);

/* pipediff_toplevel.c: what is outside the jobs, by field path */
struct pd_outside;
/* For a side of n_files files; NULL when out of memory. */
struct pd_outside *pd_outside_create(size_t n_files);
void pd_outside_destroy(struct pd_outside *o);
/* Records what item (its document's root) holds besides its jobs (s->jobs, sorted). 0,
 * or -1 when out of memory or temporary space. */
int pd_outside_item(struct side *s, const struct stream_item *item, const struct ynode *root);
/* Reports every value outside the jobs that differs, in a file or group both sides
 * have (r->failed when out of memory). */
void pd_outside_compare(struct report *r, struct side *base, struct side *head);

/* pipediff_moves.c */
/* Sets keep[i] for the elements of one longest strictly increasing subsequence of
 * ranks[0..n) (the last of those ending lowest, found by patience sorting), the others
 * false; an element UINT32_MAX is none (kept false). Its length, or -1 when out of
 * memory. */
long pd_longest_increasing(const uint32_t *ranks, size_t n, bool *keep);
/* Readies r for the matched steps of `base`'s comparison: 0, or -1 when out of memory or
 * temporary space. pd_moves_end frees what it made. */
int pd_moves_begin(struct report *r, const struct side *base);
void pd_moves_end(struct report *r);
/* Notes matched step p: 0, or -1 when it cannot be written. */
int pd_moves_note(struct report *r, const struct pair_rec *p);
int pd_report_moves(struct report *r, struct side *head);

#endif

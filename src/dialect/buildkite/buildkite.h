/* buildkite: what the Buildkite dialect's files share besides Buildkite's own rules
 * (steps.h): the dialect's options (options.c) and its state for a run. */
#ifndef FANOUT_BK_BUILDKITE_H
#define FANOUT_BK_BUILDKITE_H

#include "fanout/dialect.h"

/* How the agent's reader keeps a document's steps (buildkite.c): a key given twice in one
 * mapping keeps its first place and its last value, as go-pipeline's ordered.Map.Set
 * keeps it (ordered/yaml.go decodes each mapping with it), without a word. */
extern const struct stream_shape buildkite_steps_shape[];

/* The dialect's options (buildkite.c), in this order. */
enum bk_option {
    BK_OPT_ALLOW_PLACEHOLDERS, /* %N in a step without parallelism is not an error */
    BK_OPT_ENV,                /* upload-time interpolation's variables (bkinterp.h) */
    BK_OPT_ENV_FILE,
    BK_OPT_ENV_FROM_ENVIRONMENT,
    BK_OPT_NO_INTERPOLATION,
};
extern const struct dialect_option bk_options[];

/* The dialect's own part of the options: the variables upload-time interpolation knows
 * (NULL: none given, interpolation on). */
struct bk_own_options {
    struct bkinterp_vars *vars;
};

/* The dialect's `option` and `options_free` entries (options.c). */
int bk_option(void *own, const struct dialect_option *opt, const char *arg, const struct dialect_option_io *io);
void bk_options_free(void *own);

/* The dialect's state for a run (dialect_ctx.state; without one every unknown key is
 * reported): the run's interpolation, and the unknown keys warned about in file
 * `warned_file`. */
/* The keys of the last step steplint_keys checked that are known, by their place: a
 * step's keys are mostly the step before's, in its order, and one equal to the key at
 * its place is known without searching the type's lists (bk_known_key was most of the
 * check). */
#define BK_KNOWN_KEYS 16
#define BK_KNOWN_KEY_BYTES 24
struct bk_known {
    int kind;                                            /* enum bk_kind the keys are known for */
    unsigned char len[BK_KNOWN_KEYS];                    /* 0: no known key at this place */
    char text[BK_KNOWN_KEYS][BK_KNOWN_KEY_BYTES];
};

struct bk_state {
    struct bkread *read;
    struct bkinterp *interp;
    struct strset *warned;
    unsigned warned_file;
    struct bk_known known; /* steplint_keys' */
    struct dialect_run_copies copies; /* expand.c: steps' jobs' nodes in the run (copies_charge) */
};

#endif

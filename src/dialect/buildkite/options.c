/* options: the Buildkite dialect's options (--allow-placeholders, and the variables of
 * upload-time interpolation: --env, --env-file, --env-from-environment,
 * --no-interpolation). */
#include <stdio.h>

#include "fanout/dialect.h"

#include "bkinterp.h"
#include "buildkite.h"

const struct dialect_option bk_options[] = {
    [BK_OPT_ALLOW_PLACEHOLDERS] = {"allow-placeholders", false, NULL, false, DIALECT_OPTION_RENDER,
                                   "      --allow-placeholders   accept %N-style placeholders in steps without parallelism\n",
                                   "strict", OPTION_NOT_PATH},
    [BK_OPT_ENV] = {"env", true, NULL, false, DIALECT_OPTION_RENDER,
                    "      --env NAME=VALUE       Buildkite: a variable `pipeline upload` interpolates\n"
                    "                             ($NAME, ${NAME:-default}); one not given is kept as\n"
                    "                             written, with a note (repeatable)\n",
                    NULL, OPTION_NOT_PATH},
    [BK_OPT_ENV_FILE] = {"env-file", true, NULL, false, DIALECT_OPTION_RENDER,
                         "      --env-file FILE        Buildkite: variables from NAME=VALUE lines (a .env\n"
                         "                             file, the agent's $BUILDKITE_ENV_FILE)\n",
                         NULL, OPTION_PATH},
    [BK_OPT_ENV_FROM_ENVIRONMENT] = {"env-from-environment", false, NULL, false, DIALECT_OPTION_RENDER,
                                     "      --env-from-environment\n"
                                     "                             Buildkite: fanout's own environment is the\n"
                                     "                             upload's (a variable not in it is unset)\n",
                                     NULL, OPTION_NOT_PATH},
    [BK_OPT_NO_INTERPOLATION] = {"no-interpolation", false, NULL, false, DIALECT_OPTION_RENDER,
                                 "      --no-interpolation     Buildkite: read the pipeline as written (the\n"
                                 "                             agent's `pipeline upload --no-interpolation`)\n",
                                 NULL, OPTION_NOT_PATH},
    {NULL, false, NULL, false, 0, NULL, NULL, OPTION_NOT_PATH},
};

/* The options of upload-time interpolation, into the variables (made on first use);
 * --allow-placeholders is read where it applies (dialect_options_value). */
int bk_option(void *own, const struct dialect_option *opt, const char *arg,
                     const struct dialect_option_io *io)
{
    extern char **environ;
    struct bk_own_options *o = own;
    struct diag *d;
    const char *bad;
    int rc;

    if (opt == &bk_options[BK_OPT_ALLOW_PLACEHOLDERS])
        return 0;
    if (!o->vars && !(o->vars = bkinterp_vars_create()))
        return io->usage("out of memory", NULL);
    switch ((enum bk_option)(opt - bk_options)) {
    case BK_OPT_ENV:
        return (bad = bkinterp_vars_set(o->vars, arg)) ? io->usage(bad, arg) : 0;
    case BK_OPT_ENV_FILE:
        if (!(d = diag_create(stderr, io->format)))
            return io->usage("out of memory", NULL);
        rc = bkinterp_vars_read(o->vars, arg, d);
        diag_destroy(d);
        return rc == 0 ? 0 : DIAG_INPUT; /* the file's messages said why */
    case BK_OPT_ENV_FROM_ENVIRONMENT:
        return bkinterp_vars_take_environment(o->vars, environ) == 0 ? 0 : io->usage("out of memory", NULL);
    case BK_OPT_NO_INTERPOLATION:
    case BK_OPT_ALLOW_PLACEHOLDERS:
        break;
    }
    bkinterp_vars_off(o->vars);
    return 0;
}

void bk_options_free(void *own)
{
    bkinterp_vars_destroy(((struct bk_own_options *)own)->vars);
}

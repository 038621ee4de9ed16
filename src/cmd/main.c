#include <signal.h>

#include "fanout/cli.h"
#include "fanout/output.h"

int main(int argc, char **argv)
{
    output_guard_std();
    /* A write to a closed pipe fails (EPIPE) instead of killing fanout at once: it ends
     * by SIGPIPE where the failure is seen (output_stdout_gone), after the temporary
     * files are gone, or is a write error when it was another file. */
    signal(SIGPIPE, SIG_IGN);
    return cli_main(argc, argv);
}

#include <signal.h>

#include "fanout/cli.h"
#include "fanout/output.h"

int main(int argc, char **argv)
{
    output_guard_std();
    /* A closed pipe is a write error with a message and exit 2, not a silent death. */
    signal(SIGPIPE, SIG_IGN);
    return cli_main(argc, argv);
}

/* cli: subcommands, options and exit codes of the `fanout` command. */
#ifndef FANOUT_CLI_H
#define FANOUT_CLI_H

/* What `fanout --version` prints: `git describe` of the build's checkout (Makefile). */
extern const char fanout_version[];
#define FANOUT_VERSION fanout_version

/* Exit codes: 0 ok, 1 findings, 2 usage, input or I/O error. */
int cli_main(int argc, char **argv);

#endif

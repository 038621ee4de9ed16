/* cli: subcommands, options and exit codes of the `fanout` command. */
#ifndef FANOUT_CLI_H
#define FANOUT_CLI_H

#define FANOUT_VERSION "0.1.0"
/* Where fanout is published (the SARIF log's informationUri): the README's <owner>. */
#define FANOUT_URL "https://github.com/OWNER/fanout"

/* Exit codes: 0 ok, 1 findings, 2 usage, input or I/O error. */
int cli_main(int argc, char **argv);

#endif

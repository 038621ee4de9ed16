/* rules: every rule a message of fanout can name, with what it means; for --ignore and
 * the config's `rules:` (an unknown rule is a usage error with a suggestion), and for
 * `fanout help rules`. JSON Schema keywords (`type`, `required`...) are rules too: a
 * schema violation names its keyword. */
#ifndef FANOUT_RULES_H
#define FANOUT_RULES_H

#include <stdbool.h>
#include <stdio.h>

bool rules_known(const char *rule);

/* The known rule closest to a mistyped one, or NULL. */
const char *rules_suggest(const char *rule);

/* Every rule, one a line: name, what fires it. */
void rules_print(FILE *out);

#endif

/* rules: every rule a message of fanout can name, with what it means (the list is
 * rules.def). A message names its rule by id (diag_report takes an enum rule_id), so a
 * rule that is not listed cannot be reported; --ignore and the config's `rules:` find a
 * rule by name (an unknown one is a usage error with a suggestion), and `fanout help
 * rules` prints the list. JSON Schema keywords (`type`, `required`...) are rules too: a
 * schema violation names its keyword. */
#ifndef FANOUT_RULES_H
#define FANOUT_RULES_H

#include <stdio.h>

enum rule_id {
    RULE_NONE = 0, /* a message of no rule */
#define RULE(id, name, meaning) RULE_##id,
#define KEYWORD(id, name) RULE_##id,
#include "fanout/rules.def"
#undef RULE
#undef KEYWORD
    RULE_COUNT
};

/* The name messages show (`[yaml]`); "" for RULE_NONE. */
const char *rule_name(enum rule_id rule);

/* What fires `rule` (`fanout help rules`'s second column), or NULL for a JSON Schema
 * keyword (which has no meaning of its own) and RULE_NONE. */
const char *rule_meaning(enum rule_id rule);

/* A rule's description for a report's rule list: its meaning, or for a JSON Schema keyword
 * what failed, written into `buf` (RULE_DESCRIPTION_MAX bytes). Never NULL. */
#define RULE_DESCRIPTION_MAX 96
const char *rule_describe(enum rule_id rule, char buf[RULE_DESCRIPTION_MAX]);

/* The rule named `name`, or RULE_NONE. */
enum rule_id rules_find(const char *name);

/* The known rule closest to a mistyped one, or NULL. */
const char *rules_suggest(const char *name);

/* Every rule, one a line: name, what fires it. */
void rules_print(FILE *out);

#endif

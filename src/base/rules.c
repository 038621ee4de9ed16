#include "fanout/rules.h"

#include <stdio.h>
#include <string.h>

#include "fanout/suggest.h"

/* Names by id, then NULL (the words rules_suggest compares with). */
static const char *const names[RULE_COUNT + 1] = {
    [RULE_NONE] = "",
#define RULE(id, name, meaning) [RULE_##id] = name,
#define KEYWORD(id, name) [RULE_##id] = name,
#include "fanout/rules.def"
#undef RULE
#undef KEYWORD
};

/* Meanings by id (NULL: a keyword, or none). */
static const char *const meanings[RULE_COUNT] = {
#define RULE(id, name, meaning) [RULE_##id] = meaning,
#define KEYWORD(id, name)
#include "fanout/rules.def"
#undef RULE
#undef KEYWORD
};

const char *rule_name(enum rule_id rule)
{
    return rule < RULE_COUNT ? names[rule] : "";
}

const char *rule_meaning(enum rule_id rule)
{
    return rule < RULE_COUNT ? meanings[rule] : NULL;
}

const char *rule_describe(enum rule_id rule, char buf[RULE_DESCRIPTION_MAX])
{
    const char *meaning = rule_meaning(rule);

    if (meaning)
        return meaning;
    snprintf(buf, RULE_DESCRIPTION_MAX, "a schema violation: the JSON Schema keyword %s failed", rule_name(rule));
    return buf;
}

enum rule_id rules_find(const char *name)
{
    for (int i = RULE_NONE + 1; i < RULE_COUNT; i++) {
        if (!strcmp(names[i], name))
            return (enum rule_id)i;
    }
    return RULE_NONE;
}

const char *rules_suggest(const char *name)
{
    size_t len = strlen(name);

    return suggest_closest(name, len, names + 1, suggest_limit(len));
}

void rules_print(FILE *out)
{
    for (int i = RULE_NONE + 1; i < RULE_COUNT; i++) {
        if (meanings[i])
            fprintf(out, "%-20s %s\n", names[i], meanings[i]);
    }
    fputs("\nA schema violation is named by its JSON Schema keyword (type, required, pattern...).\n"
          "Levels (the config's `rules:`): error, warning, off; --ignore RULE is off.\n", out);
}

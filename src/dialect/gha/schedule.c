/* schedule: a workflow's `on.schedule` crons as GitHub reads them. GitHub refuses a
 * workflow whose cron it cannot read ("invalid `cron` attribute": actions-rs/audit-check
 * #219's '0 0 0 * *', actions/starter-workflows #1475's "$cron-daily"); the schema takes any
 * string. What a cron may be is GitHub's language service's (@actions/workflow-parser
 * model/converter/cron.ts isValidCron, cron-constants.ts, whose converter says "Invalid
 * cron expression"): five fields split by spaces; each `*`, a number in the field's range,
 * a month's or day's three-letter name, `a-b` (not decreasing), `x/n` (n > 0, within the
 * range; a range or `*` before it) or a list of those; a value is what JavaScript's `+`
 * reads (1.5 and 0x1F are in 0-59), as the language service's is. */
#include <string.h>
#include <strings.h>

#include "fanout/expr.h"

#include "gha_internal.h"

struct cron_range {
    const char *field, *allowed;
    int min, max;
    const char *const *names; /* the values from min on, by name; NULL: none */
};

static const char *const month_names[] = {"jan", "feb", "mar", "apr", "may", "jun",
                                          "jul", "aug", "sep", "oct", "nov", "dec", NULL};
static const char *const day_names[] = {"sun", "mon", "tue", "wed", "thu", "fri", "sat", NULL};

static const struct cron_range cron_fields[] = {
    {"minute", "0-59", 0, 59, NULL},
    {"hour", "0-23", 0, 23, NULL},
    {"day of the month", "1-31", 1, 31, NULL},
    {"month", "1-12 or jan-dec", 1, 12, month_names},
    {"day of the week", "0-6 or sun-sat", 0, 6, day_names},
};

/* The value of a name of the range in s[0, len), or -1. */
static int named(const struct cron_range *r, const char *s, size_t len)
{
    for (size_t i = 0; r->names && r->names[i]; i++) {
        if (len == strlen(r->names[i]) && !strncasecmp(s, r->names[i], len))
            return r->min + (int)i;
    }
    return -1;
}

/* convertToNumber: a name's value, else what JavaScript's `+` reads (NaN: none). */
static double value_of(const struct cron_range *r, const char *s, size_t len)
{
    int v = named(r, s, len);

    return v >= 0 ? v : expr_js_to_number(s, len);
}

/* validateCronPart: s[0, len) in range r; `separators` false inside a range or a step. */
static bool part_valid(const struct cron_range *r, const char *s, size_t len, bool separators)
{
    const char *sep;
    double n;

    if (named(r, s, len) >= 0 || (len == 1 && *s == '*'))
        return true;
    if ((sep = memchr(s, ',', len))) { /* a list: each of its pieces, none empty */
        if (!separators)
            return false;
        for (const char *p = s, *end = s + len; p <= end; p = sep + 1) {
            sep = memchr(p, ',', (size_t)(end - p));
            sep = sep ? sep : end;
            if (sep == p || !part_valid(r, p, (size_t)(sep - p), true))
                return false;
        }
        return true;
    }
    if ((sep = memchr(s, '/', len))) { /* start/step: one '/', a step > 0 in the range */
        const char *step = sep + 1;
        size_t step_len = len - (size_t)(step - s);

        n = expr_js_to_number(step, step_len); /* `+step`: NaN is no step */
        return separators && !memchr(step, '/', step_len) && n > 0 && step_len && sep > s &&
               part_valid(r, s, (size_t)(sep - s), true) && part_valid(r, step, step_len, false);
    }
    if ((sep = memchr(s, '-', len))) { /* a-b: one '-', neither empty, b not below a */
        const char *b = sep + 1;
        size_t a_len = (size_t)(sep - s), b_len = len - a_len - 1;
        return separators && a_len && b_len && !memchr(b, '-', b_len) && part_valid(r, s, a_len, false) &&
               part_valid(r, b, b_len, false) && value_of(r, b, b_len) >= value_of(r, s, a_len);
    }
    n = expr_js_to_number(s, len); /* `+value`: 1.5 and 0x1F too, NaN never in range */
    return n >= r->min && n <= r->max;
}

/* isValidCron, told field by field: the index of the first field GitHub does not read, 5
 * when there are not five (`*count` of them: cron.split(/ +/), a leading or trailing
 * space making an empty one), -1 when it reads them all. */
static int cron_bad_field(const char *s, size_t len, size_t *count)
{
    int bad = -1;

    *count = 0;
    for (size_t at = 0;;) {
        size_t end = at;

        while (end < len && s[end] != ' ')
            end++;
        if (bad < 0 && *count < 5 && !part_valid(&cron_fields[*count], s + at, end - at, true))
            bad = (int)*count;
        ++*count;
        if (end == len)
            return *count != 5 ? 5 : bad;
        while (end < len && s[end] == ' ')
            end++;
        at = end;
    }
}

void gha_check_schedule(struct gha_state *st, const struct ynode *on)
{
    const struct ynode *schedule = ynode_is_map(on) ? ynode_get(on, "schedule") : NULL;

    for (size_t i = 0; st->top.diag && ynode_is_seq(schedule) && i < ynode_len(schedule); i++) {
        const struct ynode *cron = ynode_get(ynode_item(schedule, i), "cron");
        size_t len;
        const char *text = ynode_is_string(cron) ? ynode_scalar(cron, &len) : NULL;

        size_t count;
        int bad = text && !gha_has_expression(cron) ? cron_bad_field(text, len, &count) : -1;

        if (bad == 5)
            diag_at(st->top.diag, DIAG_ERROR, DIAG_FINDING, st->top.files, ynode_pos(cron), RULE_CRON,
                    "cron '%.*s' has %zu fields split by spaces, where GitHub reads five (minute, hour, "
                    "day of the month, month, day of the week) and refuses the workflow",
                    (int)(len > 100 ? 100 : len), text, count);
        else if (bad >= 0)
            diag_at(st->top.diag, DIAG_ERROR, DIAG_FINDING, st->top.files, ynode_pos(cron), RULE_CRON,
                    "cron '%.*s': GitHub does not read its %s (field %d: %s, *, a-b, a list a,b or a step "
                    "x/n) and refuses the workflow", (int)(len > 100 ? 100 : len), text,
                    cron_fields[bad].field, bad + 1, cron_fields[bad].allowed);
    }
}

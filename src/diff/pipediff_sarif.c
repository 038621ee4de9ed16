#define _GNU_SOURCE /* open_memstream, asprintf */
/* pipediff_sarif: `diff --format sarif`, the report as one SARIF 2.1.0 log for code
 * scanning (diag_sarif.c writes its parts as it writes the messages' log). Each change is
 * a result at HEAD's line of what changed, as the github format annotates it: its ruleId
 * `diff-KIND`, level `note` (`warning` for a step HEAD's CI will not run for the change),
 * its text line as the message. A change with no file (the
 * pipeline's settings, a removed step HEAD has not the file of) cannot be a result, which
 * needs a location: it is a notification of the invocation, as is the summary. A rule
 * finding the change introduces is a result of its rule at its level. */
#include "pipediff_internal.h"

#include <stdlib.h>

/* The kinds of change, as rules of the driver. */
static const struct {
    const char *kind, *meaning;
} kinds[] = {
    {"added", "a step only HEAD has"},
    {"removed", "a step only BASE has"},
    {"renamed", "a step BASE has under another identity"},
    {"changed", "a field of a step both sides have changed"},
    {"shards", "a step's fan-out (parallelism, matrix) changed"},
    {"moved", "a step's place in the order changed"},
    {"not-run", "a step the change edits that HEAD's CI will not run for the change"},
};

#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

struct pd_sarif {
    bool any_result, used[N_KINDS];
    bool rules[RULE_COUNT]; /* the rules of the findings */
    FILE *notes; /* the notifications (a memstream over notes_buf) */
    char *notes_buf;
    size_t notes_len;
};

int pd_sarif_begin(struct report *r)
{
    if (!(r->sarif = calloc(1, sizeof(*r->sarif))) ||
        !(r->sarif->notes = open_memstream(&r->sarif->notes_buf, &r->sarif->notes_len)))
        return -1;
    diag_sarif_open(r->out);
    return 0;
}

static void note(struct pd_sarif *s, const char *text)
{
    fputs(ftello(s->notes) ? ",\n{\"level\":\"note\",\"message\":{\"text\":" : "\n{\"level\":\"note\",\"message\":{\"text\":",
          s->notes);
    diag_write_json_string(s->notes, text);
    fputs("}}", s->notes);
}

void pd_sarif_finding(struct report *r, const char *file, uint32_t line, uint32_t col, const struct finding *f,
                      const char *text)
{
    struct pd_sarif *s = r->sarif;
    char rule[32], *noted = NULL;
    /* a change its own CI will not run is a warning, as the github format's */
    enum diag_severity sev = f->part[P_REASON] ? DIAG_WARNING : DIAG_NOTE;

    /* where it is annotated, and why there */
    if (f->part[P_MARK_NOTE] && asprintf(&noted, "%s %s", text, f->part[P_MARK_NOTE]) >= 0)
        text = noted;
    for (size_t i = 0; i < N_KINDS; i++)
        s->used[i] |= !strcmp(kinds[i].kind, f->part[P_KIND]);
    snprintf(rule, sizeof(rule), "diff-%s", f->part[P_KIND]);
    if (f->part[P_SEVERITY]) {
        snprintf(rule, sizeof(rule), "%s", f->part[P_ID]);
        sev = !strcmp(f->part[P_SEVERITY], "error") ? DIAG_ERROR : !strcmp(f->part[P_SEVERITY], "warning") ? DIAG_WARNING : DIAG_NOTE;
        if (rules_find(rule) < RULE_COUNT)
            s->rules[rules_find(rule)] = true;
    }
    if (!file || !diag_sarif_is_artifact(file)) {
        note(s, text);
    } else {
        fputs(s->any_result ? ",\n" : "\n", r->out);
        diag_sarif_result(r->out, rule, sev, file, line, col, text);
        s->any_result = true;
    }
    free(noted);
}

int pd_sarif_end(struct report *r, const char *summary)
{
    struct pd_sarif *s = r->sarif;
    bool first = true;
    char description[RULE_DESCRIPTION_MAX];
    int rc;

    note(s, summary);
    fputs("\n],\"tool\":{\"driver\":{\"name\":\"fanout\",\"rules\":[", r->out);
    for (size_t i = 0; i < N_KINDS; i++) {
        if (!s->used[i])
            continue;
        fprintf(r->out, "%s\n{\"id\":\"diff-%s\",\"shortDescription\":{\"text\":\"%s\"}}", first ? "" : ",",
                kinds[i].kind, kinds[i].meaning);
        first = false;
    }
    for (int i = 0; i < RULE_COUNT; i++) {
        if (!s->rules[i])
            continue;
        fprintf(r->out, "%s\n{\"id\":\"%s\",\"shortDescription\":{\"text\":", first ? "" : ",",
                rule_name((enum rule_id)i));
        diag_write_json_string(r->out, rule_describe((enum rule_id)i, description));
        fputs("}}", r->out);
        first = false;
    }
    rc = fflush(s->notes);
    fputs("]}},\"invocations\":[{\"executionSuccessful\":true,\"toolExecutionNotifications\":[", r->out);
    fwrite(s->notes_buf, 1, s->notes_len, r->out);
    fputs("\n]}]}]}\n", r->out);
    return rc;
}

void pd_sarif_free(struct report *r)
{
    if (!r->sarif)
        return;
    if (r->sarif->notes)
        fclose(r->sarif->notes);
    free(r->sarif->notes_buf);
    free(r->sarif);
    r->sarif = NULL;
}

/* trigger: whether the event of the run (--event, --github ref=/base_ref=) and the change
 * trigger a workflow, by its `on.<event>` filters, as GitHub documents them ("Workflow
 * syntax for GitHub Actions", on.push.<branches|tags|branches-ignore|tags-ignore>,
 * on.<push|pull_request|pull_request_target>.<paths|paths-ignore>; github/docs
 * content/actions/reference/workflows-and-actions/workflow-syntax.md and
 * data/reusables/actions/workflows/run-on-specific-branches-or-tags*.md,
 * triggering-a-workflow-paths*.md). What cannot be decided here (no ref given, a pattern
 * GitHub refuses) does not leave the workflow out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fanout/change.h"
#include "fanout/glob.h"

#include "gha_internal.h"

/* A filter list compiled: a sequence of patterns, or one pattern. n is 0 when a pattern
 * does not compile (or is not text): the filter then decides nothing. */
struct patterns {
    struct glob **g;
    size_t n;
};

static void patterns_free(struct patterns *p)
{
    for (size_t i = 0; i < p->n; i++)
        glob_free(p->g[i]);
    free(p->g);
    p->g = NULL;
    p->n = 0;
}

static bool patterns_compile(struct patterns *p, const struct ynode *list)
{
    size_t n = ynode_is_seq(list) ? ynode_len(list) : 1;

    p->n = 0;
    if (!(p->g = calloc(n ? n : 1, sizeof(*p->g))))
        return false;
    for (size_t i = 0; i < n; i++) {
        size_t len;
        const char *t = ynode_scalar(ynode_is_seq(list) ? ynode_item(list, i) : list, &len);
        struct glob_error err;

        if (!t || !(p->g[p->n] = glob_compile(GLOB_GITHUB, t, len, &err))) {
            patterns_free(p);
            return false;
        }
        p->n++;
    }
    return true;
}

/* Whether the list `key` of `cfg` includes `name` by the order rule (glob_filter): 1, 0;
 * -1 when it cannot tell (a pattern GitHub refuses). */
static int list_includes(const struct ynode *cfg, const char *key, const char *name)
{
    struct patterns p;
    int rc;

    if (!patterns_compile(&p, ynode_get(cfg, key)))
        return -1;
    rc = glob_filter(p.g, p.n, name, strlen(name)) ? 1 : 0;
    patterns_free(&p);
    return rc;
}

/* A ref filter pair (`branches`/`branches-ignore`, `tags`/`tags-ignore`: `list` and
 * `list`-ignore) on `name` (a `noun`): NULL when it lets the event through, else why not. */
static const char *ref_filter(const struct ynode *cfg, const char *event, const char *list, const char *noun,
                              const char *name, char *buf, size_t cap)
{
    char ignore[40];

    snprintf(ignore, sizeof(ignore), "%s-ignore", list);
    if (ynode_has(cfg, list) && list_includes(cfg, list, name) == 0) {
        snprintf(buf, cap, "on.%s.%s includes no %s '%s'", event, list, noun, name);
        return buf;
    }
    if (ynode_has(cfg, ignore) && list_includes(cfg, ignore, name) == 1) {
        snprintf(buf, cap, "on.%s.%s ignores %s '%s'", event, ignore, noun, name);
        return buf;
    }
    return NULL;
}

/* `paths`: some changed file included by the order rule; `paths-ignore`: not every
 * changed file ignored. NULL when the change lets the event through, else why not. */
static const char *path_filter(const struct ynode *cfg, const char *event, const struct change *c, char *buf,
                               size_t cap)
{
    bool ignore = !ynode_has(cfg, "paths");
    const char *key = ignore ? "paths-ignore" : "paths";
    struct patterns p;
    size_t n = change_count(c), hits = 0;

    if (!ynode_has(cfg, key) || !change_known(c) || n == 0 || !patterns_compile(&p, ynode_get(cfg, key)))
        return NULL;
    for (size_t i = 0; i < n; i++) {
        const char *f = change_file(c, i);

        hits += glob_filter(p.g, p.n, f, strlen(f));
        if (!ignore && hits)
            break;
    }
    patterns_free(&p);
    if (!ignore && hits == 0)
        snprintf(buf, cap, "no changed file matches on.%s.paths", event);
    else if (ignore && hits == n)
        snprintf(buf, cap, "every changed file matches on.%s.paths-ignore", event);
    else
        return NULL;
    return buf;
}

/* `types`: whether the event's activity type `action` runs the workflow: one that
 * `types` (a name or a list) names; without `types`, any, but for pull_request and
 * pull_request_target ("By default, a workflow only runs when a pull_request event's
 * activity type is opened, synchronize, or reopened", workflow-syntax.md
 * on.<event_name>.types and events-that-trigger-workflows.md). NULL, else why not. */
static const char *type_filter(const struct ynode *cfg, const char *event, bool pr, const char *action, char *buf,
                               size_t cap)
{
    static const char *const pr_default[] = {"opened", "synchronize", "reopened"};
    const struct ynode *types = ynode_is_map(cfg) ? ynode_get(cfg, "types") : NULL;
    size_t len;
    const char *t;

    if (types && !ynode_is_null(types)) {
        size_t n = ynode_is_seq(types) ? ynode_len(types) : 1;

        for (size_t i = 0; i < n; i++) {
            if (!(t = ynode_scalar(ynode_is_seq(types) ? ynode_item(types, i) : types, &len)))
                return NULL; /* not names: the schema's error, nothing decided */
            if (len == strlen(action) && !memcmp(t, action, len))
                return NULL;
        }
        snprintf(buf, cap, "on.%s.types does not name activity type '%s'", event, action);
        return buf;
    }
    if (!pr)
        return NULL;
    for (size_t i = 0; i < sizeof(pr_default) / sizeof(pr_default[0]); i++) {
        if (!strcmp(pr_default[i], action))
            return NULL;
    }
    snprintf(buf, cap, "on.%s has no types, so runs only for opened, synchronize and reopened, not '%s'", event,
             action);
    return buf;
}

const char *gha_trigger_not_run(const struct ynode *on, const struct gha_event *ev, const struct change *c,
                                char *buf, size_t cap)
{
    const struct ynode *cfg = ynode_is_map(on) ? ynode_get(on, ev->name) : NULL;
    bool push = !strcmp(ev->name, "push");
    bool pr = !strcmp(ev->name, "pull_request") || !strcmp(ev->name, "pull_request_target");
    const char *ref = ev->ref, *why;
    bool tag = ref && !strncmp(ref, "refs/tags/", 10), branch = ref && !strncmp(ref, "refs/heads/", 11);
    bool branches = ynode_has(cfg, "branches") || ynode_has(cfg, "branches-ignore");
    bool tags = ynode_has(cfg, "tags") || ynode_has(cfg, "tags-ignore");

    if (!on || !gha_on_event(on, ev->name)) {
        snprintf(buf, cap, "its on: does not name %s", ev->name);
        return buf;
    }
    if (ev->action && (why = type_filter(cfg, ev->name, pr, ev->action, buf, cap)))
        return why;
    if (!ynode_is_map(cfg) || !(push || pr))
        return NULL;
    if (pr) { /* the base branch: github.base_ref, else the branch of --github ref= */
        const char *base = ev->base_ref ? ev->base_ref : branch ? ref + 11 : NULL;

        if (base && (why = ref_filter(cfg, ev->name, "branches", "branch", base, buf, cap)))
            return why;
        return path_filter(cfg, ev->name, c, buf, cap);
    }
    /* A push: only branches (tags) filtered means no run for a tag (branch); a tag push
     * skips the path filters. */
    if (tag) {
        if (branches && !tags) {
            snprintf(buf, cap, "a push of tag '%s', and on.push filters only branches", ref + 10);
            return buf;
        }
        return tags ? ref_filter(cfg, ev->name, "tags", "tag", ref + 10, buf, cap) : NULL;
    }
    if (branch) {
        if (tags && !branches) {
            snprintf(buf, cap, "a push to branch '%s', and on.push filters only tags", ref + 11);
            return buf;
        }
        if (branches && (why = ref_filter(cfg, ev->name, "branches", "branch", ref + 11, buf, cap)))
            return why;
    }
    return path_filter(cfg, ev->name, c, buf, cap);
}

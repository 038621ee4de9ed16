/* shardplan_report: what `shards assign` says about an assignment (a table with bars,
 * JSON, or Markdown with a mermaid chart) and `shards plan`'s LPT plan, in the shape of
 * SGLang's partition plans; the tests of a shard are read back from the spool when they
 * were streamed. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fanout/expr.h"
#include "fanout/xsort.h"

#include "shardplan_internal.h"

#define BAR_WIDTH 40

#define WINDOW (256u << 10)

/* A listed test's id, NUL-terminated: in the tests' text, or read back from the spool
 * into `buf` (MAX_ID + 1 bytes). The streamed tests of a shard lie in increasing spool
 * order, so a window read ahead serves most of them. NULL when reading fails. */
static const char *listed_id(struct result *r, const struct list_rec *l, char *buf)
{
    if (r->text)
        return r->text + l->off;
    if (l->off < r->window_off || l->off + l->len > r->window_off + r->window_len) {
        ssize_t got;

        if ((!r->window && !(r->window = malloc(WINDOW))) || fflush(r->spool) != 0)
            return NULL;
        got = pread(fileno(r->spool), r->window, WINDOW, (off_t)l->off);
        if (got < (ssize_t)l->len)
            return NULL;
        r->window_off = l->off;
        r->window_len = (size_t)got;
    }
    if (l->len) /* an empty id may come before any window was read */
        memcpy(buf, r->window + (l->off - r->window_off), l->len);
    buf[l->len] = '\0';
    return buf;
}

/* As JSON.stringify writes it: the shortest digits that read back, no exponent for the
 * times a report holds (people and jq read 180, not 1.8e+02). */
static void json_number(FILE *out, double v)
{
    char buf[EXPR_NUMBUF];

    fwrite(buf, 1, expr_js_number(v, buf), out);
}

static void json_time(FILE *out, const struct result *r, double v)
{
    if (r->timed)
        json_number(out, v);
    else
        fputs("null", out);
}

static double mean_time(const struct result *r)
{
    double sum = 0;

    for (unsigned s = 0; s < r->count; s++)
        sum += sp_shard_time(r, s);
    return r->count ? sum / r->count : 0;
}

/* LB = max(total / N, longest test): no assignment into N shards does better. */
static double lower_bound(const struct result *r)
{
    double per = r->count ? r->total / r->count : r->total;

    return r->overhead + (per > r->longest ? per : r->longest);
}

static unsigned first_index(const struct result *r)
{
    return assign_algo_info(r->algo)->first_index;
}

int sp_write_json(struct result *r, FILE *out)
{
    const struct list_rec *l;
    char *id = malloc(MAX_ID + 1);

    if (!id || (r->lists && xsort_finish(r->lists) != 0)) {
        free(id);
        return -1;
    }
    fputs("{\"algo\": ", out);
    diag_write_json_string(out, assign_algo_info(r->algo)->name);
    fprintf(out, ", \"count\": %u, \"collected\": %zu, \"covered\": %zu, \"overlaps\": %zu, "
                 "\"duplicates\": %zu,\n \"shards\": [", r->count, r->collected, r->covered, r->overlaps,
            r->duplicates);
    l = r->lists ? xsort_next(r->lists) : NULL;
    for (unsigned s = 0; s < r->count; s++) {
        bool first = true;

        fprintf(out, "%s\n  {\"index\": %u, \"tests\": [", s ? "," : "", s + first_index(r));
        for (; l && l->shard == s; l = xsort_next(r->lists), first = false) {
            const char *t = listed_id(r, l, id);

            if (!t)
                goto fail;
            fputs(first ? "" : ", ", out);
            diag_write_json_string(out, t);
        }
        fputs("], \"seconds\": ", out);
        json_time(out, r, sp_shard_time(r, s));
        fputs("}", out);
    }
    fputs("],\n \"makespan\": ", out);
    json_time(out, r, sp_makespan(r));
    fputs(", \"mean\": ", out);
    json_time(out, r, mean_time(r));
    fputs(", \"lower_bound\": ", out);
    json_time(out, r, lower_bound(r));
    fputs(", \"overhead\": ", out);
    json_number(out, r->overhead);
    fputs(",\n \"budget\": ", out);
    if (r->budget > 0) {
        fputs("{\"seconds\": ", out);
        json_number(out, r->budget);
        fprintf(out, ", \"shards\": ");
        r->need > 0 ? fprintf(out, "%ld", r->need) : fputs("null", out);
        fprintf(out, ", \"lpt_shards\": ");
        r->need_lpt > 0 ? fprintf(out, "%ld", r->need_lpt) : fputs("null", out);
        fputs(", \"at_least\": ", out);
        if (isfinite(r->least))
            json_number(out, r->least);
        else
            fputs("null", out);
        fputs(", \"too_long\": ", out);
        if (r->longest + r->overhead > r->budget)
            diag_write_json_string(out, r->too_long);
        else
            fputs("null", out);
        fputs("}", out);
    } else {
        fputs("null", out);
    }
    fprintf(out, ",\n \"unstable\": %zu, \"unstable_examples\": [", r->unstable);
    for (size_t i = 0; i < UNSTABLE_SHOWN && i < r->unstable; i++) {
        fputs(i ? ", " : "", out);
        diag_write_json_string(out, r->unstable_shown[i]);
    }
    fputs("]}\n", out);
    free(id);
    return xsort_failed(r->lists) ? -1 : 0;
fail:
    free(id);
    return -1;
}

/* A bar of `width` eighths of a cell, in Unicode block elements. */
static void bar(FILE *out, double fraction, bool color, bool longest)
{
    static const char *const eighths[] = {"", "\u258f", "\u258e", "\u258d", "\u258c", "\u258b", "\u258a", "\u2589"};
    long cells = lround(fraction * BAR_WIDTH * 8);

    if (!cells)
        return;
    fputc(' ', out);
    if (color)
        fputs(longest ? "\033[31m" : "\033[32m", out);
    for (long i = 0; i < cells / 8; i++)
        fputs("\u2588", out);
    fputs(eighths[cells % 8], out);
    if (color)
        fputs("\033[0m", out);
}

static void write_budget_line(const struct result *r, FILE *out, const char *eol)
{
    char why[1024];

    if (r->budget <= 0)
        return;
    fprintf(out, "budget %.1f s per shard (overhead %.1f s included): ", r->budget, r->overhead);
    if (!r->searched_to) {
        sp_budget_unmet(r, why, sizeof(why));
        fprintf(out, "cannot be met: %s%s", why, eol);
        return;
    }
    if (r->need > 0)
        fprintf(out, "%s needs %ld shards", assign_algo_info(r->algo)->name, r->need);
    else
        fprintf(out, "%s fits in no count up to %u", assign_algo_info(r->algo)->name, r->searched_to);
    if (r->need_lpt > 0)
        fprintf(out, ", LPT needs %ld%s", r->need_lpt, eol);
    else
        fprintf(out, ", LPT in no count up to %u%s", r->searched_to, eol);
}

void sp_write_text(const struct result *r, FILE *out, bool color)
{
    double top = 0;
    unsigned widest = 0;

    for (unsigned s = 0; s < r->count; s++) {
        double v = r->timed ? sp_shard_time(r, s) : (double)r->shards[s].tests;

        if (v > top) {
            top = v;
            widest = s;
        }
    }
    fprintf(out, "%s: %zu tests in %u shards\n", assign_algo_info(r->algo)->name, r->collected, r->count);
    fprintf(out, "%7s %9s%s\n", "shard", "tests", r->timed ? "      seconds" : "");
    for (unsigned s = 0; s < r->count; s++) {
        double v = r->timed ? sp_shard_time(r, s) : (double)r->shards[s].tests;

        fprintf(out, "%7u %9zu", s + first_index(r), r->shards[s].tests);
        if (r->timed)
            fprintf(out, " %12.1f", sp_shard_time(r, s));
        bar(out, top > 0 ? v / top : 0, color, s == widest && r->count > 1);
        fputc('\n', out);
    }
    fprintf(out, "proof: %zu/%zu tests covered, %zu in two shards or more", r->covered, r->collected,
            r->overlaps);
    if (r->duplicates)
        fprintf(out, ", %zu collected twice", r->duplicates);
    fputc('\n', out);
    if (r->timed) {
        double m = sp_makespan(r), mean = mean_time(r), lb = lower_bound(r);

        fprintf(out, "time: makespan %.1f s (overhead %.1f s per shard), mean %.1f s, max/mean %.3f, "
                     "max/LB %.3f (LB %.1f s)\n", m, r->overhead, mean, mean > 0 ? m / mean : 0,
                lb > 0 ? m / lb : 0, lb);
    }
    write_budget_line(r, out, "\n");
    if (r->unstable) {
        fprintf(out, "unstable node ids: %zu (their shard can change between runs), e.g.", r->unstable);
        for (size_t i = 0; i < UNSTABLE_SHOWN && i < r->unstable; i++)
            fprintf(out, "%s %s", i ? "," : "", r->unstable_shown[i]);
        fputc('\n', out);
    }
}

void sp_write_markdown(const struct result *r, FILE *out)
{
    fprintf(out, "### Shards: %s, %u shards, %zu/%zu tests covered\n\n", assign_algo_info(r->algo)->name,
            r->count, r->covered, r->collected);
    fprintf(out, "| shard | tests |%s\n| ---: | ---: |%s\n", r->timed ? " seconds |" : "",
            r->timed ? " ---: |" : "");
    for (unsigned s = 0; s < r->count; s++) {
        fprintf(out, "| %u | %zu |", s + first_index(r), r->shards[s].tests);
        if (r->timed)
            fprintf(out, " %.1f |", sp_shard_time(r, s));
        fputc('\n', out);
    }
    fputc('\n', out);
    if (r->overlaps || r->covered != r->collected)
        fprintf(out, "**%zu of %zu tests run in no shard, %zu in two or more.**\n\n",
                r->collected - r->covered, r->collected, r->overlaps);
    if (r->timed) {
        double m = sp_makespan(r), mean = mean_time(r), lb = lower_bound(r);

        fprintf(out, "Makespan %.1f s (overhead %.1f s per shard), mean %.1f s, max/mean %.3f, "
                     "max/LB %.3f.\n\n", m, r->overhead, mean, mean > 0 ? m / mean : 0, lb > 0 ? m / lb : 0);
        fputs("```mermaid\nxychart-beta\n    title \"Predicted time per shard (s)\"\n    x-axis [", out);
        for (unsigned s = 0; s < r->count; s++)
            fprintf(out, "%s\"%u\"", s ? ", " : "", s + first_index(r));
        fputs("]\n    y-axis \"seconds\"\n    bar [", out);
        for (unsigned s = 0; s < r->count; s++)
            fprintf(out, "%s%.1f", s ? ", " : "", sp_shard_time(r, s));
        fputs("]\n```\n", out);
    }
    write_budget_line(r, out, "\n");
}

/* The budget's finding, after the report. */
void sp_report_budget(const struct result *r, const struct assign_opts *o, struct diag *d)
{
    char why[1024];

    if (sp_budget_unmet(r, why, sizeof(why)))
        diag_report(d, DIAG_ERROR, DIAG_FINDING, o->durations ? o->durations : o->tests, 0, 0,
                    RULE_SHARDS_BUDGET, "the budget of %.1f s per shard cannot be met: %s", r->budget, why);
}

/* `shards plan`'s JSON: each partition's tests (read back in order) and estimated time.
 * -1 when the tests cannot be read back. */
int sp_write_plan(struct result *r, FILE *out)
{
    const struct list_rec *l;
    char *id = malloc(MAX_ID + 1);
    int rc = -1;

    if (!id)
        return -1;
    fprintf(out, "{\"partition_count\": %u, \"partitions\": [", r->count);
    l = xsort_next(r->lists);
    for (unsigned s = 0; s < r->count; s++) {
        fprintf(out, "%s\n  {\"part\": %u, \"items\": [", s ? "," : "", s);
        for (bool first = true; l && l->shard == s; l = xsort_next(r->lists), first = false) {
            const char *t = listed_id(r, l, id);

            if (!t)
                goto done;
            fputs(first ? "" : ", ", out);
            diag_write_json_string(out, t);
        }
        fputs("], \"estimated_time\": ", out);
        json_number(out, r->shards[s].seconds);
        fputs("}", out);
    }
    fputs("\n]}\n", out);
    rc = xsort_failed(r->lists) ? -1 : 0;
done:
    free(id);
    return rc;
}

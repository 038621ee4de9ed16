/* pipediff_vectors: a matrix that gains or loses a vector. Every configuration's values
 * change with it, so matching configurations by all their values pairs none (issue 23:
 * every old job read removed, and a change of the job beside it was not reported). They
 * are matched by the values of the vectors both sides have instead: each of BASE's with
 * the configurations of HEAD that extend it (two, for a vector of two values), and the
 * vector said once ("vector ideal_morsel_size added (2 values)"). */
#include "pipediff_internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SEP 0x1e /* ends each "name=value" of a row text (pd_row_text) */

/* The value of `name` (len bytes) in `row`, and its length in *vlen; NULL when it has none. */
static const char *row_value(const char *row, const char *name, size_t len, size_t *vlen)
{
    for (const char *p = row; *p; p = strchr(p, SEP) + 1) {
        if (!strncmp(p, name, len) && p[len] == '=') {
            *vlen = (size_t)(strchr(p, SEP) - p) - len - 1;
            return p + len + 1;
        }
    }
    return NULL;
}

/* How many of the n rows have `name`. */
static unsigned rows_with(char *const *rows, unsigned n, const char *name, size_t len)
{
    unsigned k = 0;
    size_t vlen;

    for (unsigned i = 0; i < n; i++)
        k += row_value(rows[i], name, len, &vlen) != NULL;
    return k;
}

/* How many different values `name` has over the n rows. */
static unsigned values_of(char *const *rows, unsigned n, const char *name, size_t len)
{
    unsigned k = 0;

    for (unsigned i = 0; i < n; i++) {
        size_t vl, wl;
        const char *v = row_value(rows[i], name, len, &vl), *w;
        bool seen = false;

        for (unsigned j = 0; j < i && !seen; j++)
            seen = (w = row_value(rows[j], name, len, &wl)) && wl == vl && !memcmp(v, w, vl);
        k += !seen;
    }
    return k;
}

/* The vectors every row of `mine` has and no row of `other` (each "name\x1e"), said after
 * `verb` into the phrase t; how many. */
static unsigned side_vectors(char *const *mine, unsigned n, char *const *other, unsigned n_other, const char *verb,
                             struct blob *names, FILE *t)
{
    unsigned found = 0;

    for (const char *p = n ? mine[0] : ""; *p; p = strchr(p, SEP) + 1) {
        size_t len = strcspn(p, "=");

        if (rows_with(mine, n, p, len) != n || rows_with(other, n_other, p, len) != 0)
            continue;
        found++;
        if (pd_blob_add(names, p, len) != 0 || pd_blob_add(names, "\x1e", 1) != 0)
            return 0;
        fprintf(t, "%svector %.*s %s (%u value%s)", ftell(t) ? "; " : "", (int)len, p, verb,
                values_of(mine, n, p, len), values_of(mine, n, p, len) > 1 ? "s" : "");
    }
    return found;
}

/* Whether row a and row b have the same values but for the vectors `skip` names. */
static bool same_but(const char *a, const char *b, const char *skip)
{
    const char *rows[2] = {a, b};

    for (int s = 0; s < 2; s++) {
        for (const char *p = rows[s]; *p; p = strchr(p, SEP) + 1) {
            size_t len = strcspn(p, "="), vl, wl;
            const char *v = p + len + 1, *w;
            bool skipped = false;

            vl = (size_t)(strchr(p, SEP) - v);
            for (const char *q = skip; *q && !skipped; q = strchr(q, SEP) + 1)
                skipped = (size_t)(strchr(q, SEP) - q) == len && !memcmp(q, p, len);
            if (!skipped && (!(w = row_value(rows[!s], p, len, &wl)) || wl != vl || memcmp(v, w, vl) != 0))
                return false;
        }
    }
    return true;
}

int pd_match_vectors(char **rows[2], const unsigned n[2], bool *extra[2], unsigned (*pairs)[2], unsigned *matched,
                     char **phrase)
{
    struct blob names = {0};
    size_t len = 0;
    FILE *t = open_memstream(phrase, &len);
    unsigned found;

    *matched = 0;
    if (!t)
        return -1;
    found = side_vectors(rows[1], n[1], rows[0], n[0], "added", &names, t);
    found += side_vectors(rows[0], n[0], rows[1], n[1], "removed", &names, t);
    if (fclose(t) != 0 || pd_blob_add(&names, "", 1) != 0) {
        free(names.buf);
        free(*phrase);
        *phrase = NULL;
        return -1;
    }
    /* a HEAD configuration with the first of BASE's it extends (or that extends it) */
    for (unsigned j = 0; found && j < n[1]; j++) {
        for (unsigned i = 0; i < n[0]; i++) {
            if (same_but(rows[0][i], rows[1][j], names.buf)) {
                extra[0][i] = extra[1][j] = false;
                pairs[*matched][0] = i;
                pairs[(*matched)++][1] = j;
                break;
            }
        }
    }
    /* BASE's configurations a vector removed: the first paired, the others alike */
    for (unsigned i = 0; found && i < n[0]; i++) {
        for (unsigned j = 0; extra[0][i] && j < n[1]; j++)
            extra[0][i] = !same_but(rows[0][i], rows[1][j], names.buf);
    }
    free(names.buf);
    return (int)found;
}

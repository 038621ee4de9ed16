/* glob's parts (include/fanout/glob.h): the picomatch port, which writes a JavaScript
 * regular expression's source as picomatch does, and zzglob's automaton; glob.c runs
 * a JavaScript source on PCRE2 and has the API. */
#ifndef FANOUT_GLOB_INTERNAL_H
#define FANOUT_GLOB_INTERNAL_H

#include "fanout/glob.h"
#include "fanout/strbuf.h"

#include <stdbool.h>
#include <stddef.h>

/* picomatch.makeRe(pattern, { dot: true }).source into `out` (NUL-terminated): the
 * JavaScript regular expression picomatch tests a path with. False when picomatch
 * throws (the message in `err`). */
bool glob_picomatch_source(const char *pattern, size_t len, struct strbuf *out,
                           struct glob_error *err);

/* Whether the JavaScript (non-Unicode mode) regular expression `src` compiles in
 * JavaScript; picomatch asks `new RegExp` this for a brace range. */
bool glob_js_regex_valid(const char *src, size_t len);

/* zzglob v0.4.3's Pattern: Parse and Match. */
struct zzglob;
struct zzglob *glob_zz_parse(const char *pattern, size_t len, struct glob_error *err);
bool glob_zz_match(const struct zzglob *z, const char *path, size_t len);
void glob_zz_free(struct zzglob *z);

#endif

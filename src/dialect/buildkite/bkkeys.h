/* bkkeys: mapping keys as Buildkite's agent reads them. buildkite/go-pipeline reads a
 * pipeline into ordered maps whose keys are strings (ordered/yaml.go, canonicalMapKey, at
 * fd45720551e8), before interpolation and before any field is looked at: a plain scalar
 * key yaml.v3 types otherwise becomes the text Go prints of its value: a boolean
 * `true`/`false` (`TRUE: x` sets the variable `true`), an integer in decimal (`0x10` is
 * "16", `010` "8"), a float in Go's %e (`1.5` is "1.500000e+00"), a timestamp as written.
 * A null key fails the upload ("null not supported as a map key"). Two keys that become
 * one are a `duplicate-key` error, as two written alike are (the agent keeps the last
 * value). docs/buildkite.md, "Keys as the agent reads them". */
#ifndef FANOUT_BKKEYS_H
#define FANOUT_BKKEYS_H

#include "fanout/diag.h"
#include "fanout/stream.h"

struct bkkeys;

struct bkkeys *bkkeys_create(void);
void bkkeys_destroy(struct bkkeys *k);

/* A pass over files named `names`, reporting to `d`. */
void bkkeys_begin(struct bkkeys *k, struct diag *d, const char *const *names);

/* Every mapping key of the item's tree as the agent reads it: 0, or -1 after an error. */
int bkkeys_item(struct bkkeys *k, struct stream_item *item);

#endif

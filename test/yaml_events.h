/* The scalar events of an input as stream.c's parser settings give them, for the oracles
 * that hold fanout's own readings of scalar text to libfyaml's (blocktext, quotedtext). */
#ifndef FANOUT_TEST_YAML_EVENTS_H
#define FANOUT_TEST_YAML_EVENTS_H

#include <stddef.h>

struct fy_event;

/* Calls fn with every scalar event of yaml[0..len) (valid UTF-8 without NUL) and `ctx`;
 * an input libfyaml refuses is read up to its error. */
void yaml_each_scalar(const char *yaml, size_t len, void (*fn)(struct fy_event *fye, void *ctx), void *ctx);

#endif

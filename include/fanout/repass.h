/* repass: which files render's pass 2 must read again, and pass 1's text of the others.
 * Pass 1 writes its rendering to the spool, rewriting references from the sharded keys
 * seen so far; a reference to a fanned-out job defined further down makes that
 * rendering wrong, but only for its own build (keys are per build). For a dialect whose
 * files render apart (dialect.h's files_apart), pass 2 then reads the files of those
 * builds alone and copies each other file's text from pass 1's spool: a directory of
 * workflows where one names a later matrix job is not all read twice.
 * Files are numbered as render's inputs, each with its build (below the inputs' count);
 * pass 1 reads them in order. */
#ifndef FANOUT_REPASS_H
#define FANOUT_REPASS_H
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct repass;

/* NULL when out of memory. `build`: each file's build (copied). */
struct repass *repass_create(size_t n_files, const unsigned *build);
void repass_destroy(struct repass *rp);

/* Pass 1. The item being written starts at byte `offset` of the spool and is of `file`;
 * `doc_start`: it starts a YAML document. */
void repass_item(struct repass *rp, unsigned file, uint64_t offset, bool doc_start);
/* A reference was recorded (the key index's next) in the file of the last item. */
void repass_reference(struct repass *rp);
/* A reference of the last item's file was rewritten from a sharded key seen before it. */
void repass_rewritten(struct repass *rp);
/* The spool's length at the end of pass 1. */
void repass_end(struct repass *rp, uint64_t offset);

/* After pass 1, from the key index's resolve: the `seq`th reference names a sharded key. */
void repass_sharded(struct repass *rp, size_t seq);

/* Whether pass 1's text of `file` is right: every reference to a sharded key in its build
 * was rewritten (pass 2 copies it). */
bool repass_kept(const struct repass *rp, unsigned file);
/* By file, repass_kept; NULL when no file is kept (pass 2 reads all). */
const bool *repass_skips(struct repass *rp);

/* Pass 1's text of `file`: bytes [*from, *to) of the spool holding `docs` documents, and
 * the references pass 2 would have asked the key index about. */
struct repass_part {
    uint64_t from, to;
    unsigned docs;
    size_t references;
};
struct repass_part repass_part(const struct repass *rp, unsigned file);

#endif

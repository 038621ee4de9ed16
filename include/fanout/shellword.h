/* shellword: a word as a POSIX shell reads it back: written as it is when every byte is
 * safe, else in single quotes (a quote inside as '\''). For the commands fanout writes
 * (a rendering's `cd DIR`) and the ones it tells a user to run. */
#ifndef FANOUT_SHELLWORD_H
#define FANOUT_SHELLWORD_H

#include <stddef.h>

/* The most bytes shell_word writes for a word of `len` bytes (no NUL). */
#define SHELL_WORD_MAX(len) ((len) * 4 + 2)

/* Writes word[0..len) for the shell into `out` (SHELL_WORD_MAX(len) bytes); its length. */
size_t shell_word(const char *word, size_t len, char *out);

#endif

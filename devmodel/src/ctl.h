/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The control protocol (fault injection, statistics): one command per line,
 * at most CTL_LINE_MAX bytes; the answer is zero or more lines of data and
 * then one line "ok" or "err MESSAGE". See docs/devmodel.md.
 */
#ifndef DM_CTL_H
#define DM_CTL_H

#include <stdbool.h>
#include <stddef.h>

struct dev;

#define CTL_LINE_MAX 256
#define CTL_OUT_MAX 16384

/* Run one command line (without its newline); the answer goes to out (NUL
 * terminated, ends with a newline). Returns true when the command was quit. */
bool ctl_exec(struct dev *d, const char *line, char *out, size_t outlen);

#endif

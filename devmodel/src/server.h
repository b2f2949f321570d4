/* SPDX-License-Identifier: GPL-2.0 */
#ifndef DM_SERVER_H
#define DM_SERVER_H

#include <stdbool.h>

struct dev;

struct server_opts {
	const char *sock_path;		/* vfio-user socket (required) */
	const char *ctl_path;		/* control socket, or NULL */
	bool persist;			/* wait for a new client after one leaves */
};

/* Serve until the client leaves (or, with persist, until quit/signal).
 * Returns 0 on a clean end, 1 on a setup error. */
int server_run(struct dev *d, const struct server_opts *o);

#endif

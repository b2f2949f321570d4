// SPDX-License-Identifier: GPL-2.0
/*
 * Sockets: the vfio-user listening socket (one client at a time), the
 * control socket (up to CTL_CLIENTS clients), signals, in one poll loop.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "ctl.h"
#include "dev.h"
#include "server.h"
#include "util.h"
#include "vfu.h"

#define CTL_CLIENTS 4
#define RX_CHUNK 65536

static int sig_pipe[2] = { -1, -1 };

static void on_signal(int sig)
{
	char c = (char)sig;

	if (write(sig_pipe[1], &c, 1) < 0)
		return;
}

static int listen_on(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	struct stat st;
	int fd;

	if (strlen(path) >= sizeof(a.sun_path)) {
		log_err("%s: socket path too long", path);
		return -1;
	}
	strcpy(a.sun_path, path);
	if (!lstat(path, &st)) {
		if (!S_ISSOCK(st.st_mode)) {
			log_err("%s exists and is not a socket", path);
			return -1;
		}
		unlink(path);
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof(a)) || listen(fd, 4)) {
		log_err("%s: %m", path);
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Transport of a vfio-user connection: blocking sendmsg, descriptors with
 * the first bytes. */
static int sock_send(void *ctx, const void *buf, size_t len, const int *fds, unsigned nfds)
{
	int fd = *(int *)ctx;
	const char *p = buf;
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];

	if (nfds > 4)
		return -1;
	while (len) {
		struct iovec iov = { (void *)p, len };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };
		ssize_t n;

		if (nfds) {
			struct cmsghdr *cm;

			memset(cbuf, 0, sizeof(cbuf));
			mh.msg_control = cbuf;
			mh.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
			cm = CMSG_FIRSTHDR(&mh);
			cm->cmsg_level = SOL_SOCKET;
			cm->cmsg_type = SCM_RIGHTS;
			cm->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
			memcpy(CMSG_DATA(cm), fds, sizeof(int) * nfds);
		}
		n = sendmsg(fd, &mh, MSG_NOSIGNAL);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			log_warn("vfio-user: send: %m");
			return -1;
		}
		nfds = 0;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Read what is there; feed it with its descriptors. -1: connection over. */
static int conn_read(int fd, struct vfu_conn *c, uint8_t *buf)
{
	char cbuf[CMSG_SPACE(sizeof(int) * (VFU_MAX_FDS + 8))];
	size_t want = vfu_want(c);
	struct iovec iov = { buf, want < RX_CHUNK ? want : RX_CHUNK };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
			     .msg_controllen = sizeof(cbuf) };
	int fds[VFU_MAX_FDS + 8];
	unsigned nfds = 0;
	ssize_t n;

	n = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC | MSG_DONTWAIT);
	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm)) {
		if (cm->cmsg_level == SOL_SOCKET && cm->cmsg_type == SCM_RIGHTS) {
			size_t k = (cm->cmsg_len - CMSG_LEN(0)) / sizeof(int);

			for (size_t i = 0; i < k; i++) {
				int f;

				memcpy(&f, CMSG_DATA(cm) + i * sizeof(int), sizeof(int));
				if (nfds < ARRAY_SIZE(fds))
					fds[nfds++] = f;
				else
					close(f);
			}
		}
	}
	if (mh.msg_flags & MSG_CTRUNC) {
		for (unsigned i = 0; i < nfds; i++)
			close(fds[i]);
		snprintf(c->why, sizeof(c->why), "file descriptors truncated (too many sent)");
		return -1;
	}
	if (n <= 0) {
		for (unsigned i = 0; i < nfds; i++)
			close(fds[i]);
		snprintf(c->why, sizeof(c->why), n ? "receive error" : "client closed the connection");
		return -1;
	}
	return vfu_input(c, buf, (size_t)n, fds, nfds);
}

struct ctl_client {
	int fd;
	char line[CTL_LINE_MAX + 2];
	size_t have;
	bool overlong;
};

/* Returns 1 for quit, -1 to drop the client, 0 otherwise. */
static int ctl_read(struct dev *d, struct ctl_client *cc, char *out)
{
	char buf[512];
	ssize_t n = recv(cc->fd, buf, sizeof(buf), MSG_DONTWAIT);
	int quit = 0;

	if (n < 0 && (errno == EINTR || errno == EAGAIN))
		return 0;
	if (n <= 0)
		return -1;
	for (ssize_t i = 0; i < n; i++) {
		char ch = buf[i];

		if (ch != '\n') {
			if (cc->have < CTL_LINE_MAX)
				cc->line[cc->have++] = ch;
			else
				cc->overlong = true;
			continue;
		}
		cc->line[cc->have] = 0;
		if (cc->overlong)
			snprintf(out, CTL_OUT_MAX, "err line too long\n");
		else if (ctl_exec(d, cc->line, out, CTL_OUT_MAX))
			quit = 1;
		cc->have = 0;
		cc->overlong = false;
		if (send(cc->fd, out, strlen(out), MSG_NOSIGNAL) < 0)
			return -1;
		if (quit)
			return 1;
	}
	return 0;
}

int server_run(struct dev *d, const struct server_opts *o)
{
	struct ctl_client cc[CTL_CLIENTS];
	struct vfu_conn conn;
	int lfd, cfd = -1, conn_fd = -1, ret = 0;
	uint8_t *rx = malloc(RX_CHUNK);
	char *out = malloc(CTL_OUT_MAX);
	struct sigaction sa = { .sa_handler = on_signal };
	struct timeval tv = { .tv_sec = 10 };
	bool running = true;

	for (int i = 0; i < CTL_CLIENTS; i++)
		cc[i].fd = -1;
	if (!rx || !out || pipe2(sig_pipe, O_CLOEXEC | O_NONBLOCK)) {
		free(rx);
		free(out);
		return 1;
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	lfd = listen_on(o->sock_path);
	if (lfd < 0) {
		ret = 1;
		goto out;
	}
	if (o->ctl_path) {
		cfd = listen_on(o->ctl_path);
		if (cfd < 0) {
			ret = 1;
			goto out;
		}
	}
	log_info("%s (%04x:%04x) listening on %s%s%s", d->p->name, PCI_VENDOR_AMAZON,
		 d->p->device_id, o->sock_path, o->ctl_path ? ", control on " : "",
		 o->ctl_path ? o->ctl_path : "");
	while (running) {
		struct pollfd pf[3 + CTL_CLIENTS];
		int np = 0, i_conn = -1, i_listen = -1, i_ctl = -1, i_cc[CTL_CLIENTS];

		pf[np++] = (struct pollfd){ sig_pipe[0], POLLIN, 0 };
		if (conn_fd >= 0) {
			i_conn = np;
			pf[np++] = (struct pollfd){ conn_fd, POLLIN, 0 };
		} else {
			i_listen = np;
			pf[np++] = (struct pollfd){ lfd, POLLIN, 0 };
		}
		if (cfd >= 0) {
			i_ctl = np;
			pf[np++] = (struct pollfd){ cfd, POLLIN, 0 };
		}
		for (int i = 0; i < CTL_CLIENTS; i++) {
			i_cc[i] = -1;
			if (cc[i].fd >= 0) {
				i_cc[i] = np;
				pf[np++] = (struct pollfd){ cc[i].fd, POLLIN, 0 };
			}
		}
		if (poll(pf, (nfds_t)np, -1) < 0) {
			if (errno == EINTR)
				continue;
			log_err("poll: %m");
			ret = 1;
			break;
		}
		if (pf[0].revents) {
			log_info("signal: shutting down");
			break;
		}
		if (i_listen >= 0 && (pf[i_listen].revents & POLLIN)) {
			conn_fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (conn_fd >= 0) {
				setsockopt(conn_fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv));
				vfu_conn_init(&conn, d, sock_send, &conn_fd);
				log_info("vfio-user: client connected");
			}
		}
		if (i_conn >= 0 && pf[i_conn].revents) {
			if (conn_read(conn_fd, &conn, rx)) {
				log_info("vfio-user: connection closed: %s (%llu messages, %llu error replies)",
					 conn.why, (unsigned long long)conn.msgs,
					 (unsigned long long)conn.errors);
				vfu_conn_fini(&conn);
				close(conn_fd);
				conn_fd = -1;
				dev_client_gone(d);
				if (!o->persist)
					running = false;
			}
		}
		if (i_ctl >= 0 && (pf[i_ctl].revents & POLLIN)) {
			int fd = accept4(cfd, NULL, NULL, SOCK_CLOEXEC);
			int slot = -1;

			for (int i = 0; i < CTL_CLIENTS && fd >= 0; i++)
				if (cc[i].fd < 0) {
					slot = i;
					break;
				}
			if (slot < 0 && fd >= 0) {
				const char busy[] = "err too many control clients\n";

				if (send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL) < 0)
					log_dbg("control: %m");
				close(fd);
			} else if (fd >= 0) {
				cc[slot] = (struct ctl_client){ .fd = fd };
			}
		}
		for (int i = 0; i < CTL_CLIENTS; i++) {
			int r;

			if (i_cc[i] < 0 || !pf[i_cc[i]].revents)
				continue;
			r = ctl_read(d, &cc[i], out);
			if (r) {
				close(cc[i].fd);
				cc[i].fd = -1;
			}
			if (r == 1) {
				log_info("control: quit");
				running = false;
			}
		}
	}
	if (conn_fd >= 0) {
		vfu_conn_fini(&conn);
		close(conn_fd);
		dev_client_gone(d);
	}
out:
	for (int i = 0; i < CTL_CLIENTS; i++)
		if (cc[i].fd >= 0)
			close(cc[i].fd);
	if (lfd >= 0) {
		close(lfd);
		unlink(o->sock_path);
	}
	if (cfd >= 0) {
		close(cfd);
		unlink(o->ctl_path);
	}
	close(sig_pipe[0]);
	close(sig_pipe[1]);
	free(rx);
	free(out);
	return ret;
}

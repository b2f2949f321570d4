// SPDX-License-Identifier: GPL-2.0
/*
 * End to end: start the server binary, talk to it over its socket as a
 * client would (negotiation, DMA_MAP of a memfd as guest memory, BAR4 mmap
 * through the region fd, queue programming through REGION_WRITE), copy
 * through the doorbell, watch the marker, use the control socket, and
 * check that the server exits 0 when the client leaves or misbehaves.
 */
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "client.h"
#include "test.h"
#include "util.h"

struct srv {
	pid_t pid;
	char dir[64], sock[96], ctl[96];
	int fd, cfd;
	uint16_t id;
};

static int connect_to(const char *path)
{
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

	strncpy(a.sun_path, path, sizeof(a.sun_path) - 1);
	if (fd < 0 || connect(fd, (struct sockaddr *)&a, sizeof(a))) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* Start the server as a trn1 or trn2, with one more option and its value
 * (opt NULL: none). */
static int srv_start(struct srv *s, const char *pers, const char *opt, const char *val)
{
	memset(s, 0, sizeof(*s));
	strcpy(s->dir, "/tmp/devmodel-e2e-XXXXXX");
	if (!mkdtemp(s->dir) || !t_server_path)
		return -1;
	snprintf(s->sock, sizeof(s->sock), "%s/vfu.sock", s->dir);
	snprintf(s->ctl, sizeof(s->ctl), "%s/ctl.sock", s->dir);
	s->pid = fork();
	if (s->pid == 0) {
		execl(t_server_path, t_server_path, "-s", s->sock, "-c", s->ctl, "-p", pers, "-q",
		      opt, val, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		s->fd = connect_to(s->sock);
		if (s->fd >= 0)
			break;
		sleep_us(20000);
	}
	s->cfd = connect_to(s->ctl);
	return s->fd >= 0 && s->cfd >= 0 ? 0 : -1;
}

/* Exit status of the server, waiting up to 10 s; -1 when it did not exit. */
static int srv_wait(struct srv *s)
{
	int st;

	for (int i = 0; i < 1000; i++) {
		if (waitpid(s->pid, &st, WNOHANG) == s->pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		sleep_us(10000);
	}
	kill(s->pid, SIGKILL);
	waitpid(s->pid, &st, 0);
	return -1;
}

static void srv_cleanup(struct srv *s)
{
	if (s->fd >= 0)
		close(s->fd);
	if (s->cfd >= 0)
		close(s->cfd);
	unlink(s->sock);
	unlink(s->ctl);
	rmdir(s->dir);
}

static int send_msg(int fd, const struct mb *m, const int *fds, unsigned nfds)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	struct iovec iov = { (void *)m->buf, m->len };
	struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1 };

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
	return sendmsg(fd, &mh, MSG_NOSIGNAL) == (ssize_t)m->len ? 0 : -1;
}

static int read_full(int fd, void *buf, size_t n, int *rfd)
{
	char cbuf[CMSG_SPACE(sizeof(int) * 4)];
	size_t have = 0;

	while (have < n) {
		struct iovec iov = { (char *)buf + have, n - have };
		struct msghdr mh = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = cbuf,
				     .msg_controllen = sizeof(cbuf) };
		struct pollfd pf = { fd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pf, 1, 5000) != 1)
			return -1;
		r = recvmsg(fd, &mh, MSG_CMSG_CLOEXEC);
		if (r <= 0)
			return -1;
		for (struct cmsghdr *cm = CMSG_FIRSTHDR(&mh); cm; cm = CMSG_NXTHDR(&mh, cm))
			if (cm->cmsg_type == SCM_RIGHTS && rfd)
				memcpy(rfd, CMSG_DATA(cm), sizeof(int));
		have += (size_t)r;
	}
	return 0;
}

/* Send and wait for the reply; payload into out (up to outlen). Returns the
 * reply's error field (0 ok), or -1 on a transport failure. */
static int call(struct srv *s, struct mb *m, const int *fds, unsigned nfds, void *out, size_t outlen,
		int *rfd)
{
	uint8_t hdr[16], body[8192];
	uint32_t size;

	st16(m->buf, ++s->id);
	if (send_msg(s->fd, m, fds, nfds) || read_full(s->fd, hdr, 16, rfd))
		return -1;
	size = ld32(hdr + 4);
	if (size < 16 || size - 16 > sizeof(body) || ld16(hdr) != s->id)
		return -1;
	if (size > 16 && read_full(s->fd, body, size - 16, NULL))
		return -1;
	if (out)
		memcpy(out, body, size - 16 < outlen ? size - 16 : outlen);
	return ld32(hdr + 8) & VFU_F_ERROR ? (int)ld32(hdr + 12) : 0;
}

static int bar0_write(struct srv *s, uint64_t off, uint32_t v)
{
	struct mb m;

	mb_region_write(&m, 0, REG_BAR0, off, &v, 4, 0);
	return call(s, &m, NULL, 0, NULL, 0, NULL);
}

static uint32_t bar0_read(struct srv *s, uint64_t off)
{
	struct mb m;
	uint8_t out[20];

	mb_region_read(&m, 0, REG_BAR0, off, 4);
	if (call(s, &m, NULL, 0, out, sizeof(out), NULL))
		return 0xFFFFFFFF;
	return ld32(out + 16);
}

static int ctl(struct srv *s, const char *cmd, char *out, size_t outlen)
{
	size_t have = 0;

	if (send(s->cfd, cmd, strlen(cmd), MSG_NOSIGNAL) < 0)
		return -1;
	while (have + 1 < outlen) {
		struct pollfd pf = { s->cfd, POLLIN, 0 };
		ssize_t r;

		if (poll(&pf, 1, 5000) != 1)
			return -1;
		r = recv(s->cfd, out + have, outlen - 1 - have, 0);
		if (r <= 0)
			return -1;
		have += (size_t)r;
		out[have] = 0;
		if (strstr(out, "ok\n") || strstr(out, "err "))
			return 0;
	}
	return -1;
}

#define E32 0x30600000ull
#define Q(side, reg) (E32 + (side) * 0x20000u + 0x1000u + (reg))
#define GBASE 0x40000000ull
#define HOSTBIT (1ull << 44)

static void desc(uint8_t *ring, unsigned idx, uint32_t ctrl, uint64_t addr)
{
	st32(ring + idx * 16, ctrl | (1u << 24));
	st32(ring + idx * 16 + 4, 0x01080003);
	st64(ring + idx * 16 + 8, addr);
}

static void copy_through_socket(void)
{
	struct srv s;
	struct gmem g;
	struct mb m;
	uint8_t out[64], *bar4;
	int bar4_fd = -1, fd;
	uint16_t cmd = 6;
	uint64_t t0;
	char text[4096];

	if (srv_start(&s, "trn1", NULL, NULL) || gmem_new(&g, 16 << 20)) {
		CHECK(!"server start");
		return;
	}
	mb_version(&m, 0, qemu_caps);
	CHECK_EQ(call(&s, &m, NULL, 0, out, sizeof(out), NULL), 0);
	CHECK_EQ(ld16(out), 0);
	/* guest memory */
	mb_dma_map(&m, 0, 3, 0, GBASE, 16 << 20);
	fd = g.fd;
	CHECK_EQ(call(&s, &m, &fd, 1, NULL, 0, NULL), 0);
	/* BAR4 through its region fd */
	mb_region_info(&m, 0, REG_BAR4);
	CHECK_EQ(call(&s, &m, NULL, 0, out, sizeof(out), &bar4_fd), 0);
	CHECK(ld32(out + 4) & VFU_REGION_MMAP_F);
	CHECK(bar4_fd >= 0);
	bar4 = mmap(NULL, 32ull << 30, PROT_READ | PROT_WRITE, MAP_SHARED, bar4_fd, 0);
	CHECK(bar4 != MAP_FAILED);
	/* bus master on, then the init steps the copy path needs */
	mb_region_write(&m, 0, REG_CONFIG, 4, &cmd, 2, 0);
	CHECK_EQ(call(&s, &m, NULL, 0, NULL, 0, NULL), 0);
	CHECK_EQ(bar0_write(&s, E32 + 0x254, 0x010FFFFF), 0);
	for (int side = 0; side < 2; side++) {
		uint64_t ring = HOSTBIT | (GBASE + (side ? 0x10000 : 0));

		bar0_write(&s, Q(side, 0x20), 0x03000000);
		bar0_write(&s, Q(side, side ? 0x64 : 0xB0), 0x100);
		bar0_write(&s, Q(side, 0x28), (uint32_t)ring);
		bar0_write(&s, Q(side, 0x2C), (uint32_t)(ring >> 32));
		bar0_write(&s, Q(side, 0x30), 64);
		bar0_write(&s, Q(side, 0x20), 0x03030000);
	}
	/* 8 KiB + 4 KiB to DRAM, then the marker pair */
	for (unsigned i = 0; i < 12288; i++)
		g.p[0x100000 + i] = (uint8_t)(i * 13);
	desc(g.p, 0, 8192 | (3u << 26), HOSTBIT | (GBASE + 0x100000));
	desc(g.p + 0x10000, 0, 8192, 0x2000000);
	desc(g.p, 1, 4096 | (3u << 26), HOSTBIT | (GBASE + 0x102000));
	desc(g.p + 0x10000, 1, 4096, 0x2002000);
	st32(g.p + 0x200000, 0xABCDEF01);
	st32(g.p + 0x200004, 0);
	desc(g.p, 2, 4 | (3u << 26), HOSTBIT | (GBASE + 0x200000));
	desc(g.p + 0x10000, 2, 4, HOSTBIT | (GBASE + 0x200004));
	CHECK_EQ(bar0_write(&s, Q(1, 0x38), 3), 0);	/* RX first */
	CHECK_EQ(bar0_write(&s, Q(0, 0x38), 3), 0);
	t0 = now_ms();
	while (ld32(g.p + 0x200004) != 0xABCDEF01 && now_ms() - t0 < 5000)
		sleep_us(200);
	CHECK_EQ(ld32(g.p + 0x200004), 0xABCDEF01);
	if (bar4 != MAP_FAILED)
		CHECK(!memcmp(bar4 + 0x2000000, g.p + 0x100000, 12288));
	CHECK_EQ(bar0_read(&s, Q(0, 0x34)), (1u << 30) | 3);
	CHECK_EQ(ctl(&s, "stats\n", text, sizeof(text)), 0);
	CHECK(strstr(text, "descs 6\n"));
	CHECK(strstr(text, "bytes 12292\n"));
	CHECK(strstr(text, "dma_maps 1\n"));
	/* a lost completion: the marker never lands, the queue still moves on */
	CHECK_EQ(ctl(&s, "lost-completion\n", text, sizeof(text)), 0);
	st32(g.p + 0x200004, 0);
	desc(g.p, 3, 4 | (3u << 26), HOSTBIT | (GBASE + 0x200000));
	desc(g.p + 0x10000, 3, 4, HOSTBIT | (GBASE + 0x200004));
	bar0_write(&s, Q(1, 0x38), 1);
	bar0_write(&s, Q(0, 0x38), 1);
	t0 = now_ms();
	while ((bar0_read(&s, Q(0, 0x34)) & 0xFFFFFF) != 4 && now_ms() - t0 < 5000)
		sleep_us(200);
	CHECK_EQ(bar0_read(&s, Q(0, 0x34)) & 0xFFFFFF, 4);
	CHECK_EQ(ld32(g.p + 0x200004), 0);
	/* a bad index answers an error and keeps the connection */
	mb_region_read(&m, 0, 42, 0, 4);
	CHECK_EQ(call(&s, &m, NULL, 0, NULL, 0, NULL), EINVAL);
	CHECK_EQ(bar0_read(&s, 0x30FA0000 + 0x024), 0);
	/* the client leaves: the server frees everything and exits 0 */
	if (bar4 != MAP_FAILED)
		munmap(bar4, 32ull << 30);
	if (bar4_fd >= 0)
		close(bar4_fd);
	close(s.fd);
	s.fd = -1;
	CHECK_EQ(srv_wait(&s), 0);
	srv_cleanup(&s);
	gmem_free(&g);
}

static void malformed_closes(void)
{
	struct srv s;
	struct mb m;
	uint8_t junk[16] = { 0 };
	char c;

	if (srv_start(&s, "trn2", NULL, NULL)) {
		CHECK(!"server start");
		return;
	}
	mb_version(&m, 0, qemu_caps);
	CHECK_EQ(call(&s, &m, NULL, 0, NULL, 0, NULL), 0);
	st32(junk + 4, 8);				/* message size below the header */
	CHECK_EQ(send(s.fd, junk, sizeof(junk), MSG_NOSIGNAL), 16);
	CHECK_EQ(read_full(s.fd, &c, 1, NULL), -1);	/* closed by the server */
	CHECK_EQ(srv_wait(&s), 0);
	srv_cleanup(&s);
}

static void quit_via_control(void)
{
	struct srv s;
	char text[256];

	if (srv_start(&s, "trn1", NULL, NULL)) {
		CHECK(!"server start");
		return;
	}
	CHECK_EQ(ctl(&s, "bogus\n", text, sizeof(text)), 0);
	CHECK(!strncmp(text, "err ", 4));
	CHECK_EQ(ctl(&s, "quit\n", text, sizeof(text)), 0);
	CHECK(!strcmp(text, "ok\n"));
	CHECK_EQ(srv_wait(&s), 0);
	srv_cleanup(&s);
}

/* Exit status of the server run with opt and val, then --help. */
static int srv_options(const char *opt, const char *val)
{
	pid_t pid = fork();
	int st;

	if (pid == 0) {
		if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
			_exit(126);
		execl(t_server_path, t_server_path, opt, val, "--help", (char *)NULL);
		_exit(127);
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* --not-ready-ms -1: never ready, not after a PCI reset either; a number
 * starts again at each PCI reset (VFIO_USER_DEVICE_RESET). */
static void not_ready_option(void)
{
	static const char *const bad[] = { "-2", "forever!", "86400001", "" };
	const uint64_t routing_id = 0x30FA0000 + 0x024;	/* trn1 misc RAM */
	struct srv s;
	struct mb m;
	char text[256];

	CHECK_EQ(srv_options("--not-ready-ms", "-1"), 0);
	CHECK_EQ(srv_options("--not-ready-ms", "forever"), 0);
	CHECK_EQ(srv_options("--not-ready-ms", "250"), 0);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		CHECK_EQ(srv_options("--not-ready-ms", bad[i]), 2);
	if (srv_start(&s, "trn1", "--not-ready-ms", "-1")) {
		CHECK(!"server start");
		return;
	}
	mb_version(&m, 0, qemu_caps);
	CHECK_EQ(call(&s, &m, NULL, 0, NULL, 0, NULL), 0);
	CHECK_EQ(bar0_read(&s, routing_id), 0xDEADBEEF);
	CHECK_EQ(ctl(&s, "not-ready 0\n", text, sizeof(text)), 0);
	CHECK(!strcmp(text, "ok\n"));
	CHECK_EQ(bar0_read(&s, routing_id), 0);
	mb_start(&m, 0, VFU_DEVICE_RESET, 0);
	mb_end(&m);
	CHECK_EQ(call(&s, &m, NULL, 0, NULL, 0, NULL), 0);
	CHECK_EQ(bar0_read(&s, routing_id), 0xDEADBEEF);
	close(s.fd);
	s.fd = -1;
	CHECK_EQ(srv_wait(&s), 0);
	srv_cleanup(&s);
}

const struct test e2e_tests[] = {
	{ "e2e.copy_through_socket", copy_through_socket },
	{ "e2e.malformed_closes", malformed_closes },
	{ "e2e.quit_via_control", quit_via_control },
	{ "e2e.not_ready_option", not_ready_option },
	{ NULL, NULL },
};

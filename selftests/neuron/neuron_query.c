// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests: the NEURON_IOCTL_QUERY contract (uapi/neuron.h): size
 * negotiation of the answer, must-be-zero fields, bad pointers, and the
 * extensible argument struct (copy_struct_from_user() rules).
 */
#include <sys/mman.h>

#include "neuron_test.h"

#define CANARY		0xa5
#define INFO_SIZE	sizeof(struct neuron_device_info)

/* Two pages, the second one PROT_NONE: a write past the first faults. */
struct guarded {
	unsigned char *base;
	long page;
};

FIXTURE(query) {
	struct neuron_node node;
	struct neuron_device_info info;	/* the full answer, for reference */
	struct guarded g;
};

FIXTURE_SETUP(query)
{
	int err;

	self->g.page = sysconf(_SC_PAGESIZE);
	self->g.base = mmap(NULL, 2 * self->g.page, PROT_READ | PROT_WRITE,
			    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ASSERT_NE(MAP_FAILED, self->g.base);
	ASSERT_EQ(0, mprotect(self->g.base + self->g.page, self->g.page, PROT_NONE));
	/* Last: a failed setup gets no teardown, so clean up here. */
	neuron_setup_node(_metadata, &self->node, NULL, 0);
	err = neuron_query_info(self->node.fd, &self->info, NULL);
	if (err)
		neuron_node_release(&self->node);
	ASSERT_EQ(0, err) TH_LOG("query: %s", strerror(-err));
}

FIXTURE_TEARDOWN(query)
{
	if (self->g.base && self->g.base != MAP_FAILED)
		munmap(self->g.base, 2 * self->g.page);
	neuron_node_release(&self->node);
}

/* The @len bytes just before the guard page, filled with the canary. */
static unsigned char *before_guard(struct guarded *g, size_t len)
{
	memset(g->base, CANARY, g->page);
	return g->base + g->page - len;
}

/* The first byte past the readable page. */
static unsigned char *guard_page(struct guarded *g)
{
	return g->base + g->page;
}

static bool all_canary(const unsigned char *p, size_t len)
{
	while (len--)
		if (*p++ != CANARY)
			return false;
	return true;
}

/* Issue QUERY with @q; returns 0 or -errno. */
static int query(int fd, struct neuron_query *q)
{
	return neuron_ioctl(fd, NEURON_IOCTL_QUERY, q);
}

/* size 0 (data 0) only asks the size of the answer. */
TEST_F(query, size_only)
{
	struct neuron_query q;

	neuron_query_prep(&q, NEURON_QUERY_DEVICE, NULL, 0);
	ASSERT_EQ(0, query(self->node.fd, &q));
	EXPECT_EQ(INFO_SIZE, q.size);
	EXPECT_EQ(152U, q.size);
	EXPECT_EQ(0ULL, q.data);
	EXPECT_EQ((__u32)NEURON_QUERY_DEVICE, q.op);
}

/* size 0 with a buffer: the buffer is not written. */
TEST_F(query, size_only_buffer_untouched)
{
	unsigned char buf[INFO_SIZE];
	struct neuron_query q;

	memset(buf, CANARY, sizeof(buf));
	neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, 0);
	ASSERT_EQ(0, query(self->node.fd, &q));
	EXPECT_EQ(INFO_SIZE, q.size);
	EXPECT_TRUE(all_canary(buf, sizeof(buf)));
}

/* A short buffer gets a truncated copy, the rest of ours is untouched. */
TEST_F(query, short_buffer)
{
	unsigned char buf[INFO_SIZE + 16];
	static const __u32 lens[] = { 1, 8, 12, 40, INFO_SIZE - 1 };
	struct neuron_query q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(buf, CANARY, sizeof(buf));
		neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, lens[i]);
		ASSERT_EQ(0, query(self->node.fd, &q)) TH_LOG("size %u", lens[i]);
		EXPECT_EQ(INFO_SIZE, q.size) TH_LOG("size %u", lens[i]);
		EXPECT_EQ(0, memcmp(buf, &self->info, lens[i]))
			TH_LOG("size %u", lens[i]);
		EXPECT_TRUE(all_canary(buf + lens[i], sizeof(buf) - lens[i]))
			TH_LOG("size %u: bytes past the buffer written", lens[i]);
	}
}

/* A short buffer right before an unmapped page: no write past it. */
TEST_F(query, short_buffer_guard_page)
{
	unsigned char *buf = before_guard(&self->g, 8);
	struct neuron_query q;

	neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, 8);
	ASSERT_EQ(0, query(self->node.fd, &q));
	EXPECT_EQ(INFO_SIZE, q.size);
	EXPECT_EQ(0, memcmp(buf, &self->info, 8));
	EXPECT_TRUE(all_canary(self->g.base, self->g.page - 8));
}

/* The exact size fits a buffer that ends at an unmapped page. */
TEST_F(query, exact_buffer_guard_page)
{
	unsigned char *buf = before_guard(&self->g, INFO_SIZE);
	struct neuron_query q;

	neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, INFO_SIZE);
	ASSERT_EQ(0, query(self->node.fd, &q));
	EXPECT_EQ(INFO_SIZE, q.size);
	EXPECT_EQ(0, memcmp(buf, &self->info, INFO_SIZE));
}

/* A larger buffer gets the whole answer; its tail is untouched. */
TEST_F(query, oversized_buffer)
{
	unsigned char buf[INFO_SIZE + 64];
	struct neuron_query q;

	memset(buf, CANARY, sizeof(buf));
	neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, sizeof(buf));
	ASSERT_EQ(0, query(self->node.fd, &q));
	EXPECT_EQ(INFO_SIZE, q.size);
	EXPECT_EQ(0, memcmp(buf, &self->info, INFO_SIZE));
	EXPECT_TRUE(all_canary(buf + INFO_SIZE, sizeof(buf) - INFO_SIZE));
}

/* A huge size on a buffer of the answer's size: only the answer is written. */
TEST_F(query, huge_size)
{
	unsigned char *buf = before_guard(&self->g, INFO_SIZE);
	struct neuron_query q;

	neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, 0xffffffffu);
	ASSERT_EQ(0, query(self->node.fd, &q));
	EXPECT_EQ(INFO_SIZE, q.size);
	EXPECT_EQ(0, memcmp(buf, &self->info, INFO_SIZE));
}

/*
 * A rejected query: @q gets -@err and the answer buffer is not written.
 * The caller set everything but the data pointer.
 */
static void expect_rejected(struct __test_metadata *_metadata, int fd,
			    struct neuron_query *q, int err)
{
	unsigned char buf[INFO_SIZE];

	memset(buf, CANARY, sizeof(buf));
	q->data = (__u64)(uintptr_t)buf;
	q->size = sizeof(buf);
	EXPECT_EQ(-err, query(fd, q));
	EXPECT_TRUE(all_canary(buf, sizeof(buf)));
}

/* A QUERY_DEVICE that @tweak of its struct q made invalid: rejected. */
#define EXPECT_QUERY_EINVAL(tweak) do { \
	struct neuron_query q; \
	neuron_query_prep(&q, NEURON_QUERY_DEVICE, NULL, 0); \
	tweak; \
	expect_rejected(_metadata, self->node.fd, &q, EINVAL); \
} while (0)

TEST_F(query, flags_nonzero)
{
	unsigned int bit;

	for (bit = 0; bit < 32; bit += 31)
		EXPECT_QUERY_EINVAL(q.flags = 1u << bit);
}

TEST_F(query, pad_nonzero)
{
	EXPECT_QUERY_EINVAL(q.pad = 1);
	EXPECT_QUERY_EINVAL(q.pad = 0x80000000u);
}

TEST_F(query, reserved0_nonzero)
{
	EXPECT_QUERY_EINVAL(q.reserved[0] = 1);
	EXPECT_QUERY_EINVAL(q.reserved[0] = 1ull << 63);
}

TEST_F(query, reserved1_nonzero)
{
	EXPECT_QUERY_EINVAL(q.reserved[1] = 1);
	EXPECT_QUERY_EINVAL(q.reserved[1] = 1ull << 63);
}

TEST_F(query, unknown_op)
{
	static const __u32 ops[] = { NEURON_QUERY_COUNT, 0x100, 0xffffffffu };
	struct neuron_query q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		neuron_query_prep(&q, ops[i], NULL, 0);
		expect_rejected(_metadata, self->node.fd, &q, EINVAL);
	}
	/* Also when only the size is asked. */
	neuron_query_prep(&q, NEURON_QUERY_COUNT, NULL, 0);
	EXPECT_EQ(-EINVAL, query(self->node.fd, &q));
}

/* A data pointer that cannot be written, with a nonzero size: -EFAULT. */
TEST_F(query, bad_data)
{
	static const __u64 bad[] = {
		1,				/* unmapped low page */
		0xffff888000000000ull,		/* kernel address */
		0x0000800000000000ull,		/* non-canonical */
	};
	struct neuron_query q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		neuron_query_prep(&q, NEURON_QUERY_DEVICE, NULL, INFO_SIZE);
		q.data = bad[i];
		EXPECT_EQ(-EFAULT, query(self->node.fd, &q))
			TH_LOG("data 0x%llx", (unsigned long long)bad[i]);
	}
	/* The guard page itself. */
	neuron_query_prep(&q, NEURON_QUERY_DEVICE, guard_page(&self->g), 8);
	EXPECT_EQ(-EFAULT, query(self->node.fd, &q));
}

/* data 0 with a nonzero size is a bad pointer too. */
TEST_F(query, null_data)
{
	struct neuron_query q;

	neuron_query_prep(&q, NEURON_QUERY_DEVICE, NULL, INFO_SIZE);
	EXPECT_EQ(-EFAULT, query(self->node.fd, &q));
	neuron_query_prep(&q, NEURON_QUERY_DEVICE, NULL, 1);
	EXPECT_EQ(-EFAULT, query(self->node.fd, &q));
}

/* A read-only buffer cannot take the answer. */
TEST_F(query, readonly_data)
{
	struct neuron_query q;

	unsigned char *buf = before_guard(&self->g, INFO_SIZE);

	ASSERT_EQ(0, mprotect(self->g.base, self->g.page, PROT_READ));
	neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, INFO_SIZE);
	EXPECT_EQ(-EFAULT, query(self->node.fd, &q));
	EXPECT_TRUE(all_canary(self->g.base, self->g.page));
}

/* A bad pointer to the argument struct itself: -EFAULT. */
TEST_F(query, bad_arg)
{
	EXPECT_EQ(-EFAULT, neuron_ioctl(self->node.fd, NEURON_IOCTL_QUERY, NULL));
	EXPECT_EQ(-EFAULT, neuron_ioctl(self->node.fd, NEURON_IOCTL_QUERY,
					guard_page(&self->g)));
	/* The struct straddles into the unmapped page. */
	EXPECT_EQ(-EFAULT, neuron_ioctl(self->node.fd, NEURON_IOCTL_QUERY,
					before_guard(&self->g, 8)));
}

/* A newer caller's longer struct with a zero tail. */
struct neuron_query_ext {
	struct neuron_query q;
	__u64 ext[8];
};

#define QUERY_EXT(len) _IOC(_IOC_READ | _IOC_WRITE, NEURON_IOCTL_MAGIC, 0x00, (len))

TEST_F(query, ext_struct_zero_tail)
{
	static const size_t lens[] = {
		NEURON_QUERY_SIZE_VER0 + 8, sizeof(struct neuron_query_ext),
	};
	unsigned char buf[INFO_SIZE];
	struct neuron_query_ext s;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(&s, 0, sizeof(s));
		memset(buf, CANARY, sizeof(buf));
		neuron_query_prep(&s.q, NEURON_QUERY_DEVICE, buf, sizeof(buf));
		ASSERT_EQ(0, neuron_ioctl(self->node.fd, QUERY_EXT(lens[i]), &s))
			TH_LOG("struct of %zu bytes", lens[i]);
		EXPECT_EQ(INFO_SIZE, s.q.size);
		EXPECT_EQ(0, memcmp(buf, &self->info, INFO_SIZE));
		EXPECT_EQ(0ULL, s.ext[0]);
		EXPECT_EQ(0ULL, s.ext[7]);
	}
}

TEST_F(query, ext_struct_nonzero_tail)
{
	struct neuron_query_ext s;
	unsigned char buf[INFO_SIZE];
	unsigned int i;

	/* Each byte of the tail the kernel does not know, one at a time. */
	for (i = 0; i < sizeof(s.ext); i++) {
		memset(&s, 0, sizeof(s));
		memset(buf, CANARY, sizeof(buf));
		neuron_query_prep(&s.q, NEURON_QUERY_DEVICE, buf, sizeof(buf));
		((unsigned char *)s.ext)[i] = 0x01;
		EXPECT_EQ(-E2BIG, neuron_ioctl(self->node.fd, QUERY_EXT(sizeof(s)), &s))
			TH_LOG("nonzero byte at offset %zu", sizeof(s.q) + i);
		EXPECT_TRUE(all_canary(buf, sizeof(buf)));
	}
}

/* Shorter than the first version of the struct: -EINVAL. */
TEST_F(query, short_struct)
{
	static const size_t lens[] = { 8, 16, 24, 32, NEURON_QUERY_SIZE_VER0 - 1 };
	unsigned char buf[INFO_SIZE];
	struct neuron_query q;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(lens); i++) {
		memset(buf, CANARY, sizeof(buf));
		neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, sizeof(buf));
		EXPECT_EQ(-EINVAL, neuron_ioctl(self->node.fd, QUERY_EXT(lens[i]), &q))
			TH_LOG("struct of %zu bytes", lens[i]);
		EXPECT_TRUE(all_canary(buf, sizeof(buf)));
	}
}

/* The bytes of @s after its NUL (within @len) are 0. */
static bool tail_zero(const char *s, size_t len)
{
	const char *nul = memchr(s, '\0', len);

	if (!nul)
		return false;
	for (nul++; nul < s + len; nul++)
		if (*nul)
			return false;
	return true;
}

/*
 * Nothing of the kernel's stack or of another user reaches an answer:
 * into a buffer full of the canary, every pad, every byte after a
 * string's NUL and every field without a value (the owner of a free NC)
 * comes back 0.
 */
TEST_F(query, answers_zero_filled)
{
	struct neuron_device_info *d;
	struct neuron_mem_usage *u;
	struct neuron_nc_states *h;
	struct neuron_nc_state *st;
	struct neuron_query q;
	unsigned char *buf;
	__u32 i, len;

	len = sizeof(*d);
	buf = before_guard(&self->g, len);
	neuron_query_prep(&q, NEURON_QUERY_DEVICE, buf, len);
	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_QUERY, &q));
	d = (void *)buf;
	EXPECT_EQ(0U, d->pad);
	EXPECT_TRUE(tail_zero(d->driver_version, sizeof(d->driver_version)));
	EXPECT_TRUE(tail_zero(d->arch_name, sizeof(d->arch_name)));
	EXPECT_TRUE(tail_zero(d->product, sizeof(d->product)));

	len = sizeof(*u) + self->info.nc_count * sizeof(struct neuron_mem_usage_nc);
	buf = before_guard(&self->g, len);
	neuron_query_prep(&q, NEURON_QUERY_MEM_USAGE, buf, len);
	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_QUERY, &q));
	u = (void *)buf;
	EXPECT_EQ(self->info.nc_count, u->nc_count);
	EXPECT_EQ(0U, u->pad);

	if (!(self->info.caps & NEURON_CAP_RESERVE))
		return;
	len = sizeof(*h) + self->info.nc_count * sizeof(*st);
	buf = before_guard(&self->g, len);
	neuron_query_prep(&q, NEURON_QUERY_NC_STATE, buf, len);
	ASSERT_EQ(0, neuron_ioctl(self->node.fd, NEURON_IOCTL_QUERY, &q));
	h = (void *)buf;
	st = (void *)(h + 1);
	EXPECT_EQ(self->info.nc_count, h->nc_count);
	EXPECT_EQ(0U, h->pad);
	for (i = 0; i < self->info.nc_count; i++) {
		if (st[i].state != (__u32)NEURON_NC_FREE)
			continue;	/* another test's device may be in use */
		EXPECT_EQ(0U, st[i].flags) TH_LOG("NC %u", i);
		EXPECT_EQ(0, st[i].owner_pid) TH_LOG("NC %u", i);
		EXPECT_EQ(0U, st[i].owner_uid) TH_LOG("NC %u", i);
	}
}

TEST_HARNESS_MAIN

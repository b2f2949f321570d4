// SPDX-License-Identifier: GPL-2.0
/*
 * A minimal JSON reader: objects, arrays, strings (escapes checked, not
 * decoded beyond what key comparison needs), numbers, true, false, null.
 * Every read is bounded by the end pointer; recursion by a depth limit.
 */
#include <string.h>

#include "json.h"

#define MAX_DEPTH 16
#define MAX_KEY 64

struct jp {
	const char *p, *end;
	int depth;
};

enum jtype { J_ERR, J_OBJ, J_ARR, J_STR, J_NUM, J_UINT, J_TRUE, J_FALSE, J_NULL };

static void ws(struct jp *j)
{
	while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
		j->p++;
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* A string at j->p (opening quote). Copies up to MAX_KEY-1 plain bytes into
 * key (if non-NULL) and sets *long_key when it did not fit or had escapes. */
static int str(struct jp *j, char *key, bool *odd_key)
{
	size_t n = 0;

	if (j->p >= j->end || *j->p != '"')
		return -1;
	j->p++;
	if (odd_key)
		*odd_key = false;
	while (j->p < j->end) {
		unsigned char c = (unsigned char)*j->p++;

		if (c == '"') {
			if (key)
				key[n] = 0;
			return 0;
		}
		if (c < 0x20)
			return -1;
		if (c == '\\') {
			if (j->p >= j->end)
				return -1;
			c = (unsigned char)*j->p++;
			if (c == 'u') {
				for (int i = 0; i < 4; i++)
					if (j->p >= j->end || hexval(*j->p++) < 0)
						return -1;
			} else if (!strchr("\"\\/bfnrt", c)) {
				return -1;
			}
			if (odd_key)
				*odd_key = true;
			continue;
		}
		if (key) {
			if (n < MAX_KEY - 1)
				key[n++] = (char)c;
			else if (odd_key)
				*odd_key = true;
		}
	}
	return -1;
}

/* Skip the digits at j->p; false if there are none. */
static bool digits(struct jp *j)
{
	const char *start = j->p;

	while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
		j->p++;
	return j->p != start;
}

static enum jtype number(struct jp *j, uint64_t *val)
{
	bool neg = false, frac = false, overflow = false;
	uint64_t v = 0;
	const char *start;

	if (j->p < j->end && *j->p == '-') {
		neg = true;
		j->p++;
	}
	start = j->p;
	while (j->p < j->end && *j->p >= '0' && *j->p <= '9') {
		unsigned d = (unsigned)(*j->p - '0');

		if (v > (UINT64_MAX - d) / 10)
			overflow = true;
		else
			v = v * 10 + d;
		j->p++;
	}
	if (j->p == start)
		return J_ERR;
	if (*start == '0' && j->p - start > 1)
		return J_ERR;
	if (j->p < j->end && *j->p == '.') {
		frac = true;
		j->p++;
		if (!digits(j))
			return J_ERR;
	}
	if (j->p < j->end && (*j->p == 'e' || *j->p == 'E')) {
		frac = true;
		j->p++;
		if (j->p < j->end && (*j->p == '+' || *j->p == '-'))
			j->p++;
		if (!digits(j))
			return J_ERR;
	}
	if (neg || frac || overflow)
		return J_NUM;
	*val = v;
	return J_UINT;
}

static int word(struct jp *j, const char *w)
{
	size_t n = strlen(w);

	if ((size_t)(j->end - j->p) < n || memcmp(j->p, w, n))
		return -1;
	j->p += n;
	return 0;
}

struct member_cb {
	/* Called for each member of an object at depth 1 or 2. */
	int (*fn)(struct jp *j, int depth, const char *key, bool odd, void *arg);
	void *arg;
};

static enum jtype value(struct jp *j, uint64_t *uval, const struct member_cb *cb);

/* Object ('{' at j->p, @close '}') or array ('[', @close ']'). An object's
 * members are handed to cb->fn (which must consume the value) when cb is
 * set, else skipped; an array's elements are skipped. */
static int container(struct jp *j, char close, const struct member_cb *cb)
{
	char key[MAX_KEY];
	bool odd;
	uint64_t dummy;

	if (++j->depth > MAX_DEPTH)
		return -1;
	j->p++; /* '{' or '[' */
	ws(j);
	if (j->p < j->end && *j->p == close) {
		j->p++;
		j->depth--;
		return 0;
	}
	for (;;) {
		ws(j);
		if (close == '}') {
			if (str(j, key, &odd))
				return -1;
			ws(j);
			if (j->p >= j->end || *j->p != ':')
				return -1;
			j->p++;
			ws(j);
		}
		if (close == '}' && cb && cb->fn) {
			if (cb->fn(j, j->depth, key, odd, cb->arg))
				return -1;
		} else if (value(j, &dummy, NULL) == J_ERR) {
			return -1;
		}
		ws(j);
		if (j->p >= j->end)
			return -1;
		if (*j->p == ',') {
			j->p++;
			continue;
		}
		if (*j->p == close) {
			j->p++;
			j->depth--;
			return 0;
		}
		return -1;
	}
}

static int object(struct jp *j, const struct member_cb *cb)
{
	return container(j, '}', cb);
}

static enum jtype value(struct jp *j, uint64_t *uval, const struct member_cb *cb)
{
	ws(j);
	if (j->p >= j->end)
		return J_ERR;
	switch (*j->p) {
	case '{':
		return object(j, cb) ? J_ERR : J_OBJ;
	case '[':
		return container(j, ']', NULL) ? J_ERR : J_ARR;
	case '"':
		return str(j, NULL, NULL) ? J_ERR : J_STR;
	case 't':
		return word(j, "true") ? J_ERR : J_TRUE;
	case 'f':
		return word(j, "false") ? J_ERR : J_FALSE;
	case 'n':
		return word(j, "null") ? J_ERR : J_NULL;
	default:
		return number(j, uval);
	}
}

/* Members of the "capabilities" object. */
static int cap_member(struct jp *j, int depth, const char *key, bool odd, void *arg)
{
	struct vfu_caps *c = arg;
	uint64_t v = 0;
	enum jtype t;

	(void)depth;
	if (odd) {
		return value(j, &v, NULL) == J_ERR ? -1 : 0;
	}
	if (!strcmp(key, "max_msg_fds") || !strcmp(key, "max_data_xfer_size") ||
	    !strcmp(key, "pgsizes") || !strcmp(key, "max_dma_maps")) {
		t = value(j, &v, NULL);
		if (t != J_UINT)
			return -1;
		if (!strcmp(key, "max_msg_fds")) {
			c->has_max_fds = true;
			c->max_fds = v;
		} else if (!strcmp(key, "max_data_xfer_size")) {
			c->has_max_xfer = true;
			c->max_xfer = v;
		} else if (!strcmp(key, "pgsizes")) {
			c->has_pgsizes = true;
			c->pgsizes = v;
		} else {
			c->has_max_dma = true;
			c->max_dma = v;
		}
		return 0;
	}
	if (!strcmp(key, "write_multiple")) {
		t = value(j, &v, NULL);
		if (t != J_TRUE && t != J_FALSE)
			return -1;
		c->has_multi = true;
		c->write_multiple = t == J_TRUE;
		return 0;
	}
	if (!strcmp(key, "migration")) {
		if (value(j, &v, NULL) != J_OBJ)
			return -1;
		c->has_migration = true;
		return 0;
	}
	if (!strcmp(key, "twin_socket")) {
		/* Only "supported" matters to a server that does not use it. */
		c->has_twin = true;
		return value(j, &v, NULL) != J_OBJ ? -1 : 0;
	}
	return value(j, &v, NULL) == J_ERR ? -1 : 0;
}

static int top_member(struct jp *j, int depth, const char *key, bool odd, void *arg)
{
	struct vfu_caps *c = arg;
	struct member_cb inner = { cap_member, c };
	uint64_t v;

	(void)depth;
	if (!odd && !strcmp(key, "capabilities")) {
		ws(j);
		if (j->p >= j->end || *j->p != '{')
			return -1;
		c->has_caps = true;
		return object(j, &inner);
	}
	return value(j, &v, NULL) == J_ERR ? -1 : 0;
}

int json_parse_caps(const char *s, size_t len, struct vfu_caps *caps)
{
	struct jp j = { s, s + len, 0 };
	struct member_cb top = { top_member, caps };

	memset(caps, 0, sizeof(*caps));
	ws(&j);
	if (j.p >= j.end || *j.p != '{')
		return -1;
	if (object(&j, &top))
		return -1;
	ws(&j);
	return j.p == j.end ? 0 : -1;
}

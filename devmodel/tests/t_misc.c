// SPDX-License-Identifier: GPL-2.0
/* CRC-32C and the capability JSON reader. */
#include <string.h>

#include "crc32c.h"
#include "json.h"
#include "test.h"

static void crc_vectors(void)
{
	uint8_t zeros[32] = { 0 }, ones[32];

	memset(ones, 0xFF, sizeof(ones));
	CHECK_EQ(crc32c(0, "123456789", 9), 0xE3069283);
	CHECK_EQ(crc32c(0, "", 0), 0);
	/* RFC 3720 B.4 vectors */
	CHECK_EQ(crc32c(0, zeros, 32), 0x8A9136AA);
	CHECK_EQ(crc32c(0, ones, 32), 0x62A8AB43);
}

static void crc_incremental(void)
{
	const char *s = "The quick brown fox jumps over the lazy dog";
	uint32_t whole = crc32c(0, s, strlen(s));

	CHECK_EQ(crc32c(crc32c(0, s, 10), s + 10, strlen(s) - 10), whole);
	CHECK(crc32c(0, s, strlen(s) - 1) != whole);
}

const struct test crc_tests[] = {
	{ "crc32c.vectors", crc_vectors },
	{ "crc32c.incremental", crc_incremental },
	{ NULL, NULL },
};

static int parse(const char *s, struct vfu_caps *c)
{
	return json_parse_caps(s, strlen(s), c);
}

static void json_qemu(void)
{
	struct vfu_caps c;
	const char *q = "{\"capabilities\": {\"pgsizes\": 4096, \"max_msg_fds\": 16, \"max_dma_maps\": 65535, "
			"\"max_data_xfer_size\": 1048576, \"migration\": {\"max_bitmap_size\": 268435456, "
			"\"pgsize\": 4096}, \"write_multiple\": true}}";

	CHECK_EQ(parse(q, &c), 0);
	CHECK(c.has_caps && c.has_max_fds && c.has_max_xfer && c.has_pgsizes && c.has_max_dma);
	CHECK_EQ(c.max_fds, 16);
	CHECK_EQ(c.max_xfer, 1048576);
	CHECK_EQ(c.pgsizes, 4096);
	CHECK_EQ(c.max_dma, 65535);
	CHECK(c.has_migration && c.has_multi && c.write_multiple);
}

static void json_other_members(void)
{
	struct vfu_caps c;

	CHECK_EQ(parse("{}", &c), 0);
	CHECK(!c.has_caps);
	CHECK_EQ(parse(" { \"x\" : [1, 2.5e3, \"a\\n\\u0041\", null, {\"y\": false}], "
		       "\"capabilities\": {\"future\": {\"a\": [true]}, \"twin_socket\": {\"supported\": true}}} ", &c), 0);
	CHECK(c.has_caps && c.has_twin && !c.has_max_fds);
}

static void json_malformed(void)
{
	static const char *const bad[] = {
		"", "{", "[]", "5", "{\"capabilities\":5}", "{\"capabilities\":{\"max_msg_fds\":-1}}",
		"{\"capabilities\":{\"max_msg_fds\":1.5}}", "{\"capabilities\":{\"max_msg_fds\":\"8\"}}",
		"{\"capabilities\":{\"write_multiple\":\"yes\"}}", "{\"capabilities\":{\"migration\":1}}",
		"{\"capabilities\":{\"max_msg_fds\":99999999999999999999999}}",
		"{} x", "{\"a\":1,}", "{\"a\" 1}", "{\"a\":\"\\q\"}", "{\"a\":\"\\u12\"}", "{\"a\":01}",
		"{\"a\":tru}", "{\"a\":\"unterminated}", "{\"a\":[1,2}", "{\"a\":\"\x01\"}", "{\"a\":-}",
		"{\"a\":1.}", "{\"a\":1e}",
	};
	struct vfu_caps c;
	char deep[200];
	size_t n = 0;

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		if (parse(bad[i], &c) != -1) {
			t_failures++;
			fprintf(stderr, "  FAIL accepted: %s\n", bad[i]);
		}
	}
	/* nesting deeper than the limit */
	n += (size_t)sprintf(deep, "{\"a\":");
	for (int i = 0; i < 20; i++)
		deep[n++] = '[';
	for (int i = 0; i < 20; i++)
		deep[n++] = ']';
	deep[n++] = '}';
	deep[n] = 0;
	CHECK_EQ(parse(deep, &c), -1);
	/* length bounds the text: a valid object cut short is refused */
	CHECK_EQ(json_parse_caps("{\"a\":1}", 5, &c), -1);
}

const struct test json_tests[] = {
	{ "json.qemu_capabilities", json_qemu },
	{ "json.other_members_skipped", json_other_members },
	{ "json.malformed_refused", json_malformed },
	{ NULL, NULL },
};

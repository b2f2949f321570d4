// SPDX-License-Identifier: GPL-2.0
/*
 * nrt_mlp_demo: the example MLP (examples/models/mlp.nms,
 * y = relu(x . W1 + b1) . W2 + b2) on several NeuronCores through the
 * nrt_* API: one model per core, each fed its own input, every output
 * checked against the same MLP computed here on the CPU, with timings.
 *
 *   nrt_mlp_demo [MODEL [CORES]]
 *
 * MODEL defaults to /usr/share/neuron/models/mlp.nmodel, CORES to 4
 * (NEURON_RT_NUM_CORES, unless the environment sets it or
 * NEURON_RT_VISIBLE_CORES). The weights are regenerated here the way
 * neuron-pack made them: xorshift32 from the seeds of mlp.nms
 * (docs/model-format.md). Exit status 0 when every output matches.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <nrt/nrt.h>

#define B	8	/* rows of x */
#define I	16	/* inputs */
#define H	32	/* hidden */
#define O	4	/* outputs */
#define RUNS	20
#define MAX_CORES	16

/* neuron-pack's `random SEED` for float32 (docs/model-format.md). */
static void xorshift_fill(float *v, int n, uint32_t seed)
{
	uint32_t x = seed;
	int i;

	for (i = 0; i < n; i++) {
		x ^= x << 13;
		x ^= x >> 17;
		x ^= x << 5;
		v[i] = (float)(x >> 8) / 16777216.0f - 0.5f;
	}
}

/* The MLP on the CPU, in the core's order of operations. */
static void mlp_cpu(const float *x, const float *w1, const float *b1,
		    const float *w2, const float *b2, float *y)
{
	float h[B * H];
	int i, j, p;

	for (i = 0; i < B; i++)
		for (j = 0; j < H; j++) {
			float acc = 0;

			for (p = 0; p < I; p++)
				acc += x[i * I + p] * w1[p * H + j];
			acc += b1[j];
			h[i * H + j] = acc > 0 ? acc : 0;
		}
	for (i = 0; i < B; i++)
		for (j = 0; j < O; j++) {
			float acc = 0;

			for (p = 0; p < H; p++)
				acc += h[i * H + p] * w2[p * O + j];
			y[i * O + j] = acc + b2[j];
		}
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

#define CHECK(call) do {						\
		NRT_STATUS s_ = (call);					\
		if (s_ != NRT_SUCCESS) {				\
			fprintf(stderr, "%s: %s\n", #call,		\
				nrt_get_status_as_str(s_));		\
			exit(1);					\
		}							\
	} while (0)

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/usr/share/neuron/models/mlp.nmodel";
	const char *cores = argc > 2 ? argv[2] : "4";
	float w1[I * H], b1[H], w2[H * O], b2[O], x[B * I], y[B * O], ref[B * O];
	nrt_tensor_t *tin[MAX_CORES], *tout[MAX_CORES];
	nrt_tensor_set_t *in[MAX_CORES], *out[MAX_CORES];
	nrt_model_t *model[MAX_CORES];
	uint32_t n, vnc, total;
	double t0, us, cpu_us, worst = 0;
	struct stat st;
	void *bytes;
	int fd, r, i, bad = 0;

	if (!getenv("NEURON_RT_NUM_CORES") && !getenv("NEURON_RT_VISIBLE_CORES"))
		setenv("NEURON_RT_NUM_CORES", cores, 1);
	xorshift_fill(w1, I * H, 11);
	xorshift_fill(b1, H, 12);
	xorshift_fill(w2, H * O, 13);
	xorshift_fill(b2, O, 14);

	fd = open(path, O_RDONLY);
	if (fd < 0 || fstat(fd, &st)) {
		perror(path);
		return 1;
	}
	bytes = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (bytes == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	CHECK(nrt_get_total_nc_count(&total));
	CHECK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	CHECK(nrt_get_visible_nc_count(&n));
	if (n > MAX_CORES)
		n = MAX_CORES;
	printf("mlp demo: %s on %u of %u NeuronCores, batch %d, %d -> %d -> %d\n",
	       path, n, total, B, I, H, O);
	t0 = now_us();
	for (vnc = 0; vnc < n; vnc++) {
		CHECK(nrt_load(bytes, st.st_size, vnc, 1, &model[vnc]));
		CHECK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, sizeof(x), "x",
					  &tin[vnc]));
		CHECK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, vnc, sizeof(y), "y",
					  &tout[vnc]));
		CHECK(nrt_allocate_tensor_set(&in[vnc]));
		CHECK(nrt_allocate_tensor_set(&out[vnc]));
		CHECK(nrt_add_tensor_to_tensor_set(in[vnc], "x", tin[vnc]));
		CHECK(nrt_add_tensor_to_tensor_set(out[vnc], "y", tout[vnc]));
	}
	munmap(bytes, st.st_size);	/* nrt_load kept what it needs */
	printf("loaded %u models in %.0f us\n", n, now_us() - t0);

	for (vnc = 0; vnc < n; vnc++) {
		xorshift_fill(x, B * I, 100 + vnc);
		CHECK(nrt_tensor_write(tin[vnc], x, 0, sizeof(x)));
		t0 = now_us();
		for (r = 0; r < RUNS; r++)
			CHECK(nrt_execute(model[vnc], in[vnc], out[vnc]));
		us = (now_us() - t0) / RUNS;
		CHECK(nrt_tensor_read(tout[vnc], y, 0, sizeof(y)));
		t0 = now_us();
		mlp_cpu(x, w1, b1, w2, b2, ref);
		cpu_us = now_us() - t0;
		worst = 0;
		for (i = 0; i < B * O; i++) {
			double d = y[i] > ref[i] ? y[i] - ref[i] : ref[i] - y[i];

			if (d > worst)
				worst = d;
		}
		printf("core %u: y[0] = [%+.6f %+.6f %+.6f %+.6f]  cpu [%+.6f %+.6f %+.6f %+.6f]\n",
		       vnc, y[0], y[1], y[2], y[3], ref[0], ref[1], ref[2], ref[3]);
		printf("core %u: max |y - cpu| = %.3g over %d outputs, ",
		       vnc, worst, B * O);
		printf("%.0f us per nrt_execute (%d runs), cpu %.1f us\n", us, RUNS, cpu_us);
		if (worst > 0.00001)
			bad++;
	}
	for (vnc = 0; vnc < n; vnc++) {
		nrt_unload(model[vnc]);
		nrt_tensor_free(&tin[vnc]);
		nrt_tensor_free(&tout[vnc]);
		nrt_destroy_tensor_set(&in[vnc]);
		nrt_destroy_tensor_set(&out[vnc]);
	}
	nrt_close();
	printf("mlp demo: %s\n", bad ? "MISMATCH" : "all outputs match the CPU");
	return bad ? 1 : 0;
}

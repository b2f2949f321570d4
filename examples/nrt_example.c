// SPDX-License-Identifier: GPL-2.0
/*
 * nrt_example: run a model once through the nrt_* API, the way a program
 * without a framework does it: map the model file, initialise, load,
 * allocate one device tensor per model input and output, write the
 * inputs, execute, read the outputs, clean up.
 *
 *   nrt_example MODEL [INPUT_BYTE]
 *
 * Inputs are filled with INPUT_BYTE (default 0); each output is printed
 * as its first elements.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <nrt/nrt.h>
#include <nrt/nrt_experimental.h>

#define CHECK(call) do { \
	NRT_STATUS s_ = (call); \
	if (s_ != NRT_SUCCESS) { \
		fprintf(stderr, "%s: %s (%d)\n", #call, nrt_get_status_as_str(s_), (int)s_); \
		exit(1); \
	} \
} while (0)

static void print_output(const nrt_tensor_info_t *ti, const void *data)
{
	size_t n = ti->size / 4, i;

	printf("%s:", ti->name);
	for (i = 0; i < n && i < 8; i++) {
		if (ti->dtype == NRT_DTYPE_INT32)
			printf(" %d", ((const int32_t *)data)[i]);
		else
			printf(" %g", ((const float *)data)[i]);
	}
	printf("%s\n", n > 8 ? " ..." : "");
}

int main(int argc, char **argv)
{
	nrt_tensor_set_t *inputs = NULL, *outputs = NULL;
	nrt_tensor_info_array_t *info = NULL;
	nrt_tensor_t **tensors;
	nrt_model_t *model = NULL;
	int fill = argc > 2 ? atoi(argv[2]) : 0;
	struct stat st;
	void *neff;
	uint64_t i;
	int fd;

	if (argc < 2) {
		fprintf(stderr, "usage: %s MODEL [INPUT_BYTE]\n", argv[0]);
		return 2;
	}
	fd = open(argv[1], O_RDONLY);
	if (fd < 0 || fstat(fd, &st) < 0) {
		perror(argv[1]);
		return 1;
	}
	neff = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (neff == MAP_FAILED) {
		perror("mmap");
		return 1;
	}

	CHECK(nrt_init(NRT_FRAMEWORK_TYPE_NO_FW, "", ""));
	CHECK(nrt_load(neff, st.st_size, -1, -1, &model));
	munmap(neff, st.st_size);	/* the library kept what it needs */
	close(fd);

	CHECK(nrt_get_model_tensor_info(model, &info));
	CHECK(nrt_allocate_tensor_set(&inputs));
	CHECK(nrt_allocate_tensor_set(&outputs));
	tensors = (nrt_tensor_t **)calloc(info->tensor_count, sizeof(*tensors));
	if (!tensors)
		return 1;
	for (i = 0; i < info->tensor_count; i++) {
		const nrt_tensor_info_t *ti = &info->tensor_array[i];
		int is_input = ti->usage == NRT_TENSOR_USAGE_INPUT;

		/* device memory, zero-filled */
		CHECK(nrt_tensor_allocate(NRT_TENSOR_PLACEMENT_DEVICE, 0, ti->size, ti->name,
					  &tensors[i]));
		CHECK(nrt_add_tensor_to_tensor_set(is_input ? inputs : outputs, ti->name,
						   tensors[i]));
		if (is_input) {
			void *buf = malloc(ti->size);

			if (!buf)
				return 1;
			memset(buf, fill, ti->size);
			CHECK(nrt_tensor_write(tensors[i], buf, 0, ti->size));
			free(buf);
		}
	}

	CHECK(nrt_execute(model, inputs, outputs));

	for (i = 0; i < info->tensor_count; i++) {
		const nrt_tensor_info_t *ti = &info->tensor_array[i];
		nrt_tensor_t *out;
		void *buf;

		if (ti->usage != NRT_TENSOR_USAGE_OUTPUT)
			continue;
		CHECK(nrt_get_tensor_from_tensor_set(outputs, ti->name, &out));
		buf = malloc(ti->size);
		if (!buf)
			return 1;
		CHECK(nrt_tensor_read(out, buf, 0, ti->size));
		print_output(ti, buf);
		free(buf);
	}

	CHECK(nrt_unload(model));
	for (i = 0; i < info->tensor_count; i++)
		nrt_tensor_free(&tensors[i]);
	free(tensors);
	nrt_destroy_tensor_set(&inputs);
	nrt_destroy_tensor_set(&outputs);
	nrt_free_model_tensor_info(info);
	nrt_close();
	return 0;
}

// SPDX-License-Identifier: GPL-2.0
/*
 * libnrt.so.1: runtime state, devices, NeuronCore reservation, counts,
 * version, status strings, logging.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "nrt_internal.h"

#ifndef NRT_LIB_VERSION
#define NRT_LIB_VERSION "0.0.0"
#endif
#ifndef NRT_GIT_HASH
#define NRT_GIT_HASH "unknown"
#endif

struct nrt_runtime nrt_rt = {
	.lock = PTHREAD_RWLOCK_INITIALIZER,
	.core_lock = PTHREAD_MUTEX_INITIALIZER,
	.obj_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* ---- logging ---- */

static int nrt_log_enabled(void)
{
	const char *lvl = getenv("NEURON_RT_LOG_LEVEL");

	if (!lvl)
		return 1;
	return !(!strcasecmp(lvl, "off") || !strcasecmp(lvl, "none") ||
		 !strcasecmp(lvl, "fatal"));
}

void nrt_log(const char *fn, const char *what, const char *obj, const char *fmt, ...)
{
	char line[1024];
	size_t n;
	int r;
	va_list ap;

	if (!nrt_log_enabled())
		return;
	if (obj)
		r = snprintf(line, sizeof(line), "nrt: %s: %s (%s): ", fn, what, obj);
	else
		r = snprintf(line, sizeof(line), "nrt: %s: %s: ", fn, what);
	n = r < 0 ? 0 : ((size_t)r < sizeof(line) ? (size_t)r : sizeof(line) - 1);
	va_start(ap, fmt);
	r = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
	va_end(ap);
	n += r < 0 ? 0 : ((size_t)r < sizeof(line) - n ? (size_t)r : sizeof(line) - n - 1);
	if (n > sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	/* one write(2): lines of concurrent threads do not interleave */
	if (write(STDERR_FILENO, line, n) < 0)
		return;
}

NRT_STATUS nrt_errno_status(int err)
{
	switch (err) {
	case ENOMEM:
	case ENOSPC:
	case EBUSY:
		return NRT_RESOURCE;
	case EINVAL:
	case E2BIG:
	case ENOEXEC:
	case ERANGE:
		return NRT_INVALID;
	case ENOENT:
		return NRT_INVALID_HANDLE;
	case EAGAIN:
		return NRT_QUEUE_FULL;
	case ETIME:
	case ETIMEDOUT:
		return NRT_TIMEOUT;
	case EIO:
	case ENODEV:
	case ENXIO:
		return NRT_HW_ERROR;
	default:
		return NRT_FAILURE;
	}
}

/* ---- state ---- */

NRT_STATUS nrt_enter(const char *fn)
{
	enum nrt_state state;

	pthread_rwlock_rdlock(&nrt_rt.lock);
	state = nrt_rt.state;
	if (state == NRT_STATE_INIT)
		return NRT_SUCCESS;
	pthread_rwlock_unlock(&nrt_rt.lock);
	if (state == NRT_STATE_CLOSED) {
		nrt_log(fn, "runtime", NULL, "nrt_close() was called");
		return NRT_CLOSED;
	}
	nrt_log(fn, "runtime", NULL, "nrt_init() was not called");
	return NRT_UNINITIALIZED;
}

void nrt_leave(void)
{
	pthread_rwlock_unlock(&nrt_rt.lock);
}

/* ---- devices ---- */

static const char *nrt_dev_dir(void)
{
	const char *d = getenv("NEURON_RT_DEV_DIR");

	return d && *d ? d : "/dev";
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Minors of /dev/neuronN, sorted; returns the count or -errno. */
static int nrt_scan(uint32_t **out)
{
	DIR *d = opendir(nrt_dev_dir());
	struct dirent *de;
	uint32_t *v = NULL, *nv;
	int n = 0, cap = 0;

	*out = NULL;
	if (!d)
		return errno == ENOENT ? 0 : -errno;
	while ((de = readdir(d))) {
		const char *p = de->d_name;
		unsigned long m;
		char *end;

		if (strncmp(p, "neuron", 6) || !isdigit((unsigned char)p[6]))
			continue;
		errno = 0;
		m = strtoul(p + 6, &end, 10);
		if (*end || errno || m > 65535)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 16;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv) {
				free(v);
				closedir(d);
				return -ENOMEM;
			}
			v = nv;
		}
		v[n++] = (uint32_t)m;
	}
	closedir(d);
	qsort(v, n, sizeof(*v), cmp_u32);
	*out = v;
	return n;
}

static int nrt_query(int fd, uint32_t op, void *buf, uint32_t size)
{
	int err = nio_query(fd, op, buf, size, &size);

	return err ? err : (int)size;
}

static int nrt_dev_usable(const struct neuron_device_info *info)
{
	const uint64_t need = NEURON_CAP_EXEC | NEURON_CAP_MEM | NEURON_CAP_RESERVE;

	return (info->caps & need) == need && info->nc_count > 0;
}

/*
 * Open the usable devices (NEURON_CAP_EXEC). @rw: O_RDWR and keep them
 * (nrt_init); else O_RDONLY, to count. Returns NRT_STATUS.
 */
static NRT_STATUS nrt_open_devs(const char *fn, int rw, struct nrt_dev **out,
				uint32_t *ndevs, uint32_t *total)
{
	uint32_t *minors, i;
	struct nrt_dev *devs;
	char path[4096];
	int n, k = 0;
	uint32_t cores = 0;

	*out = NULL;
	*ndevs = 0;
	*total = 0;
	n = nrt_scan(&minors);
	if (n < 0) {
		nrt_log(fn, "scan devices", nrt_dev_dir(), "%s", strerror(-n));
		return NRT_FAILURE;
	}
	devs = calloc(n ? n : 1, sizeof(*devs));
	if (!devs) {
		free(minors);
		nrt_log(fn, "scan devices", NULL, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	for (i = 0; i < (uint32_t)n; i++) {
		struct nrt_dev *dv = &devs[k];
		int fd, r;

		snprintf(path, sizeof(path), "%s/neuron%u", nrt_dev_dir(), minors[i]);
		fd = nio_open_path(path, rw ? O_RDWR : O_RDONLY);
		if (fd < 0) {
			int e = errno;
			int j;

			nrt_log(fn, "open device", path, "%s", strerror(e));
			for (j = 0; j < k; j++)
				close(devs[j].fd);
			free(devs);
			free(minors);
			return e == EACCES || e == EPERM ? NRT_RESOURCE : NRT_FAILURE;
		}
		memset(&dv->info, 0, sizeof(dv->info));
		r = nrt_query(fd, NEURON_QUERY_DEVICE, &dv->info, sizeof(dv->info));
		if (r < 0 || !nrt_dev_usable(&dv->info) ||
		    cores + dv->info.nc_count > NRT_MAX_CORES) {
			if (r < 0)
				nrt_log(fn, "query device", path, "%s", strerror(-r));
			close(fd);
			continue;	/* not a device that runs models: not ours */
		}
		dv->fd = fd;
		dv->minor = minors[i];
		dv->first_core = cores;
		cores += dv->info.nc_count;
		k++;
	}
	free(minors);
	if (!rw) {
		for (i = 0; i < (uint32_t)k; i++)
			close(devs[i].fd);
		free(devs);
		devs = NULL;
	}
	*out = devs;
	*ndevs = k;
	*total = cores;
	return NRT_SUCCESS;
}

struct nrt_dev *nrt_core_dev(uint32_t core, uint32_t *local_nc)
{
	uint32_t i;

	for (i = 0; i < nrt_rt.ndevs; i++) {
		struct nrt_dev *dv = &nrt_rt.devs[i];

		if (core >= dv->first_core && core < dv->first_core + dv->info.nc_count) {
			*local_nc = core - dv->first_core;
			return dv;
		}
	}
	return NULL;
}

/* NEURON_QUERY_NC_STATE of @dv; NULL on failure. Free it. */
static struct neuron_nc_states *nrt_nc_states(struct nrt_dev *dv)
{
	size_t sz = sizeof(struct neuron_nc_states) +
		    dv->info.nc_count * sizeof(struct neuron_nc_state);
	struct neuron_nc_states *s = calloc(1, sz);

	if (s && nrt_query(dv->fd, NEURON_QUERY_NC_STATE, s, sz) < 0) {
		free(s);
		s = NULL;
	}
	if (s && s->nc_count > dv->info.nc_count)
		s->nc_count = dv->info.nc_count;
	return s;
}

/*
 * Who holds a NeuronCore, as the driver tells this file: never "another
 * process" for a reservation of this process's own.
 */
enum nrt_holder {
	NRT_HELD_FREE,		/* nobody (released meanwhile) */
	NRT_HELD_RUNTIME,	/* this runtime's file (NEURON_NC_STATE_MINE) */
	NRT_HELD_SELF,		/* this process, through another file */
	NRT_HELD_OTHER,		/* another process (pid known) */
	NRT_HELD_HIDDEN,	/* a file whose owner the driver does not name */
	NRT_HELD_FAILED,	/* out of service */
	NRT_HELD_NR
};

static enum nrt_holder nrt_holder_of(const struct neuron_nc_state *st)
{
	if (st->state == NEURON_NC_FAILED)
		return NRT_HELD_FAILED;
	if (st->flags & NEURON_NC_STATE_MINE)
		return NRT_HELD_RUNTIME;
	if (st->flags & NEURON_NC_STATE_OWNER)
		return st->owner_pid == getpid() ? NRT_HELD_SELF : NRT_HELD_OTHER;
	return st->state == NEURON_NC_FREE ? NRT_HELD_FREE : NRT_HELD_HIDDEN;
}

/* Why global @core is busy, to follow "core N is ". */
void nrt_busy_reason(uint32_t core, char *buf, size_t len)
{
	struct neuron_nc_states *s;
	struct neuron_nc_state *st;
	struct nrt_dev *dv;
	uint32_t nc;

	snprintf(buf, len, "%s",
		 "held by another open file of its device (the driver did not say whose)");
	dv = nrt_core_dev(core, &nc);
	s = dv ? nrt_nc_states(dv) : NULL;
	if (!s)
		return;
	if (nc < s->nc_count) {
		st = (struct neuron_nc_state *)(s + 1) + nc;
		switch (nrt_holder_of(st)) {
		case NRT_HELD_FREE:
			snprintf(buf, len, "free now (it was released meanwhile)");
			break;
		case NRT_HELD_RUNTIME:
			snprintf(buf, len, "already held by this runtime");
			break;
		case NRT_HELD_SELF:
			snprintf(buf, len,
				 "held by this process itself (pid %d) through another open file of its device (a leftover of its own, not this runtime's)",
				 st->owner_pid);
			break;
		case NRT_HELD_OTHER:
			snprintf(buf, len, "in use by another process (pid %d)", st->owner_pid);
			break;
		case NRT_HELD_HIDDEN:
			snprintf(buf, len,
				 "reserved by a file of another user (the driver names its process only to that user or to CAP_SYS_ADMIN)");
			break;
		default:
			snprintf(buf, len, "out of service (its reset failed)");
		}
	}
	free(s);
}

/*
 * Who holds the cores of the instance, to follow "no free NeuronCore
 * left: " (e.g. "2 held by this runtime, 8 in use by other processes").
 */
static void nrt_census(char *buf, size_t len)
{
	static const char *const what[NRT_HELD_NR + 1] = {
		[NRT_HELD_FREE] = "free now (released meanwhile)",
		[NRT_HELD_RUNTIME] = "held by this runtime",
		[NRT_HELD_SELF] =
			"held by this process itself through other open files of the devices (leftovers of its own)",
		[NRT_HELD_OTHER] = "in use by other processes",
		[NRT_HELD_HIDDEN] =
			"reserved by files of other users (the driver does not name them to this user)",
		[NRT_HELD_FAILED] = "out of service (a reset failed)",
		[NRT_HELD_NR] = "not known (the query failed)",
	};
	uint32_t count[NRT_HELD_NR + 1] = { 0 }, i, j;
	size_t n = 0;
	int r;

	for (i = 0; i < nrt_rt.ndevs; i++) {
		struct nrt_dev *dv = &nrt_rt.devs[i];
		struct neuron_nc_states *s = nrt_nc_states(dv);

		if (!s) {
			count[NRT_HELD_NR] += dv->info.nc_count;
			continue;
		}
		for (j = 0; j < s->nc_count; j++)
			count[nrt_holder_of((struct neuron_nc_state *)(s + 1) + j)]++;
		count[NRT_HELD_NR] += dv->info.nc_count - s->nc_count;
		free(s);
	}
	buf[0] = 0;
	for (i = 0; i <= NRT_HELD_NR; i++) {
		if (!count[i] || n >= len)
			continue;
		r = snprintf(buf + n, len - n, "%s%u %s", n ? ", " : "", count[i], what[i]);
		n += r > 0 ? (size_t)r : 0;
	}
}

/* NC_RESERVE one global core; 0 or -errno. */
static int nrt_reserve(uint32_t core)
{
	struct nrt_dev *dv;
	uint32_t nc;

	dv = nrt_core_dev(core, &nc);
	if (!dv)
		return -EINVAL;
	return nio_nc_reserve(dv->fd, 1ULL << nc);
}

static int nrt_have_core(uint32_t core)
{
	uint32_t i;

	for (i = 0; i < nrt_rt.nvnc; i++)
		if (nrt_rt.vnc_core[i] == core)
			return 1;
	return 0;
}

/* Reserve the lowest free core not yet ours; 0, -EBUSY (none) or -errno. */
static int nrt_claim_next(void)
{
	uint32_t c;
	int r;

	for (c = 0; c < nrt_rt.total_cores; c++) {
		if (nrt_have_core(c))
			continue;
		r = nrt_reserve(c);
		if (!r) {
			nrt_rt.vnc_core[nrt_rt.nvnc++] = c;
			return 0;
		}
		if (r != -EBUSY && r != -EIO)
			return r;
	}
	return -EBUSY;
}

NRT_STATUS nrt_vnc_core(const char *fn, const char *what, int vnc, uint32_t *core,
			NRT_STATUS busy_status)
{
	char obj[32];
	int r = 0;

	snprintf(obj, sizeof(obj), "vnc %d", vnc);
	if (vnc < 0) {
		nrt_log(fn, what, obj, "not a NeuronCore index");
		return NRT_INVALID;
	}
	pthread_mutex_lock(&nrt_rt.core_lock);
	if (nrt_rt.fixed) {
		if ((uint32_t)vnc >= nrt_rt.nvnc) {
			pthread_mutex_unlock(&nrt_rt.core_lock);
			nrt_log(fn, what, obj, "only %u NeuronCores are visible to this process",
				nrt_rt.nvnc);
			return NRT_INVALID;
		}
	} else {
		if ((uint32_t)vnc >= nrt_rt.total_cores) {
			pthread_mutex_unlock(&nrt_rt.core_lock);
			nrt_log(fn, what, obj, "the instance has %u NeuronCores",
				nrt_rt.total_cores);
			return NRT_INVALID;
		}
		while (nrt_rt.nvnc <= (uint32_t)vnc) {
			r = nrt_claim_next();
			if (r)
				break;
		}
		if (r) {
			char who[512];

			if (r == -EBUSY)
				nrt_census(who, sizeof(who));
			pthread_mutex_unlock(&nrt_rt.core_lock);
			if (r == -EBUSY) {
				nrt_log(fn, what, obj, "no free NeuronCore left: %s", who);
				return busy_status;
			}
			nrt_log(fn, what, obj, "reserving a NeuronCore failed: %s", strerror(-r));
			return nrt_errno_status(-r);
		}
	}
	*core = nrt_rt.vnc_core[vnc];
	pthread_mutex_unlock(&nrt_rt.core_lock);
	return NRT_SUCCESS;
}

/* ---- environment: NEURON_RT_VISIBLE_CORES, NEURON_RT_NUM_CORES ---- */

/* Parse "0-3", "1,2", "2", "0-1,4"; -1 on a syntax error. Sorted, unique. */
static int nrt_parse_cores(const char *s, uint32_t *out, uint32_t max, uint32_t *n)
{
	static unsigned char seen[NRT_MAX_CORES];
	unsigned long a, b, c;
	char *end;
	uint32_t k = 0;

	memset(seen, 0, sizeof(seen));
	while (*s) {
		while (*s == ' ')
			s++;
		if (!isdigit((unsigned char)*s))
			return -1;
		a = strtoul(s, &end, 10);
		b = a;
		s = end;
		if (*s == '-') {
			s++;
			if (!isdigit((unsigned char)*s))
				return -1;
			b = strtoul(s, &end, 10);
			s = end;
		}
		while (*s == ' ')
			s++;
		/* A comma must be followed by another core or range. */
		if (*s == ',' && s[1])
			s++;
		else if (*s)
			return -1;
		if (b < a || b >= NRT_MAX_CORES)
			return -1;
		for (c = a; c <= b; c++)
			seen[c] = 1;
	}
	for (c = 0; c < NRT_MAX_CORES && k < max; c++)
		if (seen[c])
			out[k++] = (uint32_t)c;
	*n = k;
	return k ? 0 : -1;
}

static int nrt_env_num(const char *s, uint32_t *v)
{
	unsigned long x;
	char *end;

	if (!isdigit((unsigned char)*s))
		return -1;
	errno = 0;
	x = strtoul(s, &end, 10);
	if (*end || errno || x == 0 || x > NRT_MAX_CORES)
		return -1;
	*v = (uint32_t)x;
	return 0;
}

/*
 * The visible cores the environment asks for: 1 and the list (@list,
 * @n) for NEURON_RT_VISIBLE_CORES; 2 and the count @n for
 * NEURON_RT_NUM_CORES; 0 when neither is set; -1 on a bad value (logged).
 */
static int nrt_env_cores(const char *fn, uint32_t *list, uint32_t *n)
{
	static pthread_mutex_t env_lock = PTHREAD_MUTEX_INITIALIZER;
	const char *vis = getenv("NEURON_RT_VISIBLE_CORES");
	const char *num = getenv("NEURON_RT_NUM_CORES");
	int r;

	if (vis && *vis) {
		pthread_mutex_lock(&env_lock);
		r = nrt_parse_cores(vis, list, NRT_MAX_CORES, n);
		pthread_mutex_unlock(&env_lock);
		if (r) {
			nrt_log(fn, "read NEURON_RT_VISIBLE_CORES", vis,
				"expected core numbers and ranges such as \"0-3\" or \"1,2\"");
			return -1;
		}
		return 1;
	}
	if (num && *num) {
		if (nrt_env_num(num, n)) {
			nrt_log(fn, "read NEURON_RT_NUM_CORES", num,
				"expected a number of cores, at least 1");
			return -1;
		}
		return 2;
	}
	return 0;
}

/* ---- nrt_init / nrt_close ---- */

static void nrt_close_devs(void)
{
	uint32_t i;

	for (i = 0; i < nrt_rt.ndevs; i++)
		close(nrt_rt.devs[i].fd);	/* the driver releases the cores */
	free(nrt_rt.devs);
	nrt_rt.devs = NULL;
	nrt_rt.ndevs = 0;
	nrt_rt.total_cores = 0;
	nrt_rt.nvnc = 0;
	nrt_rt.fixed = 0;
}

static NRT_STATUS nrt_init_cores(const char *fn)
{
	static uint32_t list[NRT_MAX_CORES];
	uint32_t n = 0, i;
	int how, r;
	char obj[32], why[512];

	how = nrt_env_cores(fn, list, &n);
	if (how < 0)
		return NRT_INVALID;
	if (how == 0)
		return NRT_SUCCESS;	/* cores are reserved when first used */
	nrt_rt.fixed = 1;
	if (how == 2) {
		for (i = 0; i < n; i++) {
			r = nrt_claim_next();
			if (r) {
				snprintf(obj, sizeof(obj), "NEURON_RT_NUM_CORES=%u", n);
				if (r == -EBUSY) {
					nrt_census(why, sizeof(why));
					nrt_log(fn, "reserve cores", obj,
						"only %u of the %u NeuronCores are free: %s", i,
						nrt_rt.total_cores, why);
				} else {
					nrt_log(fn, "reserve cores", obj, "%s", strerror(-r));
				}
				return r == -EBUSY ? NRT_RESOURCE : nrt_errno_status(-r);
			}
		}
		return NRT_SUCCESS;
	}
	for (i = 0; i < n; i++) {
		struct nrt_dev *dv;
		uint32_t nc = 0;

		snprintf(obj, sizeof(obj), "nc %u", list[i]);
		if (list[i] >= nrt_rt.total_cores) {
			nrt_log(fn, "reserve core", obj,
				"NEURON_RT_VISIBLE_CORES names a core the instance does not have (%u NeuronCores)",
				nrt_rt.total_cores);
			return NRT_INVALID;
		}
		r = nrt_reserve(list[i]);
		if (r) {
			dv = nrt_core_dev(list[i], &nc);
			if (dv && (r == -EBUSY || r == -EIO)) {
				nrt_busy_reason(list[i], why, sizeof(why));
				nrt_log(fn, "reserve core", obj, "core %u is %s", list[i], why);
				return NRT_RESOURCE;
			}
			nrt_log(fn, "reserve core", obj, "%s", strerror(-r));
			return nrt_errno_status(-r);
		}
		nrt_rt.vnc_core[nrt_rt.nvnc++] = list[i];
	}
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_init(nrt_framework_type_t framework, const char *fw_version,
			       const char *fal_version)
{
	static const char fn[] = "nrt_init";
	NRT_STATUS s;

	(void)fw_version;
	(void)fal_version;
	if (framework <= NRT_FRAMEWORK_TYPE_INVALID || framework > NRT_FRAMEWORK_TYPE_PRECHECK) {
		nrt_log(fn, "check framework", NULL, "%d is not an nrt_framework_type_t",
			(int)framework);
		return NRT_INVALID;
	}
	pthread_rwlock_wrlock(&nrt_rt.lock);
	if (nrt_rt.state == NRT_STATE_INIT) {
		pthread_rwlock_unlock(&nrt_rt.lock);
		nrt_log(fn, "initialise", NULL, "already initialised (call nrt_close() first)");
		return NRT_INVALID;
	}
	s = nrt_open_devs(fn, 1, &nrt_rt.devs, &nrt_rt.ndevs, &nrt_rt.total_cores);
	if (s == NRT_SUCCESS && !nrt_rt.total_cores) {
		nrt_log(fn, "find devices", nrt_dev_dir(), "no Neuron device that runs models");
		s = NRT_RESOURCE;
	}
	if (s == NRT_SUCCESS) {
		pthread_mutex_lock(&nrt_rt.core_lock);
		nrt_rt.nvnc = 0;
		s = nrt_init_cores(fn);
		pthread_mutex_unlock(&nrt_rt.core_lock);
	}
	if (s != NRT_SUCCESS) {
		nrt_close_devs();
		pthread_rwlock_unlock(&nrt_rt.lock);
		return s;
	}
	nrt_rt.gen++;
	nrt_rt.state = NRT_STATE_INIT;
	pthread_rwlock_unlock(&nrt_rt.lock);
	return NRT_SUCCESS;
}

/*
 * Everything of the run goes, whatever the caller still holds: the
 * mappings of its device tensors first (each holds the device file), then
 * the files, whose release by the driver ends the run's reservations and
 * frees its memory and models. Tensors and models the caller still holds
 * keep their host side until nrt_tensor_free() and nrt_unload().
 */
NRT_EXPORT void nrt_close(void)
{
	pthread_rwlock_wrlock(&nrt_rt.lock);
	if (nrt_rt.state == NRT_STATE_INIT) {
		nrt_drop_dev_mem();
		nrt_close_devs();
		nrt_rt.state = NRT_STATE_CLOSED;
	}
	pthread_rwlock_unlock(&nrt_rt.lock);
}

/* ---- counts ---- */

static NRT_STATUS nrt_count(const char *fn, uint32_t *out, int visible)
{
	uint32_t *list;
	uint32_t total = 0, ndevs, n = 0;
	struct nrt_dev *devs;
	NRT_STATUS s;
	int how;

	if (!out) {
		nrt_log(fn, "check arguments", NULL, "the count pointer is NULL");
		return NRT_INVALID;
	}
	pthread_rwlock_rdlock(&nrt_rt.lock);
	if (nrt_rt.state == NRT_STATE_INIT) {
		*out = visible && nrt_rt.fixed ? nrt_rt.nvnc : nrt_rt.total_cores;
		pthread_rwlock_unlock(&nrt_rt.lock);
		return NRT_SUCCESS;
	}
	pthread_rwlock_unlock(&nrt_rt.lock);
	/* before nrt_init (or after nrt_close): open, query, close */
	s = nrt_open_devs(fn, 0, &devs, &ndevs, &total);
	if (s != NRT_SUCCESS)
		return s;
	*out = total;
	if (!visible)
		return NRT_SUCCESS;
	list = malloc(NRT_MAX_CORES * sizeof(*list));
	if (!list) {
		nrt_log(fn, "count cores", NULL, "out of host memory");
		return NRT_FAIL_HOST_MEM_ALLOC;
	}
	how = nrt_env_cores(fn, list, &n);
	if (how < 0) {
		free(list);
		return NRT_INVALID;
	}
	if (how == 1) {
		uint32_t i, k = 0;

		for (i = 0; i < n; i++)
			k += list[i] < total;
		*out = k;
	} else if (how == 2) {
		*out = n < total ? n : total;
	}
	free(list);
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_total_nc_count(uint32_t *nc_count)
{
	return nrt_count("nrt_get_total_nc_count", nc_count, 0);
}

NRT_EXPORT NRT_STATUS nrt_get_total_vnc_count(uint32_t *vnc_count)
{
	return nrt_count("nrt_get_total_vnc_count", vnc_count, 0);
}

NRT_EXPORT NRT_STATUS nrt_get_visible_nc_count(uint32_t *nc_count)
{
	return nrt_count("nrt_get_visible_nc_count", nc_count, 1);
}

NRT_EXPORT NRT_STATUS nrt_get_visible_vnc_count(uint32_t *vnc_count)
{
	return nrt_count("nrt_get_visible_vnc_count", vnc_count, 1);
}

/* ---- version, instance, status strings ---- */

NRT_EXPORT NRT_STATUS nrt_get_version(nrt_version_t *ver, size_t size)
{
	nrt_version_t v;
	unsigned int a = 0, b = 0, c = 0;

	if (!ver || !size) {
		nrt_log("nrt_get_version", "check arguments", NULL, "NULL or empty version buffer");
		return NRT_INVALID;
	}
	memset(&v, 0, sizeof(v));
	if (sscanf(NRT_LIB_VERSION, "%u.%u.%u", &a, &b, &c) < 1) {
		a = 0;
		b = 0;
		c = 0;
	}
	v.rt_major = NRT_MAJOR_VERSION;
	v.rt_minor = NRT_MINOR_VERSION;
	v.rt_patch = c;
	v.rt_maintenance = 0;
	snprintf(v.rt_detail, sizeof(v.rt_detail),
		 "neuron libnrt %s (GPL-2.0 shim over neuron.ko, API %d.%d)",
		 NRT_LIB_VERSION, NRT_MAJOR_VERSION, NRT_MINOR_VERSION);
	snprintf(v.git_hash, sizeof(v.git_hash), "%s", NRT_GIT_HASH);
	memcpy(ver, &v, size < sizeof(v) ? size : sizeof(v));
	return NRT_SUCCESS;
}

NRT_EXPORT NRT_STATUS nrt_get_instance_info(nrt_instance_info_t *info, size_t instance_info_len)
{
	static const char fn[] = "nrt_get_instance_info";
	struct neuron_device_info di;
	nrt_instance_info_t ii;
	uint32_t *minors;
	char path[4096];
	int n, i, fd, found = 0;

	if (!info || !instance_info_len) {
		nrt_log(fn, "check arguments", NULL, "NULL or empty info buffer");
		return NRT_INVALID;
	}
	n = nrt_scan(&minors);
	if (n < 0) {
		nrt_log(fn, "scan devices", nrt_dev_dir(), "%s", strerror(-n));
		return NRT_FAILURE;
	}
	for (i = 0; i < n && !found; i++) {
		snprintf(path, sizeof(path), "%s/neuron%u", nrt_dev_dir(), minors[i]);
		fd = nio_open_path(path, O_RDONLY);
		if (fd < 0)
			continue;
		memset(&di, 0, sizeof(di));
		if (nrt_query(fd, NEURON_QUERY_DEVICE, &di, sizeof(di)) >= 0)
			found = 1;
		close(fd);
	}
	free(minors);
	if (!found) {
		nrt_log(fn, "find devices", nrt_dev_dir(), "no Neuron device");
		return NRT_RESOURCE;
	}
	memset(&ii, 0, sizeof(ii));
	ii.size = NRT_INSTANCE_SIZE_UNKNOWN;
	di.product[sizeof(di.product) - 1] = 0;
	di.arch_name[sizeof(di.arch_name) - 1] = 0;
	if (!strcmp(di.product, "inf1"))
		ii.family = NRT_INSTANCE_INF1;
	else if (!strcmp(di.product, "trn1"))
		ii.family = NRT_INSTANCE_TRN1;
	else if (!strcmp(di.product, "inf2"))
		ii.family = NRT_INSTANCE_INF2;
	else if (!strcmp(di.product, "trn2"))
		ii.family = NRT_INSTANCE_TRN2;
	else
		ii.family = NRT_INSTANCE_UNKNOWN;
	snprintf(ii.arch_name, sizeof(ii.arch_name), "%s", di.arch_name);
	snprintf(ii.device_revision, sizeof(ii.device_revision), "%s",
		 (di.flags & NEURON_DEV_SIMULATED) ? "sim" : "");
	memcpy(info, &ii, instance_info_len < sizeof(ii) ? instance_info_len : sizeof(ii));
	return NRT_SUCCESS;
}

NRT_EXPORT const char *nrt_get_status_as_str(NRT_STATUS status)
{
	switch (status) {
	case NRT_SUCCESS: return "Success";
	case NRT_FAILURE: return "Failure";
	case NRT_INVALID: return "Invalid argument or input";
	case NRT_INVALID_HANDLE: return "Invalid handle";
	case NRT_RESOURCE: return "Out of resources";
	case NRT_TIMEOUT: return "Timed out";
	case NRT_HW_ERROR: return "Hardware error";
	case NRT_QUEUE_FULL: return "Execution queue full";
	case NRT_LOAD_NOT_ENOUGH_NC: return "Not enough NeuronCores for the model";
	case NRT_UNSUPPORTED_NEFF_VERSION: return "Unsupported model format version";
	case NRT_FAIL_HOST_MEM_ALLOC: return "Host memory allocation failed";
	case NRT_UNINITIALIZED: return "Runtime not initialized";
	case NRT_CLOSED: return "Runtime closed";
	case NRT_QUEUE_EMPTY: return "Queue empty";
	case NRT_EXEC_UNIT_UNRECOVERABLE: return "Execution unit unrecoverable";
	case NRT_EXEC_BAD_INPUT: return "Execution failed: bad input";
	case NRT_EXEC_COMPLETED_WITH_NUM_ERR: return "Execution completed with numerical errors";
	case NRT_EXEC_COMPLETED_WITH_ERR: return "Execution completed with errors";
	case NRT_EXEC_NC_BUSY: return "NeuronCore busy";
	case NRT_EXEC_OOB: return "Execution out of bounds";
	case NRT_COLL_PENDING: return "Collective operation pending";
	case NRT_EXEC_HW_ERR_COLLECTIVES: return "Hardware error in collectives";
	case NRT_EXEC_HW_ERR_HBM_UE: return "Uncorrectable device memory error";
	case NRT_EXEC_HW_ERR_NC_UE: return "Uncorrectable NeuronCore error";
	case NRT_EXEC_HW_ERR_DMA_ABORT: return "DMA aborted";
	case NRT_EXEC_SW_NQ_OVERFLOW: return "Notification queue overflow";
	case NRT_EXEC_HW_ERR_REPAIRABLE_HBM_UE: return "Repairable device memory error";
	case NRT_NETWORK_PROXY_FAILURE: return "Network proxy failure";
	}
	return "Unknown status";
}

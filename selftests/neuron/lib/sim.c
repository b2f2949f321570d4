// SPDX-License-Identifier: GPL-2.0
/*
 * neuron selftests' library: the device under test, simulated devices,
 * sysfs files and module parameters (neuron_lib.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/stat.h>
#include <sys/sysinfo.h>
#include <sys/sysmacros.h>
#include <termios.h>
#include <time.h>
#include <unistd.h>

#include "neuron_lib.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

const struct neuron_geometry neuron_geometries[3] = {
	{ NEURON_ARCH_V1, "v1", 4, 12, 16, 2, 32, 256 },
	{ NEURON_ARCH_V2, "v2", 2, 34, 16, 2, 256, 256 },
	{ NEURON_ARCH_V3, "v3", 8, 132, 16, 4, 256, 256 },
};

const struct neuron_geometry *neuron_geometry_of(__u32 arch)
{
	size_t i;

	for (i = 0; i < ARRAY_SIZE(neuron_geometries); i++)
		if (neuron_geometries[i].arch == arch)
			return &neuron_geometries[i];
	return NULL;
}

const char *neuron_env_device(void)
{
	const char *dev = getenv("NEURON_DEVICE");

	return dev && *dev ? dev : NULL;
}

enum neuron_mode neuron_mode(void)
{
	if (neuron_env_device())
		return NEURON_MODE_DEVICE;
	if (access(NEURON_SIM_BUS, F_OK) == 0)
		return NEURON_MODE_SIM;
	return NEURON_MODE_NONE;
}

const char *neuron_env_devmodel_ctl(void)
{
	const char *ctl = getenv("NEURON_DEVMODEL_CTL");

	return ctl && *ctl ? ctl : NULL;
}

/* Read one line (without its newline) from @fd within @ms: 0 or -errno. */
static int devmodel_line(int fd, char *line, size_t size, int ms)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	size_t n = 0;
	char c;

	for (;;) {
		int r = poll(&pfd, 1, ms);

		if (r < 0)
			return -errno;
		if (!r)
			return -ETIMEDOUT;
		r = read(fd, &c, 1);
		if (r < 0)
			return -errno;
		if (!r)
			return -EIO;
		if (c == '\r')
			continue;
		if (c == '\n')
			break;
		if (n + 1 < size)
			line[n++] = c;
	}
	line[n] = 0;
	return 0;
}

/* Open the serial line @path raw at 115200 baud: its fd, or -errno. */
static int serial_open(const char *path)
{
	struct termios tio;
	int fd, err;

	fd = open(path, O_RDWR | O_NOCTTY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	err = tcgetattr(fd, &tio) ? -errno : 0;
	if (!err) {
		cfmakeraw(&tio);
		cfsetspeed(&tio, B115200);
		err = tcsetattr(fd, TCSANOW, &tio) ? -errno : 0;
	}
	if (err)
		close(fd);
	return err ? err : fd;
}

int neuron_devmodel_open(void)
{
	const char *ctl = neuron_env_devmodel_ctl();
	int fd;

	if (!ctl)
		return -ENODEV;
	fd = serial_open(ctl);
	if (fd >= 0)
		tcflush(fd, TCIFLUSH);
	return fd;
}

/*
 * @cmd to the model on @fd, its answer read up to "ok" or "err ...": the
 * lines before it into @out (what fits of @outlen, each ended by a newline)
 * unless NULL; with @name, the value of line "@name N" in *@val (-ENOENT
 * when the answer has none).
 */
static int devmodel_talk(int fd, const char *cmd, char *out, size_t outlen,
			 const char *name, long long *val)
{
	size_t len = name ? strlen(name) : 0, used = 0;
	bool found = false;
	char line[256];
	int err;

	if (out && outlen)
		out[0] = 0;
	if (dprintf(fd, "%s\n", cmd) < 0)
		return -errno;
	for (;;) {
		err = devmodel_line(fd, line, sizeof(line), 20000);
		if (err) {
			fprintf(stderr, "# model: %s: no answer (%s)\n", cmd, strerror(-err));
			return err;
		}
		if (!strcmp(line, "ok"))
			break;
		if (!strncmp(line, "err ", 4)) {
			fprintf(stderr, "# model: %s: %s\n", cmd, line);
			return -EIO;
		}
		if (name && !strncmp(line, name, len) && line[len] == ' ') {
			*val = atoll(line + len + 1);
			found = true;
		}
		if (out && used + strlen(line) + 2 <= outlen)
			used += sprintf(out + used, "%s\n", line);
	}
	return name && !found ? -ENOENT : 0;
}

int neuron_devmodel_ask(int fd, const char *cmd, char *out, size_t outlen)
{
	return devmodel_talk(fd, cmd, out, outlen, NULL, NULL);
}

int neuron_devmodel_stat_fd(int fd, const char *name, long long *val)
{
	return devmodel_talk(fd, "stats", NULL, 0, name, val);
}

int neuron_devmodel_cmd(const char *cmd)
{
	int fd = neuron_devmodel_open(), err;

	if (fd < 0)
		return fd;
	err = neuron_devmodel_ask(fd, cmd, NULL, 0);
	close(fd);
	return err;
}

int neuron_devmodel_stat(const char *name, long long *val)
{
	int fd = neuron_devmodel_open(), err;

	if (fd < 0)
		return fd;
	err = neuron_devmodel_stat_fd(fd, name, val);
	close(fd);
	return err;
}

bool neuron_env_devmodel_kill(void)
{
	const char *kill = getenv("NEURON_DEVMODEL_KILL");

	return kill && !strcmp(kill, "1");
}

int neuron_devmodel_die(int ms)
{
	char line[256];
	int fd, err;

	fd = neuron_devmodel_open();
	if (fd < 0)
		return fd;
	if (dprintf(fd, "die\n") < 0) {
		err = -errno;
		close(fd);
		return err;
	}
	err = devmodel_line(fd, line, sizeof(line), ms);
	if (!err) {
		fprintf(stderr, "# model: die: answered %s\n", line);
		err = -EPROTO;
	} else if (err == -ETIMEDOUT) {
		err = 0;
	}
	close(fd);
	return err;
}

const char *neuron_env_devmodel_qmp(void)
{
	const char *qmp = getenv("NEURON_DEVMODEL_QMP");

	return qmp && *qmp ? qmp : NULL;
}

/* Milliseconds of CLOCK_MONOTONIC. */
static long long mono_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000LL + t.tv_nsec / 1000000;
}

/*
 * Read lines of the monitor until one holds both @what and @also (NULL:
 * any): 0, -EIO if that line holds "error" (printed); -ETIMEDOUT when none
 * came before @end (mono_ms()). Other lines are passed over: answers to
 * what was not a command (below) and events.
 */
static int qmp_until(int fd, const char *what, const char *also, long long end)
{
	char line[1024];
	int err;

	for (;;) {
		if (mono_ms() >= end)
			return -ETIMEDOUT;
		err = devmodel_line(fd, line, sizeof(line), (int)(end - mono_ms()) + 1);
		if (err)
			return err;
		fprintf(stderr, "# QMP< %s\n", line);
		if (!strstr(line, what) || (also && !strstr(line, also)))
			continue;
		if (strstr(line, "\"error\"")) {
			fprintf(stderr, "# QMP: %s\n", line);
			return -EIO;
		}
		return 0;
	}
}

/* The command, of id "del", for the qdev id given by %s. */
#define QMP_DEVICE_DEL	"{'execute': 'device_del', 'id': 'del', 'arguments': {'id': '%s'}}\n"

int neuron_qmp_device_del(const char *id, int ms)
{
	const char *qmp = neuron_env_devmodel_qmp();
	bool done;
	char dev[128];
	int fd, err, ret, i;

	if (!qmp)
		return -ENODEV;
	fd = serial_open(qmp);
	if (fd < 0)
		return fd;
	/*
	 * QEMU's greeting has waited on the line since the boot; what of it
	 * came in before the line was raw was echoed back to the monitor, as
	 * bytes that are no command. A piece that opens braces and no string
	 * ('{"QMP": {"version": {') leaves QEMU's JSON parser waiting for
	 * their ends, so it swallows every command after it. So drop what
	 * came in, and send each negotiation after a control character (0x1f):
	 * a lexical error, which QMP's specification gives as the way to put
	 * the parser back to its start ("Forcing the JSON parser into
	 * known-good state"); QEMU answers it with an error of no "id". Send
	 * it with an id until it is answered: a "return", or an error when
	 * the mode is already the command mode. (QEMU's JSON parser takes
	 * single-quoted strings too; its answers have double quotes.) Every
	 * line of the monitor is printed as a "# QMP<" line.
	 */
	usleep(200000);
	tcflush(fd, TCIFLUSH);
	err = 0;
	for (i = 0, done = false; !err && !done; i++) {
		if (i == 5) {
			err = -ETIMEDOUT;
			break;
		}
		if (dprintf(fd, "\x1f\n{'execute': 'qmp_capabilities', 'id': 'cap%d'}\n", i) < 0) {
			err = -errno;
			break;
		}
		snprintf(dev, sizeof(dev), "\"id\": \"cap%d\"", i);
		ret = qmp_until(fd, dev, NULL, mono_ms() + 4000);
		if (!ret || ret == -EIO)
			done = true;
		else if (ret != -ETIMEDOUT)
			err = ret;
	}
	if (!err && i > 1)
		fprintf(stderr, "# QMP: the negotiation was answered at try %d\n", i);
	if (!err && dprintf(fd, QMP_DEVICE_DEL, id) < 0)
		err = -errno;
	if (!err)
		err = qmp_until(fd, "\"id\": \"del\"", NULL, mono_ms() + 20000);
	/* The event names the device by its id; others may come first. */
	snprintf(dev, sizeof(dev), "\"device\": \"%s\"", id);
	if (!err)
		err = qmp_until(fd, "\"DEVICE_DELETED\"", dev, mono_ms() + ms);
	close(fd);
	return err;
}

const char *neuron_mode_skip_reason(void)
{
	if (neuron_mode() == NEURON_MODE_DEVICE)
		return "NEURON_DEVICE is set: this test needs simulated devices";
	return "no neuron device: set NEURON_DEVICE or load neuron_sim.ko (" NEURON_SIM_BUS ")";
}

int neuron_sysfs_write(const char *path, const char *text)
{
	size_t len = strlen(text);
	ssize_t ret;
	int fd, err = 0;

	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = write(fd, text, len);
	if (ret < 0)
		err = -errno;
	else if ((size_t)ret != len)
		err = -EIO;
	close(fd);
	return err;
}

int neuron_kmsg_count(const char *what)
{
	char rec[2048];
	int fd = open("/dev/kmsg", O_RDONLY | O_NONBLOCK | O_CLOEXEC), n = 0;
	ssize_t r;

	if (fd < 0)
		return -1;
	for (;;) {
		r = read(fd, rec, sizeof(rec) - 1);
		if (r < 0 && errno == EPIPE)
			continue;	/* a record overwritten meanwhile */
		if (r <= 0)
			break;
		rec[r] = '\0';
		n += !!strstr(rec, what);
	}
	close(fd);
	return n;
}

int neuron_read_text(const char *path, char *buf, size_t size)
{
	ssize_t ret;
	int fd, err = 0;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	ret = read(fd, buf, size - 1);
	if (ret < 0)
		err = -errno;
	else
		buf[ret] = '\0';
	close(fd);
	return err;
}

/* The last component of the symbolic link /sys/class/neuron/neuron@minor/@rel, or NULL. */
static const char *class_link_base(unsigned int minor, const char *rel, char *link, size_t size)
{
	char path[128];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/%s", minor, rel);
	n = readlink(path, link, size - 1);
	if (n <= 0)
		return NULL;
	link[n] = '\0';
	return strrchr(link, '/') ? strrchr(link, '/') + 1 : link;
}

int neuron_pci_name(unsigned int minor, char *name, size_t len)
{
	const char *base;
	char link[256];

	base = class_link_base(minor, "device/subsystem", link, sizeof(link));
	if (!base || strcmp(base, "pci"))
		return -ENODEV;
	base = class_link_base(minor, "device", link, sizeof(link));
	if (!base)
		return -ENODEV;
	if (strlen(base) >= len)
		return len ? -ENAMETOOLONG : 0;
	memcpy(name, base, strlen(base) + 1);
	return 0;
}

int neuron_files_closed(const char *dir, bool try_open)
{
	char path[384];
	struct dirent *de;
	struct stat st;
	int n = 0, fd;
	DIR *d;

	d = opendir(dir);
	if (!d) {
		printf("# opendir %s: %s\n", dir, strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (lstat(path, &st) || !S_ISREG(st.st_mode))
			continue;
		if (st.st_mode & 0022) {
			printf("# %s: mode %o\n", path, st.st_mode & 07777);
			n = -1;
			break;
		}
		if (try_open) {
			fd = open(path, O_WRONLY | O_CLOEXEC);
			if (fd >= 0 || errno != EACCES) {
				printf("# %s: opened for writing (errno %d)\n", path, errno);
				if (fd >= 0)
					close(fd);
				n = -1;
				break;
			}
		}
		n++;
	}
	closedir(d);
	return n;
}

void neuron_sleep_ms(unsigned int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);
}

int neuron_sim_new_text(const char *text)
{
	return neuron_sysfs_write(NEURON_SIM_BUS "/new_device", text);
}

int neuron_sim_new(unsigned int id, const char *arch,
		   unsigned int mem_mb)
{
	char text[64];

	if (mem_mb)
		snprintf(text, sizeof(text), "%u %s %u\n", id, arch, mem_mb);
	else
		snprintf(text, sizeof(text), "%u %s\n", id, arch);
	return neuron_sim_new_text(text);
}

int neuron_sim_del(unsigned int id)
{
	char text[16];

	snprintf(text, sizeof(text), "%u\n", id);
	return neuron_sysfs_write(NEURON_SIM_BUS "/del_device", text);
}

bool neuron_sim_exists(unsigned int id)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u", id);
	return access(path, F_OK) == 0;
}

int neuron_sim_bind(unsigned int id, bool bind)
{
	char text[32];

	snprintf(text, sizeof(text), "neuron_sim%u", id);
	return neuron_sysfs_write(bind ? NEURON_SIM_DRIVER "/bind" :
				  NEURON_SIM_DRIVER "/unbind", text);
}

bool neuron_sim_bound(unsigned int id)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u/driver", id);
	return access(path, F_OK) == 0;
}

unsigned long long neuron_ram_bytes(void)
{
	struct sysinfo si;

	if (sysinfo(&si))
		return 0;
	return (unsigned long long)si.totalram * si.mem_unit;
}

unsigned int neuron_sim_mem_fit(unsigned int mem_mb)
{
	unsigned long long ram_mb = neuron_ram_bytes() >> 20;

	return ram_mb && ram_mb < mem_mb ? (unsigned int)ram_mb : mem_mb;
}

int neuron_sim_lookup(unsigned int id, unsigned int *minor_nr,
		      dev_t *devt)
{
	char dir[128], path[128 + sizeof(((struct dirent *)0)->d_name) + 8];
	char text[32];
	unsigned int maj, min, n;
	struct dirent *de;
	int err = -ENOENT;
	DIR *d;

	snprintf(dir, sizeof(dir), NEURON_SIM_BUS "/devices/neuron_sim%u/neuron", id);
	d = opendir(dir);
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		char extra;

		if (sscanf(de->d_name, "neuron%u%c", &n, &extra) != 1)
			continue;
		snprintf(path, sizeof(path), "%s/%s/dev", dir, de->d_name);
		err = neuron_read_text(path, text, sizeof(text));
		if (err)
			break;
		if (sscanf(text, "%u:%u", &maj, &min) != 2) {
			err = -EPROTO;
			break;
		}
		*minor_nr = n;
		*devt = makedev(maj, min);
		err = 0;
		break;
	}
	closedir(d);
	return err;
}

int neuron_sim_id_of_minor(unsigned int minor, unsigned int *id)
{
	char path[64], target[256];
	const char *base;
	ssize_t len;
	char extra;

	snprintf(path, sizeof(path), "/sys/class/neuron/neuron%u/device", minor);
	len = readlink(path, target, sizeof(target) - 1);
	if (len < 0)
		return -errno;
	target[len] = '\0';
	base = strrchr(target, '/');
	base = base ? base + 1 : target;
	if (sscanf(base, "neuron_sim%u%c", id, &extra) != 1)
		return -ENOENT;
	return 0;
}

bool neuron_wait_node(const char *path, dev_t devt, bool present)
{
	unsigned int waited;
	struct stat st;

	for (waited = 0; waited <= NEURON_NODE_TIMEOUT_MS; waited += 10) {
		bool there = stat(path, &st) == 0 && S_ISCHR(st.st_mode) &&
			     st.st_rdev == devt;

		if (there == present)
			return true;
		neuron_sleep_ms(10);
	}
	return false;
}

void neuron_node_init(struct neuron_node *n)
{
	memset(n, 0, sizeof(*n));
	n->fd = -1;
}

unsigned int neuron_sim_next_id(void)
{
	static unsigned int counter;

	return 1000 + ((getpid() % 2000) * 32 + counter++) % 64000;
}

int neuron_sim_attach(struct neuron_node *n, unsigned int id)
{
	unsigned int waited;
	int err;

	neuron_node_init(n);
	n->created = true;
	n->sim_id = id;
	for (waited = 0; ; waited += 10) {
		err = neuron_sim_lookup(id, &n->minor, &n->devt);
		if (!err)
			break;
		if (waited >= NEURON_NODE_TIMEOUT_MS)
			return -ETIMEDOUT;
		neuron_sleep_ms(10);
	}
	snprintf(n->path, sizeof(n->path), "/dev/neuron%u", n->minor);
	return neuron_wait_node(n->path, n->devt, true) ? 0 : -ETIMEDOUT;
}

int neuron_sim_create_id(struct neuron_node *n, unsigned int id,
			 const char *arch, unsigned int mem_mb)
{
	int err;

	neuron_node_init(n);
	err = neuron_sim_new(id, arch, mem_mb);
	if (err)
		return err;
	err = neuron_sim_attach(n, id);
	if (err) {
		neuron_sim_del(id);
		n->created = false;
	}
	return err;
}

int neuron_sim_create(struct neuron_node *n, const char *arch,
		      unsigned int mem_mb)
{
	int tries, err = -EEXIST;

	for (tries = 0; tries < 32 && err == -EEXIST; tries++)
		err = neuron_sim_create_id(n, neuron_sim_next_id(), arch, mem_mb);
	return err;
}

int neuron_sim_remove(struct neuron_node *n)
{
	int err = neuron_sim_del(n->sim_id);

	if (err)
		return err;
	n->created = false;
	return neuron_wait_node(n->path, n->devt, false) ? 0 : -ETIMEDOUT;
}

int neuron_node_open(struct neuron_node *n)
{
	n->fd = open(n->path, O_RDWR | O_CLOEXEC);
	return n->fd < 0 ? -errno : 0;
}

void neuron_node_release(struct neuron_node *n)
{
	if (n->fd >= 0)
		close(n->fd);
	n->fd = -1;
	if (n->created)
		neuron_sim_del(n->sim_id);
	n->created = false;
}

int neuron_sim_knob(struct neuron_node *n, const char *knob,
		    const char *val)
{
	char path[128];

	snprintf(path, sizeof(path), NEURON_SIM_BUS "/devices/neuron_sim%u/%s",
		 n->sim_id, knob);
	return neuron_sysfs_write(path, val);
}

int neuron_param_get(const char *name, unsigned long long *val)
{
	char path[128], text[32], *end;
	int err;

	snprintf(path, sizeof(path), NEURON_PARAM_DIR "%s", name);
	err = neuron_read_text(path, text, sizeof(text));
	if (err)
		return err;
	errno = 0;
	*val = strtoull(text, &end, 10);
	return errno || end == text || (*end && *end != '\n') ? -EPROTO : 0;
}

int neuron_param_set(const char *name, unsigned long long val)
{
	char path[128], text[32];

	snprintf(path, sizeof(path), NEURON_PARAM_DIR "%s", name);
	snprintf(text, sizeof(text), "%llu\n", val);
	return neuron_sysfs_write(path, text);
}

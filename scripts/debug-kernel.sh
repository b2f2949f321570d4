#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (once) the neuron debug test kernel from Debian's linux-source-6.1:
# KUnit built in, KASAN, lockdep, kmemleak, UBSAN, debugobjects, fault
# injection and gcov, booting under QEMU. The option list is
# scripts/debug-kernel.config; docs/debug-kernel.md explains it.
#
# usage: scripts/debug-kernel.sh [--check] [--prune]
#   (no option)  build if needed, then print KDIR=, IMAGE=, KRELEASE= lines
#                (also written to $NEURON_CACHE/debug-kernel/current.env)
#   --check      also prove the kernel works: build a throw-away KUnit module
#                against the tree, boot it in QEMU with a busybox initramfs,
#                and check KTAP results, kmemleak, gcov and fault injection
#   --prune      delete the trees of other keys (older sources or configs)
#
# The tree lives in $NEURON_CACHE/debug-kernel/<source version>-<hash>/src,
# where <hash> covers the option list, the functions that configure the
# tree, the make targets and the compiler. A second run with the same key
# only prints the paths. Out-of-tree modules: make -C "$KDIR" M=DIR modules

# shellcheck source=scripts/lib.sh
. "$(dirname "$0")/lib.sh"

DK_ARCH=x86_64
DK_JOBS=2
DK_LIST="$NEURON_TOP/scripts/debug-kernel.config"
DK_BASE="$NEURON_CACHE/debug-kernel"
# libssl-dev and openssl: module signing (sign-file, extract-cert, the
# build's own key and the test MOK key below).
DK_PKGS=(linux-source-6.1 xz-utils flex bison libelf-dev bc gcc make libc6-dev
	libssl-dev openssl)
# Targets, in order. modules_prepare leaves no Module.symvers (measured);
# `modules` (nothing to compile: every option is built in) writes it from
# vmlinux.symvers, so modpost checks the symbols of out-of-tree modules.
DK_TARGETS=(bzImage modules_prepare modules)

# ---- configuration: everything below up to the marker is in the key ----

# dk_parse_list FILE: print the option lines of FILE as "on NAME",
# "off NAME" or "val NAME VALUE"; die on a line it does not understand.
dk_parse_list() {
	local line n=0
	while IFS= read -r line || [ -n "$line" ]; do
		n=$((n + 1))
		if [[ $line =~ ^#\ (CONFIG_[A-Z0-9_]+)\ is\ not\ set$ ]]; then
			echo "off ${BASH_REMATCH[1]#CONFIG_}"
		elif [[ $line =~ ^[[:space:]]*(#.*)?$ ]]; then
			continue
		elif [[ $line =~ ^CONFIG_([A-Z0-9_]+)=y$ ]]; then
			echo "on ${BASH_REMATCH[1]}"
		elif [[ $line =~ ^CONFIG_([A-Z0-9_]+)=(-?[0-9]+|\"[^\"]*\")$ ]]; then
			echo "val ${BASH_REMATCH[1]} ${BASH_REMATCH[2]}"
		else
			die "$1:$n: cannot parse: $line"
		fi
	done <"$1"
}

# dk_apply SRC LIST: set every option of LIST in SRC/.config.
dk_apply() {
	local src=$1 list=$2 kind name value opts args=()
	opts=$(dk_parse_list "$list")
	while read -r kind name value; do
		case $kind in
		on) args+=(--enable "$name") ;;
		off) args+=(--disable "$name") ;;
		val)
			if [[ $value == \"* ]]; then
				value=${value#\"}
				args+=(--set-str "$name" "${value%\"}")
			else
				args+=(--set-val "$name" "$value")
			fi
			;;
		esac
	done <<<"$opts"
	(cd "$src" && ./scripts/config --file .config "${args[@]}")
}

# dk_verify CONFIG LIST: fail unless CONFIG holds every option of LIST.
dk_verify() {
	local cfg=$1 list=$2 kind name value opts bad=0 count=0
	opts=$(dk_parse_list "$list")
	while read -r kind name value; do
		count=$((count + 1))
		case $kind in
		on)
			grep -qx "CONFIG_$name=y" "$cfg" || {
				echo "debug-kernel: CONFIG_$name is not =y:" \
					"$(grep -E "(^|# )CONFIG_${name}[= ]" "$cfg" || echo absent)" >&2
				bad=$((bad + 1))
			}
			;;
		off)
			if grep -q "^CONFIG_$name=" "$cfg"; then
				echo "debug-kernel: CONFIG_$name should be off:" \
					"$(grep "^CONFIG_$name=" "$cfg")" >&2
				bad=$((bad + 1))
			fi
			;;
		val)
			grep -qxF "CONFIG_$name=$value" "$cfg" || {
				echo "debug-kernel: CONFIG_$name is not $value:" \
					"$(grep -E "(^|# )CONFIG_${name}[= ]" "$cfg" || echo absent)" >&2
				bad=$((bad + 1))
			}
			;;
		esac
	done <<<"$opts"
	[ "$count" -gt 0 ] || die "no options in $list"
	[ "$bad" -eq 0 ] || die "$bad of $count options of $list did not stick in $cfg"
	log "config verified: all $count options of $(basename "$list") hold"
}

# dk_mok_key SRC: the test MOK key pair, made the way dkms makes its own
# (/var/lib/dkms/mok.key and mok.pub: RSA 2048, a self-signed certificate
# in DER), in SRC/certs/neuron-test-mok.{key,der}, and the certificate in
# PEM as certs/neuron-test-mok.pem, which CONFIG_SYSTEM_TRUSTED_KEYS names:
# the kernel trusts it as a machine's firmware would an enrolled MOK.
dk_mok_key() {
	local c=$1/certs
	openssl req -new -x509 -nodes -days 36500 -subj "/CN=neuron debug-kernel test MOK/" \
		-newkey rsa:2048 -keyout "$c/neuron-test-mok.key" \
		-outform DER -out "$c/neuron-test-mok.der" 2>/dev/null ||
		die "openssl could not make the test MOK key"
	openssl x509 -inform DER -in "$c/neuron-test-mok.der" -out "$c/neuron-test-mok.pem"
}

# dk_configure SRC LIST LOG: the test MOK key, tinyconfig, the options,
# olddefconfig twice (some options only appear once their dependencies are
# on), verify.
dk_configure() {
	local src=$1 list=$2 logf=$3 pass
	dk_mok_key "$src"
	log "configure: tinyconfig + $(basename "$list") (log: $logf)"
	make -C "$src" ARCH="$DK_ARCH" tinyconfig >>"$logf" 2>&1 ||
		die "make tinyconfig failed, see $logf"
	for pass in 1 2; do
		dk_apply "$src" "$list" >>"$logf"
		make -C "$src" ARCH="$DK_ARCH" olddefconfig >>"$logf" 2>&1 ||
			die "make olddefconfig (pass $pass) failed, see $logf"
	done
	dk_verify "$src/.config" "$list"
}

# ---- end of the configuration part ----

# dk_key: <source version>-<first 12 hex of the sha256 of the option list,
# the functions above, the targets, the arch and the compiler version>.
dk_key() {
	local version hash
	version=$(dpkg-query -W -f='${Version}' linux-source-6.1)
	hash=$({
		cat "$DK_LIST"
		declare -f dk_parse_list dk_apply dk_verify dk_mok_key dk_configure
		echo "arch=$DK_ARCH targets=${DK_TARGETS[*]}"
		gcc --version | head -n1
	} | sha256sum | cut -c1-12)
	echo "$version-$hash"
}

# dk_env DIR: the KDIR/IMAGE/KRELEASE lines for the tree in DIR.
dk_env() {
	local src=$1/src
	printf 'KDIR=%q\n' "$src"
	printf 'IMAGE=%q\n' "$src/arch/x86/boot/bzImage"
	printf 'KRELEASE=%q\n' "$(cat "$src/include/config/kernel.release")"
}

# dk_make SRC LOG TARGET...: a niced -j2 build, output to LOG, timed.
dk_make() {
	local src=$1 logf=$2 t0 rc=0
	shift 2
	t0=$(date +%s)
	log "make $* (log: $logf)"
	nice -n 10 make -C "$src" ARCH="$DK_ARCH" -j"$DK_JOBS" "$@" >>"$logf" 2>&1 || rc=$?
	if [ "$rc" -ne 0 ]; then
		tail -n 40 "$logf" >&2
		die "make $* failed (exit $rc), full log: $logf"
	fi
	echo "make $*: $(($(date +%s) - t0)) s" >>"$(dirname "$src")/build-times"
	log "make $* done in $(($(date +%s) - t0)) s"
}

# dk_build DIR: unpack, configure and build the tree DIR/src (resumable:
# each finished step leaves a stamp in DIR).
dk_build() {
	local dir=$1 src=$1/src tarball t0
	t0=$(date +%s)
	mkdir -p "$dir"
	if [ ! -f "$dir/.unpacked" ]; then
		tarball=/usr/src/linux-source-6.1.tar.xz
		[ -f "$tarball" ] || die "$tarball missing (linux-source-6.1 installed?)"
		rm -rf "$src" "$src.tmp" "$dir/.configured" && mkdir -p "$src.tmp"
		log "unpacking $tarball into $src"
		tar -xJf "$tarball" -C "$src.tmp" --strip-components=1
		mv "$src.tmp" "$src"
		touch "$dir/.unpacked"
	fi
	if [ ! -f "$dir/.configured" ]; then
		dk_configure "$src" "$DK_LIST" "$dir/build.log"
		cp "$DK_LIST" "$dir/debug-kernel.config"
		touch "$dir/.configured"
	fi
	local target
	for target in "${DK_TARGETS[@]}"; do
		dk_make "$src" "$dir/build.log" "$target"
	done
	# The build must not have changed the configuration behind our back.
	dk_verify "$src/.config" "$DK_LIST"
	local f
	for f in arch/x86/boot/bzImage Module.symvers scripts/module.lds \
		scripts/mod/modpost include/config/kernel.release; do
		[ -s "$src/$f" ] || die "build finished but $src/$f is missing"
	done
	echo "total: $(($(date +%s) - t0)) s" >>"$dir/build-times"
	touch "$dir/.done"
	log "debug kernel built in $(($(date +%s) - t0)) s: $dir"
}

# dk_ensure: build the tree of the current key if needed; sets DK_DIR.
dk_ensure() {
	local key
	need_pkgs "${DK_PKGS[@]}"
	key=$(dk_key)
	DK_DIR="$DK_BASE/$key"
	if [ ! -f "$DK_DIR/.done" ]; then
		mkdir -p "$DK_BASE"
		exec 9>"$DK_BASE/.lock"
		flock -n 9 || { log "waiting for another debug-kernel build" && flock 9; }
		[ -f "$DK_DIR/.done" ] || dk_build "$DK_DIR"
		exec 9>&-
	fi
	dk_env "$DK_DIR" >"$DK_BASE/current.env.$$"
	mv "$DK_BASE/current.env.$$" "$DK_BASE/current.env"
}

# dk_prune: delete the trees of keys other than the current one.
dk_prune() {
	local d
	# Under the lock: another caller may be building a tree right now.
	exec 9>"$DK_BASE/.lock"
	flock -n 9 || { log "waiting for another debug-kernel build" && flock 9; }
	for d in "$DK_BASE"/*/; do
		d=${d%/}
		[ "$d" = "$DK_DIR" ] || [ ! -d "$d/src" ] && continue
		log "removing old debug-kernel tree $d ($(du -sh "$d" | cut -f1))"
		rm -rf "$d"
	done
	exec 9>&-
}

# ---- --check: boot the kernel with a throw-away KUnit module ----

# The module: one passing and one failing case (the failing one proves that
# a failure is seen), built for gcov and KCOV both (they coexist). NEURON_DK_BREAK=uaf|leak|lock|odebug|ubsan|atomic adds
# a broken case, to prove that --check catches KASAN, kmemleak, lockdep,
# debugobjects, UBSAN and sleeping-in-atomic reports (each must fail it).
dk_write_module() {
	local d=$1
	cat >"$d/neuron_dk_kunit.c" <<'EOF'
// SPDX-License-Identifier: GPL-2.0
/* Throw-away KUnit suite used by scripts/debug-kernel.sh --check. */
#include <kunit/test.h>
#include <linux/module.h>
#include <linux/delay.h>
#include <linux/mutex.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/timer.h>

static void dk_pass(struct kunit *test)
{
	volatile int two = 2;	/* a comparison KCOV's trace-cmp sees */

	KUNIT_EXPECT_EQ(test, two + 2, 4);
}

static void dk_fail(struct kunit *test)
{
	KUNIT_EXPECT_EQ_MSG(test, 1, 2, "this case fails on purpose");
}

#if defined(DK_BREAK_uaf)
static void dk_break(struct kunit *test)
{
	char *volatile p = kmalloc(32, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	kfree(p);
	p[3] = 1;
}
#elif defined(DK_BREAK_leak)
static void dk_break(struct kunit *test)
{
	void *volatile p = kmalloc(96, GFP_KERNEL);

	KUNIT_EXPECT_NOT_NULL(test, p);
	p = NULL;
}
#elif defined(DK_BREAK_lock)
static DEFINE_MUTEX(dk_a);
static DEFINE_MUTEX(dk_b);
static void dk_break(struct kunit *test)
{
	mutex_lock(&dk_a);
	mutex_lock(&dk_b);
	mutex_unlock(&dk_b);
	mutex_unlock(&dk_a);
	mutex_lock(&dk_b);
	mutex_lock(&dk_a);
	mutex_unlock(&dk_a);
	mutex_unlock(&dk_b);
}
#elif defined(DK_BREAK_odebug)
struct dk_obj {
	struct timer_list timer;
};
static void dk_timer_fn(struct timer_list *t)
{
}
static void dk_break(struct kunit *test)
{
	struct dk_obj *o = kzalloc(sizeof(*o), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, o);
	timer_setup(&o->timer, dk_timer_fn, 0);
	mod_timer(&o->timer, jiffies + 100 * HZ);
	kfree(o);
}
#elif defined(DK_BREAK_ubsan)
static void dk_break(struct kunit *test)
{
	int a[4] = {};
	volatile int i = 4;

	KUNIT_EXPECT_EQ(test, a[i], 0);
}
#elif defined(DK_BREAK_atomic)
static DEFINE_SPINLOCK(dk_spin);
static void dk_break(struct kunit *test)
{
	spin_lock(&dk_spin);
	msleep(1);
	spin_unlock(&dk_spin);
}
#endif

static struct kunit_case dk_cases[] = {
	KUNIT_CASE(dk_pass),
	KUNIT_CASE(dk_fail),
#ifdef DK_BREAK
	KUNIT_CASE(dk_break),
#endif
	{}
};

static struct kunit_suite dk_suite = {
	.name = "neuron_dk_selftest",
	.test_cases = dk_cases,
};
kunit_test_suite(dk_suite);

MODULE_LICENSE("GPL");
MODULE_DESCRIPTION("debug kernel self-check");
EOF
	{
		echo '# SPDX-License-Identifier: GPL-2.0'
		echo 'obj-m += neuron_dk_kunit.o'
		echo 'GCOV_PROFILE := y'
		echo 'KCOV_INSTRUMENT := y'
		if [ -n "${NEURON_DK_BREAK:-}" ]; then
			echo "ccflags-y += -DDK_BREAK -DDK_BREAK_${NEURON_DK_BREAK}"
		fi
	} >"$d/Kbuild"
}

dk_write_init() {
	cat >"$1" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev 2>/dev/null
mount -t debugfs debugfs /sys/kernel/debug
D=/sys/kernel/debug
echo "@@DK-BEGIN uptime=$(cut -d' ' -f1 /proc/uptime) cpus=$(grep -c ^processor /proc/cpuinfo) release=$(uname -r)"
insmod /neuron_dk_kunit.ko
echo "@@DK-INSMOD rc=$?"
echo "@@DK-RESULTS-BEGIN"
cat $D/kunit/neuron_dk_selftest/results
echo "@@DK-RESULTS-END"
for f in $D/kmemleak $D/failslab/probability $D/fail_page_alloc/probability \
	/proc/self/fail-nth /proc/self/make-it-fail /proc/lockdep $D/gcov/reset \
	/sys/kernel/slab $D/kunit $D/kcov /proc/sys/kernel/ns_last_pid \
	/sys/module/module/parameters/sig_enforce; do
	[ -e "$f" ] && echo "@@DK-HAVE $f" || echo "@@DK-MISSING $f"
done
# kmemleak reports only objects older than 5 s: wait, then scan twice.
echo "@@DK-SLEEP uptime=$(cut -d' ' -f1 /proc/uptime)"
sleep 5
echo "@@DK-SCAN uptime=$(cut -d' ' -f1 /proc/uptime)"
echo scan >$D/kmemleak
echo scan >$D/kmemleak
echo "@@DK-SCANNED uptime=$(cut -d' ' -f1 /proc/uptime)"
echo "@@DK-KMEMLEAK-BEGIN"
cat $D/kmemleak
echo "@@DK-KMEMLEAK-END"
rmmod neuron_dk_kunit
echo "@@DK-RMMOD rc=$?"
find $D/gcov -name '*.gcda' | sed 's/^/@@DK-GCDA /'
echo "@@DK-DMESG-BEGIN"
dmesg
echo "@@DK-DMESG-END"
echo "@@DK-END uptime=$(cut -d' ' -f1 /proc/uptime)"
poweroff -f
EOF
	chmod +x "$1"
}

# dk_check: build the module, boot, and judge the serial log.
dk_check() {
	local kdir krelease work t0 t1 out rc=0 bad=0
	case ${NEURON_DK_BREAK:-} in
	'' | uaf | leak | lock | odebug | ubsan | atomic) ;;
	*) die "NEURON_DK_BREAK must be uaf, leak, lock, odebug, ubsan or atomic" ;;
	esac
	need_pkgs busybox-static cpio qemu-system-x86 kmod
	kdir="$DK_DIR/src"
	krelease=$(cat "$kdir/include/config/kernel.release")
	work=$(mktemp -d "${TMPDIR:-/tmp}/neuron-dk-check.XXXXXX")
	log "check: work folder $work"
	mkdir -p "$work/mod" "$work/root"/{bin,proc,sys,dev}
	dk_write_module "$work/mod"
	t0=$(date +%s.%N)
	make -C "$kdir" ARCH="$DK_ARCH" M="$work/mod" modules >"$work/mod-build.log" 2>&1 ||
		{ cat "$work/mod-build.log" >&2; die "module build against $kdir failed"; }
	log "check: module built in $(echo "$(date +%s.%N) - $t0" | bc | cut -c1-4) s"
	local vermagic
	vermagic=$(modinfo -F vermagic "$work/mod/neuron_dk_kunit.ko")
	[[ $vermagic == "$krelease "* ]] || die "module vermagic '$vermagic' does not name $krelease"
	grep -q 'Module.symvers is missing' "$work/mod-build.log" &&
		die "modpost found no Module.symvers in $kdir"
	# gcov and KCOV in one module: both compilers' hooks are in it.
	local hooks
	hooks=$(nm -u "$work/mod/neuron_dk_kunit.ko")
	grep -q '__gcov_' <<<"$hooks" && grep -q '__sanitizer_cov_trace_pc' <<<"$hooks" &&
		grep -Eq '__sanitizer_cov_trace_(const_)?cmp' <<<"$hooks" ||
		die "the module lacks the gcov or the KCOV (trace-pc, trace-cmp) hooks"
	cp /bin/busybox "$work/root/bin/busybox"
	cp "$work/mod/neuron_dk_kunit.ko" "$work/root/"
	dk_write_init "$work/root/init"
	(cd "$work/root" && find . | cpio -o -H newc --quiet) >"$work/initrd.cpio"
	log "check: booting $DK_DIR/src/arch/x86/boot/bzImage"
	t0=$(date +%s.%N)
	# The two -global flags drop the PCI hotplug AML from QEMU's ACPI
	# tables: acpi_init then takes about 3 s instead of 5-7 s here.
	timeout 180 qemu-system-x86_64 -nographic -no-reboot -m 512M -smp 2 \
		-nic none -global PIIX4_PM.acpi-root-pci-hotplug=off \
		-global PIIX4_PM.acpi-pci-hotplug-with-bridge-support=off \
		-kernel "$kdir/arch/x86/boot/bzImage" \
		-initrd "$work/initrd.cpio" \
		-append 'console=ttyS0 panic=-1 oops=panic quiet' \
		</dev/null >"$work/serial.log" 2>&1 || rc=$?
	t1=$(date +%s.%N)
	out="$work/serial.log"
	# Drop carriage returns and the firmware's escape codes before markers.
	tr -d '\r' <"$out" | sed 's/^.*@@DK-/@@DK-/' >"$out.txt" && out="$out.txt"
	log "check: qemu exit $rc after $(echo "$t1 - $t0" | bc | cut -c1-5) s (serial log: $out)"

	fail() { echo "debug-kernel check FAILED: $*" >&2; bad=$((bad + 1)); }
	[ "$rc" -eq 0 ] || fail "qemu exit status $rc (124 = timeout)"
	grep -q '^@@DK-END' "$out" || fail "no end marker"
	grep -q "^@@DK-BEGIN .* cpus=2 release=$krelease\$" "$out" ||
		fail "guest did not start with 2 CPUs and release $krelease"
	grep -q '^@@DK-INSMOD rc=0' "$out" || fail "insmod failed"
	grep -q '^@@DK-RMMOD rc=0' "$out" || fail "rmmod failed"
	grep -q '^@@DK-MISSING' "$out" && fail "missing: $(sed -n 's/^@@DK-MISSING //p' "$out" | tr '\n' ' ')"
	grep -q '^@@DK-GCDA .*/neuron_dk_kunit\.gcda$' "$out" || fail "no .gcda for the module"
	local res
	res=$(sed -n '/^@@DK-RESULTS-BEGIN/,/^@@DK-RESULTS-END/p' "$out")
	grep -qx '    ok 1 dk_pass' <<<"$res" || fail "dk_pass did not pass"
	grep -qx '    not ok 2 dk_fail' <<<"$res" || fail "dk_fail was not reported failing"
	grep -qx 'not ok 1 neuron_dk_selftest' <<<"$res" || fail "suite result line missing"
	[ "$(grep -c 'not ok' <<<"$res")" -eq 2 ] ||
		fail "unexpected failing cases: $(grep 'not ok' <<<"$res" | grep -v 'dk_fail\|neuron_dk_selftest' | tr '\n' ' ')"
	local leaks
	leaks=$(sed -n '/^@@DK-KMEMLEAK-BEGIN/,/^@@DK-KMEMLEAK-END/p' "$out")
	grep -q 'unreferenced object' <<<"$leaks" && fail "kmemleak reported a leak"
	grep -q 'KernelAddressSanitizer initialized' "$out" || fail "KASAN not initialized"
	grep -Eq 'BUG: |WARNING: |Oops|Call Trace|Kernel panic|UBSAN: |unreferenced object|possible circular locking|ODEBUG: |FAULT_INJECTION: ' "$out" &&
		fail "kernel splat: $(grep -Em3 'BUG: |WARNING: |Oops|Call Trace|Kernel panic|UBSAN: |unreferenced object|possible circular locking|ODEBUG: |FAULT_INJECTION: ' "$out" | tr '\n' ' ')"
	echo "$res" | grep -E '^ *(not )?ok ' >&2 || true
	log "check: guest uptime at /init $(sed -n 's/^@@DK-BEGIN uptime=\([^ ]*\).*/\1/p' "$out") s," \
		"at the end $(sed -n 's/^@@DK-END uptime=//p' "$out") s"
	[ "$bad" -eq 0 ] || die "check failed ($bad problems), serial log: $out"
	cp "$out" "$DK_DIR/last-check.log"
	rm -rf "$work"
	log "check: passed (serial log kept in $DK_DIR/last-check.log)"
}

main() {
	local check='' prune=''
	while [ $# -gt 0 ]; do
		case $1 in
		--check) check=1 ;;
		--prune) prune=1 ;;
		-h | --help) sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
		*) die "unknown option: $1" ;;
		esac
		shift
	done
	dk_ensure
	[ -z "$prune" ] || dk_prune
	[ -z "$check" ] || dk_check
	cat "$DK_BASE/current.env"
}

main "$@"

#!/usr/bin/env bash
# make check-vm, the host side: Debian 12's stock kernel under QEMU on a pure
# cgroup v2 hierarchy, running the placement plan (guest/plan.sh) and the
# integration suites (guest/suites.sh). See tests/vm/README.md.
#
# Steps, each timed: host packages; the kernel package (apt-get download,
# dpkg-deb -x); a busybox initramfs that loads virtio and ext4 modules; a
# debootstrap --variant=minbase root file system made into an ext4 image with
# mkfs.ext4 -d (nothing is ever mounted on the host; debootstrap's own /proc
# and /sys mounts stay in a private mount namespace); the layer image (this
# tree's binaries and scripts, rebuilt every run); one boot. Kernel,
# initramfs and root image are cached under $VM_CACHE, keyed by the kernel
# package's version. Both disks are attached with snapshot=on, so the guest's
# writes never reach the cached images.
#
# The guest reports on its serial console (build/vm/console.log) with lines
# starting "@@SBXVM "; this script follows them, prints a summary with
# timings and exits non-zero if any check failed, a suite failed, or the VM
# did not finish within VM_TIMEOUT.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
REPO=$(cd "$HERE/../.." && pwd)
cd "$REPO"
BUILD=${BUILD:-build}
BUILD_ABS=$(cd "$BUILD" && pwd)
OUT=$BUILD_ABS/vm
VM_CACHE=${VM_CACHE:-/var/cache/sandboxd-vm}
VM_ACCEL=${VM_ACCEL:-auto}
VM_MEM=${VM_MEM:-2048}
VM_CPUS=${VM_CPUS:-2}
VM_LOCKUP_S=${VM_LOCKUP_S:-120}
VM_SUITE_DIST=${VM_SUITE_DIST:-bookworm}
VM_PLACEMENTS=${VM_PLACEMENTS:-root service session nodeleg parent nocg}
# Integration suites run in the guest by default, measured under TCG on the
# 2-core machine (see README.md): one job at a time, the protocol and the
# daemon's life together ~90 s; the attack corpus ~55 s; faults, load, bad
# input and authorization together ~300-370 s. Left out to keep a cold run
# under 15 minutes: test_eval_* (~155 s together; the client's evaluation
# loop, nothing kernel- or cgroup-specific beyond what test_daemon_* covers)
# and the structured-feedback suites test_daemon_feedback, test_daemon_datasets
# and test_daemon_bigcodebench (the last needs the benchmark Python stack in
# the guest; BigCodeBench's tasks import pandas and matplotlib, many seconds
# per job under emulation). Name them, or VM_SUITES=all, to run them.
# The unit suites that touch the kernel itself: the i386/x32 ABI tests run for
# real there (Debian's kernel has 32-bit emulation), the feature probes, and
# a real job cgroup on pure v2.
VM_SUITES_KERNEL="test_jail_seccomp test_jail_kfeat test_jail_cgroup_real test_jail_procview test_jail_mounts test_jail_warm_hot"
VM_SUITES_DAEMON="test_daemon_jobs test_daemon_protocol test_daemon_lifecycle test_daemon_sockmem test_daemon_cpus test_daemon_init test_jail_init test_daemon_warm test_daemon_warm_net test_daemon_reclaim"
VM_SUITES_HOSTILE="test_hostile test_hostile_controls"
VM_SUITES_FAULTS="test_daemon_faults test_daemon_load test_daemon_bad_input test_daemon_auth"
VM_SUITES=${VM_SUITES:-$VM_SUITES_KERNEL $VM_SUITES_DAEMON $VM_SUITES_HOSTILE $VM_SUITES_FAULTS}
if [ "$VM_SUITES" = all ]; then
	VM_SUITES=$(cd "$REPO/tests/integration" && ls test_*.c | sed 's/\.c$//' | tr '\n' ' ')
elif [ "$VM_SUITES" = none ]; then
	VM_SUITES=""
fi

# Guest-side packages: what the daemon, the client and the test binaries
# link against (libmd0, for sbx eval's SHA-256), and the
# interpreter the jail runs.
ROOT_PKGS="python3 libjansson4 libseccomp2 libcap2 libsubunit0 zlib1g libmd0"
# The benchmark stack, only when a suite that imports it runs (as in the Makefile).
PY_PKGS="python3-numpy python3-pandas python3-matplotlib python3-scipy python3-sklearn \
python3-seaborn python3-requests python3-bs4 python3-dateutil python3-tz"
case " $VM_SUITES " in *" test_daemon_bigcodebench "*) ROOT_PKGS="$ROOT_PKGS $PY_PKGS" ;; esac
# Modules the initramfs loads (with their dependencies from modules.dep):
# the disks, the root file system, and the checksum ext4's metadata uses.
INITRD_MODULES="virtio_pci virtio_blk crc32c_generic ext4"
HOST_PKGS="qemu-system-x86 debootstrap busybox-static e2fsprogs kmod cpio gzip \
debian-archive-keyring"

mkdir -p "$OUT"
T0=$(date +%s%N)
TIMES=()	# "name|ms|note"
ms_since() { echo $((($(date +%s%N) - $1) / 1000000)); }
fmt_s() { printf '%d.%d s' $(($1 / 1000)) $((($1 % 1000) / 100)); }
timed() { # NAME NOTE MS
	TIMES+=("$1|$3|$2")
	printf '[vm] %-22s %9s  %s\n' "$1" "$(fmt_s "$3")" "$2"
}
die() {
	echo "[vm] error: $*" >&2
	exit 1
}

# --- host packages -----------------------------------------------------------
t=$(date +%s%N)
missing=""
for p in $HOST_PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing="$missing $p"
done
if [ -n "$missing" ]; then
	[ "$(id -u)" = 0 ] || die "run as root to install:$missing"
	echo "[vm] installing:$missing"
	apt-get update -qq
	DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends $missing \
		>"$OUT/apt-install.log" 2>&1 || { tail -20 "$OUT/apt-install.log"; die "apt-get install failed"; }
fi
[ "$(id -u)" = 0 ] || die "make check-vm needs root (debootstrap, mkfs.ext4 -d of a root file system)"
timed "host packages" "${missing:+installed}${missing:-all present}" "$(ms_since "$t")"
[ -n "${VM_BUILD_MS:-}" ] && timed "build (make)" "$BUILD/" "$VM_BUILD_MS"

# --- the mirror: apt's own configuration ------------------------------------
# The first enabled "deb" source of the suite, from deb822 .sources files or
# one-line sources.list entries; never a URL of our own.
apt_mirror() {
	local f
	for f in /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] || continue
		awk -v suite="$VM_SUITE_DIST" '
			BEGIN { RS = ""; FS = "\n" }
			{
				types = ""; uris = ""; suites = ""; enabled = "yes"
				for (i = 1; i <= NF; i++) {
					line = $i
					if (line ~ /^[ \t]*#/) continue
					k = line; sub(/:.*/, "", k); v = line; sub(/^[^:]*:[ \t]*/, "", v)
					k = tolower(k)
					if (k == "types") types = v
					else if (k == "uris") uris = v
					else if (k == "suites") suites = v
					else if (k == "enabled") enabled = tolower(v)
				}
				if (enabled == "no" || (" " types " ") !~ / deb /) next
				n = split(suites, s, /[ \t]+/)
				for (j = 1; j <= n; j++) if (s[j] == suite) { split(uris, u, /[ \t]+/); print u[1]; exit }
			}' "$f"
	done
	cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
		sed -E 's/\[[^]]*\]//' |
		awk -v suite="$VM_SUITE_DIST" '$1 == "deb" && $3 == suite { print $2; exit }' || true
}
MIRROR=$(apt_mirror | head -n1) || true
[ -n "$MIRROR" ] || die "no 'deb' source for $VM_SUITE_DIST in /etc/apt/sources.list{,.d/}"

# --- the kernel package -------------------------------------------------------
kernel_pkg() { apt-cache depends linux-image-amd64 2>/dev/null |
	awk '$1 == "Depends:" && $2 ~ /^linux-image-/ { print $2; exit }'; }
KPKG=$(kernel_pkg)
if [ -z "$KPKG" ]; then
	apt-get update -qq
	KPKG=$(kernel_pkg)
fi
[ -n "$KPKG" ] || die "apt-cache depends linux-image-amd64 names no kernel package"
KVER=$(apt-cache policy "$KPKG" | awk '$1 == "Candidate:" { print $2; exit }')
[ -n "$KVER" ] && [ "$KVER" != "(none)" ] || die "no candidate version of $KPKG"
KEY="${KPKG}_${KVER}"
KDIR=$VM_CACHE/$KEY
mkdir -p "$KDIR"
echo "[vm] kernel $KPKG $KVER (linux-image-amd64), mirror $MIRROR, cache $KDIR"

t=$(date +%s%N)
if [ ! -s "$KDIR/vmlinuz" ] || [ ! -s "$KDIR/modules/modules.load" ]; then
	tmp=$(mktemp -d "$VM_CACHE/tmp.kernel.XXXXXX")
	chmod 755 "$tmp"
	# apt-get download drops privileges to _apt, which must be able to write here.
	id _apt >/dev/null 2>&1 && chown _apt "$tmp"
	(cd "$tmp" && apt-get download -q "$KPKG=$KVER") >"$OUT/kernel-download.log" 2>&1 ||
		{ cat "$OUT/kernel-download.log"; die "apt-get download $KPKG=$KVER failed"; }
	dpkg-deb -x "$tmp"/*.deb "$tmp/x"
	rel=$(ls "$tmp/x/lib/modules" | head -n1)
	[ -n "$rel" ] && [ -f "$tmp/x/boot/vmlinuz-$rel" ] || die "$KPKG: no vmlinuz/modules in the package"
	# The package has no modules.dep (the installer's depmod writes it).
	depmod -b "$tmp/x" "$rel"
	rm -rf "$KDIR/modules" && mkdir -p "$KDIR/modules"
	dep=$tmp/x/lib/modules/$rel/modules.dep
	# Module files are .ko here; later kernels ship .ko.xz or .ko.zst: the
	# initramfs gets them decompressed, so busybox insmod takes any.
	path_of() { awk -F: -v m="$1" '{ n = $1; sub(/.*\//, "", n); sub(/\.ko(\.(xz|zst|gz))?$/, "", n);
		gsub(/-/, "_", n); if (n == m) { print $1; exit } }' "$dep"; }
	deps_of() { awk -F: -v p="$1" '$1 == p { print $2; exit }' "$dep"; }
	declare -A seen=()
	order=()
	add() { # a module path, after its dependencies (listed first-loaded last)
		local p=$1 d list=()
		[ -n "${seen[$p]:-}" ] && return 0
		seen[$p]=1
		for d in $(deps_of "$p"); do list=("$d" "${list[@]}"); done
		for d in "${list[@]}"; do add "$d"; done
		order+=("$p")
	}
	for m in $INITRD_MODULES; do
		p=$(path_of "$m")
		if [ -z "$p" ]; then
			grep -qE "/$m\.ko" "$tmp/x/lib/modules/$rel/modules.builtin" 2>/dev/null && continue
			die "module $m is neither in $KPKG's modules.dep nor built in"
		fi
		add "$p"
	done
	for p in "${order[@]}"; do
		n=$(basename "$p")
		case "$n" in
		*.ko.xz) xz -dc "$tmp/x/lib/modules/$rel/$p" >"$KDIR/modules/${n%.xz}" ;;
		*.ko.zst) zstd -qdc "$tmp/x/lib/modules/$rel/$p" >"$KDIR/modules/${n%.zst}" ;;
		*.ko.gz) gzip -dc "$tmp/x/lib/modules/$rel/$p" >"$KDIR/modules/${n%.gz}" ;;
		*) cp "$tmp/x/lib/modules/$rel/$p" "$KDIR/modules/$n" ;;
		esac
		n=${n%.ko*}
		echo "$n" >>"$KDIR/modules/modules.load.tmp"
	done
	mv "$KDIR/modules/modules.load.tmp" "$KDIR/modules/modules.load"
	cp "$tmp/x/boot/config-$rel" "$KDIR/config"
	echo "$rel" >"$KDIR/release"
	cp "$tmp/x/boot/vmlinuz-$rel" "$KDIR/vmlinuz.tmp" && mv "$KDIR/vmlinuz.tmp" "$KDIR/vmlinuz"
	rm -rf "$tmp"
	timed "kernel download" "$KPKG $KVER, modules: $(tr '\n' ' ' <"$KDIR/modules/modules.load")" \
		"$(ms_since "$t")"
else
	timed "kernel download" "cached ($KEY)" "$(ms_since "$t")"
fi

# The same kernel decompressed ahead of time (QEMU boots its ELF through the
# PVH entry point): saves the ~2 s the XZ bzImage spends decompressing itself
# under TCG. VM_KERNEL=bzimage boots the package's vmlinuz as it is.
KERNEL=$KDIR/vmlinuz
if [ "${VM_KERNEL:-pvh}" = pvh ]; then
	if [ ! -s "$KDIR/vmlinux" ]; then
		t=$(date +%s%N)
		python3 "$HERE/extract-vmlinux.py" "$KDIR/vmlinuz" "$KDIR/vmlinux" || true
		timed "kernel ELF (PVH)" "$([ -s "$KDIR/vmlinux" ] && echo "vmlinux" || echo "none: boots vmlinuz")" \
			"$(ms_since "$t")"
	fi
	[ -s "$KDIR/vmlinux" ] && KERNEL=$KDIR/vmlinux
fi

# --- initramfs ------------------------------------------------------------------
# Keyed also by the init script and the busybox binary, so editing either
# rebuilds it.
t=$(date +%s%N)
BB=/bin/busybox
ihash=$(cat "$HERE/initramfs-init" "$BB" "$KDIR/modules/modules.load" | sha256sum | cut -c1-12)
INITRD=$KDIR/initrd-$ihash.img
if [ ! -s "$INITRD" ]; then
	stage=$(mktemp -d "$VM_CACHE/tmp.initrd.XXXXXX")
	mkdir -p "$stage"/{bin,sbin,usr/bin,usr/sbin,dev,proc,sys,newroot,lib/modules}
	cp "$BB" "$stage/bin/busybox"
	cp "$HERE/initramfs-init" "$stage/init"
	chmod 755 "$stage/init"
	cp "$KDIR/modules/"*.ko "$KDIR/modules/modules.load" "$stage/lib/modules/"
	# The kernel opens /dev/console before devtmpfs is mounted.
	mknod -m 600 "$stage/dev/console" c 5 1
	mknod -m 666 "$stage/dev/null" c 1 3
	(cd "$stage" && find . -print0 | cpio --null -o -H newc --quiet | gzip -1) >"$INITRD.tmp"
	mv "$INITRD.tmp" "$INITRD"
	rm -rf "$stage"
	timed "initramfs" "built $(basename "$INITRD") ($(du -k "$INITRD" | cut -f1) KiB)" "$(ms_since "$t")"
else
	timed "initramfs" "cached $(basename "$INITRD")" "$(ms_since "$t")"
fi

# --- root file system --------------------------------------------------------
# Keyed by the kernel package (as the cache is) and the package list.
# ROOT_RECIPE changes whenever what is done to the root file system below does.
ROOT_RECIPE=1
rhash=$(printf '%s\n' "$VM_SUITE_DIST" $ROOT_PKGS "$ROOT_RECIPE" | sha256sum | cut -c1-12)
ROOTIMG=$KDIR/root-$VM_SUITE_DIST-$rhash.img
if [ ! -s "$ROOTIMG" ]; then
	t=$(date +%s%N)
	tmp=$(mktemp -d "$VM_CACHE/tmp.root.XXXXXX")
	inc=$(echo $ROOT_PKGS | tr ' ' ',')
	echo "[vm] debootstrap --variant=minbase $VM_SUITE_DIST from $MIRROR (+ $inc)"
	# A private mount namespace: debootstrap's /proc and /sys mounts in the
	# target never show on the host, and go away with it.
	if ! unshare --mount --propagation private \
		debootstrap --variant=minbase --include="$inc" "$VM_SUITE_DIST" "$tmp/root" "$MIRROR" \
		>"$OUT/debootstrap.log" 2>&1; then
		tail -30 "$OUT/debootstrap.log"
		rm -rf "$tmp"
		die "debootstrap failed (log: $OUT/debootstrap.log)"
	fi
	timed "debootstrap" "minbase + $(echo $ROOT_PKGS | wc -w) packages" "$(ms_since "$t")"
	t=$(date +%s%N)
	r=$tmp/root
	rm -rf "$r"/var/cache/apt/archives/*.deb "$r"/var/lib/apt/lists/* "$r"/usr/share/doc/* \
		"$r"/usr/share/man/* "$r"/usr/share/info/*
	echo sbxvm >"$r/etc/hostname"
	printf '127.0.0.1\tlocalhost sbxvm\n::1\t\tlocalhost ip6-localhost ip6-loopback\n' >"$r/etc/hosts"
	mkdir -p "$r/opt/sbx"
	mb=$(du -sm "$r" | cut -f1)
	# Room for what the guest writes (snapshot=on keeps it off this image).
	size=$((mb + mb / 4 + 512))
	mkfs.ext4 -q -F -L sbxroot -d "$r" "$ROOTIMG.tmp" "${size}M" >/dev/null
	mv "$ROOTIMG.tmp" "$ROOTIMG"
	rm -rf "$tmp"
	timed "root image" "mkfs.ext4 -d, $mb MiB of files, ${size} MiB image" "$(ms_since "$t")"
else
	timed "debootstrap" "cached $(basename "$ROOTIMG")" 0
fi
# Older images of this kernel's cache (another package list) are dropped.
for old in "$KDIR"/root-*.img "$KDIR"/initrd-*.img; do
	[ "$old" = "$ROOTIMG" ] || [ "$old" = "$INITRD" ] || rm -f "$old"
done

# --- the layer: this tree's binaries and scripts -------------------------------
t=$(date +%s%N)
layer=$OUT/layer
rm -rf "$layer" "$OUT/layer.img"
mkdir -p "$layer/src/build/tests" "$layer/bin"
tar -C "$REPO" --exclude=./.git --exclude=./build --exclude='./build-*' \
	--exclude="./$(basename "$BUILD_ABS")" -cf - . | tar -C "$layer/src" -xf -
cp "$BUILD_ABS/sandboxd" "$BUILD_ABS/sandboxd-init" "$BUILD_ABS/sandboxd-reaper" "$BUILD_ABS/libsbxwarm.so" "$BUILD_ABS/sbx" "$BUILD_ABS/runner.pyz" "$layer/src/build/"
cp "$BUILD_ABS"/tests/test_* "$layer/src/build/tests/" 2>/dev/null || true
cp -r "$BUILD_ABS/test-policies" "$layer/src/build/" # tmain_opts.no_preload
for s in $VM_SUITES; do
	[ -x "$layer/src/build/tests/$s" ] || die "suite $s: $BUILD/tests/$s was not built"
done
cp "$BB" "$layer/bin/busybox"
# Benchmark data for test_daemon_datasets and test_daemon_bigcodebench:
# copied into the image (never into the repository), and only when one of
# them runs.
case " $VM_SUITES " in *" test_daemon_datasets "* | *" test_daemon_bigcodebench "*)
	ds=${SBX_DATASETS:-$REPO/../shared/datasets}
	mkdir -p "$layer/datasets"
	for f in HumanEval.jsonl.gz BigCodeBench.jsonl.gz code_contests_sample.jsonl.gz; do
		[ -f "$ds/$f" ] && cp "$ds/$f" "$layer/datasets/"
	done
	;;
esac
{
	echo "VM_SUITES='$VM_SUITES'"
	echo "VM_PLACEMENTS='$VM_PLACEMENTS'"
	echo "VM_TIME_SCALE='${VM_TIME_SCALE:-}'"
	echo "VM_KERNEL_PKG='$KPKG $KVER'"
} >"$layer/config.sh"
mb=$(du -sm "$layer" | cut -f1)
mkfs.ext4 -q -F -L sbxlayer -d "$layer" "$OUT/layer.img" "$((mb + 64))M" >/dev/null
timed "layer image" "$mb MiB: $BUILD/ binaries, scripts, policies" "$(ms_since "$t")"

# --- boot ------------------------------------------------------------------------
# KVM "works" when this kernel boots to the initramfs's userspace under it
# within 10 s: a /dev/kvm can exist and still fail (a nested host without the
# MSRs QEMU sets aborts it, or the guest hangs). Probed once per host boot.
kvm_works() {
	[ -c /dev/kvm ] && [ -r /dev/kvm ] && [ -w /dev/kvm ] || return 1
	local stamp=$VM_CACHE/kvm-probe.$(cat /proc/sys/kernel/random/boot_id)
	if [ ! -f "$stamp" ]; then
		rm -f "$VM_CACHE"/kvm-probe.*
		timeout 10 qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot \
			-machine pc -accel kvm -cpu max -smp 1 -m 256 -kernel "$KERNEL" -initrd "$INITRD" \
			-append "console=ttyS0 panic=-1 quiet loglevel=3 sbxvm.probe" \
			-serial "file:$OUT/kvm-probe.log" >"$OUT/kvm-probe.out" 2>&1 </dev/null || true
		if grep -aq '@@SBXVM PROBE ok' "$OUT/kvm-probe.log" 2>/dev/null; then
			echo yes >"$stamp"
		else
			echo no >"$stamp"
		fi
	fi
	[ "$(cat "$stamp")" = yes ]
}
case "$VM_ACCEL" in
tcg) accel=(-accel tcg) ;;
kvm) accel=(-accel kvm) ;;
auto)
	t=$(date +%s%N)
	if kvm_works; then
		accel=(-accel kvm)
		timed "KVM probe" "KVM works: using it" "$(ms_since "$t")"
	else
		accel=(-accel tcg)
		timed "KVM probe" "no usable KVM: TCG" "$(ms_since "$t")"
	fi
	;;
*) die "VM_ACCEL=$VM_ACCEL: use auto, tcg or kvm" ;;
esac
# The deadline: boot and the placements, plus each suite's budget under TCG
# (about 3-6 times its time on the host); generous, only a hang hits it.
if [ -z "${VM_TIMEOUT:-}" ]; then
	VM_TIMEOUT=420
	for s in $VM_SUITES; do
		case $s in
		test_daemon_faults | test_daemon_load) VM_TIMEOUT=$((VM_TIMEOUT + 300)) ;;
		test_daemon_datasets) VM_TIMEOUT=$((VM_TIMEOUT + 600)) ;;
		test_daemon_bigcodebench) VM_TIMEOUT=$((VM_TIMEOUT + 1200)) ;;
		*) VM_TIMEOUT=$((VM_TIMEOUT + 200)) ;;
		esac
	done
fi
LOG=$OUT/console.log
MARKS=$OUT/markers.log
stop_qemu() {
	kill "$qpid" 2>/dev/null || true
	sleep 3
	kill -9 "$qpid" 2>/dev/null || true
}
# One boot of the guest, to its power-off, its deadline or a soft lockup
# (sets qrc, timed_out, locked, vm_ms).
boot_vm() {
	rm -f "$LOG" "$MARKS"
	: >"$MARKS" # read by the summary even when no marker came
	qemu=(qemu-system-x86_64 -nodefaults -no-user-config -display none -no-reboot
		-machine pc "${accel[@]}" -cpu max -smp "$VM_CPUS" -m "$VM_MEM"
		-kernel "$KERNEL" -initrd "$INITRD" -append "$append"
		-drive "file=$ROOTIMG,format=raw,if=virtio,snapshot=on"
		-drive "file=$OUT/layer.img,format=raw,if=virtio,snapshot=on"
		-nic none -serial "file:$LOG")
	printf '%q ' "${qemu[@]}" >"$OUT/qemu.cmd"
	echo >>"$OUT/qemu.cmd"
	echo "[vm] booting ($VM_CPUS vCPUs, $VM_MEM MiB, accel $VM_ACCEL, deadline ${VM_TIMEOUT}s); console: $LOG"
	tboot=$(date +%s%N)
	: >"$LOG"
	"${qemu[@]}" >"$OUT/qemu.out" 2>&1 </dev/null &
	qpid=$!
	# Follows the console: every marker line is stamped with the host's time
	# since QEMU started (markers.log) and shown as progress.
	(
		tail -n +1 -F --pid="$qpid" "$LOG" 2>/dev/null |
			while IFS= read -r line; do
				line=${line%$'\r'}
				case "$line" in
				"@@SBXVM "*)
					printf '%s %s\n' "$(ms_since "$tboot")" "$line" >>"$MARKS"
					case "$line" in
					"@@SBXVM CHECK "*" FAIL "* | "@@SBXVM PLACEMENT "* | "@@SBXVM SUITE "* | \
						"@@SBXVM FATAL"* | "@@SBXVM DONE"* | "@@SBXVM TIME "* | "@@SBXVM INFO "*)
						printf '  %s\n' "${line#@@SBXVM }"
						;;
					esac
					;;
				esac
			done
	) &
	fpid=$!
	timed_out=0
	locked=0
	done_at=0
	while kill -0 "$qpid" 2>/dev/null; do
		el=$(ms_since "$tboot")
		if [ "$el" -gt $((VM_TIMEOUT * 1000)) ]; then
			timed_out=1
			echo "[vm] the VM did not finish within ${VM_TIMEOUT}s: stopping QEMU (pid $qpid)"
			stop_qemu
			break
		fi
		# A guest CPU stuck in the kernel for VM_LOCKUP_S: the guest will not
		# go on (seen twice at the first daemon's start, both CPUs at once).
		stuck=$(sed -n 's/.*soft lockup - CPU#[0-9]* stuck for \([0-9]*\)s.*/\1/p' "$LOG" |
			sort -n | tail -n1)
		if [ -n "$stuck" ] && [ "$stuck" -ge "$VM_LOCKUP_S" ]; then
			locked=1
			echo "[vm] a guest CPU has been stuck in the kernel for ${stuck}s (soft lockup): stopping QEMU"
			stop_qemu
			break
		fi
		# The guest said DONE but did not power off: give it 30 s.
		if [ "$done_at" = 0 ] && grep -q '^@@SBXVM DONE' <(tr -d '\r' <"$LOG"); then
			done_at=$el
		elif [ "$done_at" != 0 ] && [ $((el - done_at)) -gt 30000 ]; then
			echo "[vm] the guest finished but did not power off: stopping QEMU"
			kill "$qpid" 2>/dev/null || true
			break
		fi
		sleep 1
	done
	qrc=0
	wait "$qpid" || qrc=$?
	wait "$fpid" 2>/dev/null || true
	vm_ms=$(ms_since "$tboot")
}
append="console=ttyS0,115200 panic=-1 quiet loglevel=3 sbxvm.accel=$VM_ACCEL"
[ -n "${VM_TIME_SCALE:-}" ] && append="$append sbxvm.scale=$VM_TIME_SCALE"
[ -n "${VM_PRINTK:-}" ] && append="$append sbxvm.printk=$VM_PRINTK softlockup_all_cpu_backtrace=1"
# A guest kernel soft lockup (both CPUs stuck at the first daemon's start,
# 2 of about 55 boots under TCG here; no backtrace yet, VM_PRINTK gives one) ends
# the boot at once, keeps its console, and the guest boots once more; the
# summary names it whatever the second boot does.
LOCKUPS=""
boot_vm
if [ "$locked" = 1 ]; then
	cp "$LOG" "$OUT/console-lockup.log"
	LOCKUPS=$(tr -d '\r' <"$LOG" | grep -a 'soft lockup' | head -n 4)
	echo "[vm] booting again after the soft lockup (its console: $OUT/console-lockup.log)"
	boot_vm
fi

# --- summary ---------------------------------------------------------------------------
tr -d '\r' <"$LOG" >"$OUT/console.txt"
M=$OUT/console.txt
get() { grep -a "^@@SBXVM $1" "$M" || true; }
host_at() { awk -v p="@@SBXVM $1 " 'index($0, p) { print $1; exit }' "$MARKS" 2>/dev/null; }
guest_at() { get "TIME $1 " | awk '{ print $4; exit }'; }
accel_used=$(get "INFO accel " | awk '{ print $4; exit }')
scale=$(get "INFO scale " | awk '{ print $4; exit }')
init_ms=$(host_at "TIME init")
serving_ms=$(host_at "TIME first-serving")
[ -n "$init_ms" ] && timed "boot to init" "host time from QEMU start to the guest's init" "$init_ms"
[ -n "$serving_ms" ] && timed "boot to serving daemon" "QEMU start to the first daemon's ping" "$serving_ms"
g1=$(guest_at initramfs) g2=$(guest_at disks) g3=$(guest_at init) g4=$(guest_at first-serving)
[ -n "$g4" ] && echo "[vm] guest uptime: initramfs ${g1:-?} ms, modules + disks ${g2:-?} ms," \
	"root mounted + init ${g3:-?} ms, first daemon serving ${g4:-?} ms"
echo
echo "== make check-vm: ${accel_used:-?} (SBX_TIME_SCALE=${scale:-?}), kernel $KPKG $KVER, log $LOG"
npass=0 nfail=0
printf '%-9s %6s %6s %9s %9s  %s\n' PLACEMENT CHECKS FAILED TIME SERVING "DAEMON CGROUP / JOB CGROUP"
for p in $VM_PLACEMENTS; do
	line=$(get "PLACEMENT $p END" | tail -n1)
	c=$(get "CHECK $p " | wc -l)
	f=$(get "CHECK $p " | awk '$5 == "FAIL"' | wc -l)
	npass=$((npass + c - f))
	nfail=$((nfail + f))
	if [ -z "$line" ]; then
		printf '%-9s %6s %6s %9s %9s  %s\n' "$p" "$c" "$f" - - "did not finish"
		nfail=$((nfail + 1))
		continue
	fi
	ms=$(echo "$line" | awk '{ print $5 }')
	sv=$(get "INFO $p-serving-ms " | awk '{ print $4; exit }')
	where=$(get "INFO $p-daemon-cgroup " | awk '{ print $4; exit }')
	jobs=$(get "INFO $p-job-cgroup " | awk '{ print $4; exit }')
	printf '%-9s %6s %6s %9s %9s  %s\n' "$p" "$c" "$f" "$(fmt_s "$ms")" "$(fmt_s "${sv:-0}")" \
		"${where:--} ${jobs:+-> $jobs}"
	TIMES+=("placement $p|$ms|")
done
fails=$(get "CHECK " | awk '$5 == "FAIL"')
if [ -n "$fails" ]; then
	echo
	echo "failed checks (placement, check, time, detail):"
	echo "$fails" | sed 's/^@@SBXVM CHECK /  /'
fi
if [ -n "$VM_SUITES" ]; then
	echo
	printf '%-22s %7s %7s %8s %9s  %s\n' SUITE PASSED FAILED SKIPPED TIME RESULT
	for s in $VM_SUITES; do
		line=$(get "SUITE $s END" | tail -n1)
		if [ -z "$line" ]; then
			printf '%-22s %7s %7s %8s %9s  %s\n' "$s" - - - - "did not finish"
			nfail=$((nfail + 1))
			continue
		fi
		read -r _ _ _ _ rc ms sp sf ss <<<"$line"
		npass=$((npass + sp))
		nfail=$((nfail + sf))
		[ "$rc" != 0 ] && [ "$sf" = 0 ] && nfail=$((nfail + 1))
		printf '%-22s %7s %7s %8s %9s  %s\n' "$s" "$sp" "$sf" "$ss" "$(fmt_s "$ms")" \
			"$([ "$rc" = 0 ] && echo ok || echo "FAILED (exit $rc)")"
		TIMES+=("suite $s|$ms|")
	done
fi
# A failing suite's failure lines, repeated here since the suite's own
# output scrolled by long ago (and CI keeps only the tail).
for s in $VM_SUITES; do
	get "SUITE $s END" | awk '$5 != 0 { found = 1 } END { exit !found }' || continue
	echo
	echo "failure lines of $s:"
	grep -a "^  \[$s\] ! " "$M" | head -n 10 | cut -c1-400
done
fatal=$(get "FATAL")
[ -n "$fatal" ] && { echo; echo "$fatal"; nfail=$((nfail + 1)); }
if ! get "DONE" | grep -q .; then
	nfail=$((nfail + 1))
	if [ "$locked" = 1 ]; then
		echo "VM: stopped in a guest kernel soft lockup (a CPU stuck ${VM_LOCKUP_S}s or more); last console lines:"
	elif [ "$timed_out" = 1 ]; then
		echo "VM: did not finish within ${VM_TIMEOUT}s (VM_TIMEOUT); last console lines:"
	else
		echo "VM: stopped before the plan finished (QEMU exit $qrc); last console lines:"
	fi
	tail -n 25 "$M" | sed 's/^/  | /'
	[ -s "$OUT/qemu.out" ] && sed 's/^/  qemu: /' "$OUT/qemu.out" | tail -5
fi
if [ -n "$LOCKUPS" ]; then
	echo
	echo "WARNING: the first boot hung in a guest kernel soft lockup and was stopped;"
	echo "the results above are the second boot's. Its console: $OUT/console-lockup.log"
	echo "$LOCKUPS" | sed 's/^/  | /'
	[ "$locked" = 1 ] && echo "the second boot hung the same way"
fi
echo
echo "timings:"
for e in "${TIMES[@]}"; do
	IFS='|' read -r n ms note <<<"$e"
	printf '  %-26s %9s  %s\n' "$n" "$(fmt_s "$ms")" "$note"
done
printf '  %-26s %9s\n' "VM (boot to power-off)" "$(fmt_s "$vm_ms")"
printf '  %-26s %9s\n' "total" "$(fmt_s "$(( $(ms_since "$T0") + ${VM_BUILD_MS:-0} ))")"
echo "check-vm: $npass passed, $nfail failed"
[ "$nfail" = 0 ]

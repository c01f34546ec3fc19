#!/bin/sh
# PID 1 of the guest (no systemd): mounts what systemd would, the cgroup2
# hierarchy the way systemd mounts it, brings up loopback, runs the
# placement plan and the integration suites, reports on the serial console
# ("@@SBXVM " lines, read by tests/vm/check-vm.sh) and powers off.
# It mounts over /proc, /sys/fs/cgroup, /run and /tmp: never on a host. Only
# PID 1 of a kernel that check-vm.sh booted (sbxvm.accel= on its command
# line) goes on.
if [ $$ -ne 1 ]; then
	echo "init.sh: runs only as PID 1 of the check-vm guest" >&2
	exit 1
fi
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export LANG=C.UTF-8 HOME=/root
BB=/opt/sbx/bin/busybox
VM=/opt/sbx/src/tests/vm/guest
say() { printf '@@SBXVM %s\n' "$*"; }

# Boot-time tools are busybox applets ($BB, static): under TCG every dynamic
# exec costs tens of milliseconds.
$BB mount -t proc -o nosuid,nodev,noexec proc /proc
read -r cmdline </proc/cmdline
case " $cmdline " in *" sbxvm.accel="*) ;; *)
	echo "init.sh: not booted by check-vm.sh" >&2
	exit 1
	;;
esac
# The kernel's uptime in ms (builtins only).
read -r _u _ </proc/uptime
_f=${_u#*.}
up=$((${_u%.*} * 1000 + 1$_f * 10 - 1000)) # when init starts: kernel + initramfs boot time
$BB mount -t sysfs -o nosuid,nodev,noexec sysfs /sys
$BB mkdir -p /dev/pts /dev/shm
$BB mount -t devpts -o nosuid,noexec,gid=5,mode=620,ptmxmode=000 devpts /dev/pts
$BB mount -t tmpfs -o nosuid,nodev tmpfs /dev/shm
# The links udev/systemd make at boot (bash's <(...) needs /dev/fd).
$BB ln -sf /proc/self/fd /dev/fd
$BB ln -sf /proc/self/fd/0 /dev/stdin
$BB ln -sf /proc/self/fd/1 /dev/stdout
$BB ln -sf /proc/self/fd/2 /dev/stderr
$BB ln -sf /proc/kcore /dev/core
# As systemd mounts it: pure v2, cgroup namespaces as delegation boundaries,
# memory.low/min protection applied recursively.
$BB mount -t cgroup2 -o rw,nosuid,nodev,noexec,relatime,nsdelegate,memory_recursiveprot \
	cgroup2 /sys/fs/cgroup
$BB mount -t tmpfs -o nosuid,nodev,mode=755,size=20% tmpfs /run
$BB mount -t tmpfs -o nosuid,nodev,mode=1777 tmpfs /tmp
# Kernel messages (OOM kills) stay off the console, unless check-vm's
# VM_PRINTK (sbxvm.printk=N) asks for them.
lvl=$($BB sed -n 's/.*sbxvm\.printk=\([0-9]\).*/\1/p' /proc/cmdline)
echo "${lvl:-1}" >/proc/sys/kernel/printk
$BB hostname sbxvm
$BB ip link set lo up
# Debian's kernel lets unprivileged processes make user namespaces unless
# an administrator turns it off, as hardened hosts do: off here, so the
# fork servers' namespaces (made by a server uid, zygote.c) must still come
# up, and every warm suite below shows they do.
userns=absent
if [ -w /proc/sys/kernel/unprivileged_userns_clone ]; then
	echo 0 >/proc/sys/kernel/unprivileged_userns_clone
	read -r userns </proc/sys/kernel/unprivileged_userns_clone
fi

. /opt/sbx/config.sh
# SBX_TIME_SCALE: how much slower than the host the guest runs. 4 under TCG
# (software emulation: 3-6x measured), 1 under KVM (kvm-clock only exists
# there); sbxvm.scale=N on the kernel command line (VM_TIME_SCALE) wins.
read -r clocks </sys/devices/system/clocksource/clocksource0/available_clocksource
case " $clocks " in *" kvm-clock "*) accel=kvm scale=1 ;; *) accel=tcg scale=4 ;; esac
for a in $cmdline; do
	case $a in sbxvm.scale=*) scale=${a#sbxvm.scale=} ;; esac
done
export SBX_TIME_SCALE=$scale

read -r release </proc/sys/kernel/osrelease
read -r ctl </sys/fs/cgroup/cgroup.controllers
say TIME init "$up"
say INFO accel $accel
say INFO scale "$SBX_TIME_SCALE"
say INFO kernel "$release ($VM_KERNEL_PKG)"
say INFO cpus "$($BB nproc)" memory-kib "$($BB awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
# mountinfo: "... mount-point options [optional...] - fstype source super-options"
mounts() { $BB awk -v t="$1" '{ for (i = 7; i < NF; i++) if ($i == "-") { if ($(i + 1) == t) print $5, $6, $(i + 3); break } }' /proc/self/mountinfo; }
say INFO cgroup-mount "$(mounts cgroup2)"
say INFO cgroup-v1-mounts "$(mounts cgroup | $BB wc -l)"
say INFO root-controllers "$ctl"
say INFO unprivileged-userns-clone "$userns"

rc=0
# Children run in the background and PID 1 waits: dash's wait reaps every
# child, so orphans reparented to PID 1 never stay zombies.
sh "$VM/plan.sh" &
wait $! || rc=1
if [ -n "$VM_SUITES" ]; then
	sh "$VM/suites.sh" $VM_SUITES &
	wait $! || rc=1
fi
say DONE $rc
sync
$BB poweroff -f
echo o >/proc/sysrq-trigger
sleep 30

#!/bin/sh
# Test-only: runs COMMAND... in a mount namespace of its own (call it through
# `unshare -m`) the way systemd's ProtectSystem=strict leaves a service's
# file system: every mount read-only except /dev, /proc and /sys (the cgroup
# file system stays writable), and the directory of the command's --socket
# argument writable, as the unit's RuntimeDirectory= is.
#
#     unshare -m tests/helpers/protect_system.sh COMMAND...
set -eu
dir=""
prev=""
for a in "$@"; do
	[ "$prev" = "--socket" ] && dir=$(dirname "$a")
	prev=$a
done
[ -n "$dir" ] || { echo "protect_system.sh: no --socket argument" >&2; exit 2; }
mount --make-rslave /
awk '{print $5}' /proc/self/mountinfo | sort -u | while read -r m; do
	case "$m" in /dev | /dev/* | /proc | /proc/* | /sys | /sys/*) continue ;; esac
	mount -o remount,bind,ro "$m" 2>/dev/null || true
done
if touch /usr/.sbx-protect-probe 2>/dev/null; then
	echo "protect_system.sh: /usr is still writable" >&2
	exit 2
fi
mount --bind "$dir" "$dir"
mount -o remount,bind,rw "$dir"
exec "$@"

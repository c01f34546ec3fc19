#!/bin/sh
# Test-only: runs COMMAND... in a mount namespace of its own (call it through
# `unshare -m`) the way sandboxd.service's ProtectSystem=strict,
# ProtectHome=read-only and PrivateTmp=yes leave a service's file system:
# every mount read-only except /dev, /proc and /sys (the cgroup file system
# stays writable), a private /tmp, and the directory of the command's
# --socket argument writable, as the unit's RuntimeDirectory= is (kept at its
# path even under /tmp).
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
# PrivateTmp=yes: a fresh /tmp, with the runtime directory carried over.
hold=$(mktemp -d /run/sbx-protect.XXXXXX)
mount --bind "$dir" "$hold"
mount -t tmpfs -o mode=1777 tmpfs /tmp
mkdir -p "$dir"
mount --move "$hold" "$dir"
rmdir "$hold"
awk '{print $5}' /proc/self/mountinfo | sort -u | while read -r m; do
	case "$m" in /dev | /dev/* | /proc | /proc/* | /sys | /sys/* | /tmp) continue ;; esac
	mount -o remount,bind,ro "$m" 2>/dev/null || true
done
for p in /usr /etc /run /var /home /root; do
	[ -d "$p" ] || continue
	if touch "$p/.sbx-protect-probe" 2>/dev/null; then
		rm -f "$p/.sbx-protect-probe"
		echo "protect_system.sh: $p is still writable" >&2
		exit 2
	fi
done
mount -o remount,bind,rw "$dir"
exec "$@"

#!/bin/sh
# Runs integration suites (build/tests/<name>) in the guest, each through the
# project's tests/run_suite.sh, from the source tree's copy on the layer
# image, as root in the root cgroup; the suites start their own daemons
# (tests/helpers/daemon.c, SBX_BUILD=build).
#
# Time: Check's timeouts are multiplied by SBX_TIME_SCALE
# (CK_TIMEOUT_MULTIPLIER), which is also exported for the suites' own time
# limits; each suite has a hard deadline of 900 s x SBX_TIME_SCALE / 4.
#
# Output per suite: its run_suite.sh output, then
# "@@SBXVM SUITE <name> END <exit> <ms> <passed> <failed> <skipped>".
set -u
# It builds and removes cgroups below /sys/fs/cgroup: only in the check-vm
# guest (whose kernel command line carries sbxvm.accel=).
if ! grep -q 'sbxvm\.accel=' /proc/cmdline 2>/dev/null || [ ! -f /opt/sbx/config.sh ]; then
	echo "$0: runs only inside the check-vm guest" >&2
	exit 1
fi
SRC=/opt/sbx/src
S=${SBX_TIME_SCALE:-1}
cd "$SRC" || exit 1
export SBX_BUILD=build SBX_TIME_SCALE="$S" CK_DEFAULT_TIMEOUT=120 CK_TIMEOUT_MULTIPLIER="$S"
[ -d /opt/sbx/datasets ] && export SBX_DATASETS=/opt/sbx/datasets
say() { printf '@@SBXVM %s\n' "$*"; }
now_ms() { date +%s%3N; }
rc=0
for t in "$@"; do
	say SUITE "$t" BEGIN
	# A clean hierarchy: nothing of the placement plan left.
	find /sys/fs/cgroup -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	t0=$(now_ms)
	log=/run/sbxvm/suite.$t.log
	mkdir -p /run/sbxvm
	# run_suite.sh shows 40 lines of a failing program; a wrapper of the same
	# name keeps its whole output for the failure lines shown below.
	mkdir -p /run/sbxvm/wrap
	# The real-cgroup unit test reorganises its own cgroup: give it one of
	# its own, delegated from the root the way systemd delegates a unit.
	pre=""
	case $t in test_jail_cgroup_real)
		echo "+memory +pids +cpu" >/sys/fs/cgroup/cgroup.subtree_control
		mkdir -p /sys/fs/cgroup/sbx-unit.service
		pre="sh $SRC/tests/vm/guest/in-cgroup.sh /sys/fs/cgroup/sbx-unit.service"
		;;
	esac
	cat >"/run/sbxvm/wrap/$t" <<EOF
#!/bin/sh
{ $pre "$SRC/build/tests/$t"; echo \$? >/run/sbxvm/\$\$.rc; } 2>&1 | tee "$log.full"
rc=\$(cat /run/sbxvm/\$\$.rc); rm -f /run/sbxvm/\$\$.rc; exit \$rc
EOF
	chmod +x "/run/sbxvm/wrap/$t"
	timeout -k 10 $((900 * S / 4 + 60)) tests/run_suite.sh "$t" "/run/sbxvm/wrap/$t" >"$log" 2>&1
	src=$?
	ms=$(($(now_ms) - t0))
	sed "s/^/  [$t] /" "$log" | head -n 300
	if [ $src -ne 0 ] && [ -f "$log.full" ]; then
		echo "  [$t] failure lines of the whole output:"
		grep -E '^[^ :]+:[0-9]+:[FE]:| FAIL ' "$log.full" | head -n 100 |
			sed "s/^/  [$t] ! /"
	fi
	# "<suite>: N passed, N failed[, N skipped]"
	counts=$(sed -n "s/^$t: \([0-9]*\) passed, \([0-9]*\) failed\(, \([0-9]*\) skipped\)\{0,1\}\$/\1 \2 \4/p" "$log" | tail -n 1)
	p=0 f=0 k=0
	if [ -n "$counts" ]; then
		read -r p f k <<EOF
$counts
EOF
	fi
	k=${k:-0}
	[ $src -eq 124 ] && echo "  [$t] killed: no result within its deadline"
	say SUITE "$t" END "$src" "$ms" "$p" "$f" "$k"
	[ $src -eq 0 ] || rc=1
done
exit $rc

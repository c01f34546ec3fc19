#!/bin/sh
# The placement plan, run by the guest's init (tests/vm/guest/init.sh) on a
# pure cgroup v2 hierarchy with no systemd. For each placement in
# $VM_PLACEMENTS the cgroups are built by hand the way systemd would build
# them (directories, "+memory +pids +cpu" in the parents'
# cgroup.subtree_control, the shell that then execs the daemon moved in
# through cgroup.procs), a daemon is started there, and the job set runs
# through the real client (build/sbx run), each response's verdict,
# limit_hit and enforcement compared exactly:
#
#   root     the daemon in the root cgroup
#   service  alone in a delegated service cgroup, /system.slice/sandboxd.service
#            (controllers enabled down to it, as systemd's Delegate=yes)
#   session  from a shell in a login session's scope,
#            /user.slice/user-0.slice/session-1.scope, a leaf that holds another
#            process too (a sleep standing in for the login shell)
#   nodeleg  under a parent that does not delegate: /nodeleg.slice/sandboxd.service
#            where nodeleg.slice's subtree_control enables nothing
#   parent   --cgroup-parent /sandboxd-test, started from the session scope
#   nocg     --no-cgroups (enforcement must name the rlimits)
#
# Every cgroup placement must enforce with cgroup v2: in session and nodeleg
# the daemon's own cgroup cannot host controllers, so it makes a delegated
# home of its own below /sys/fs/cgroup/sandboxd/ (with --cgroup-parent, below
# that path) and moves itself into a leaf there.
#
# The job set: pass; runtime_error; timeout with limit_hit cpu (--cpu 1) and
# wall (--wall 1); memory_limit (--memory 64); limit_hit pids for a fork bomb
# and a thread bomb (--pids 20); output_limit; violation (ptrace); orphans (a
# double-forked sleeper is gone after the job); 8 parallel jobs on 2 workers.
# Then: memory.max, memory.swap.max and pids.max of a running job's cgroup;
# no job cgroup left; SIGKILL (the jobs die with the daemon) and a restart on
# the same socket (stale cgroups removed, jobs served); SIGTERM stops it
# within 5 s.
#
# Output: "@@SBXVM CHECK <placement> <check> PASS|FAIL <ms> <detail>" per
# check, "@@SBXVM PLACEMENT <p> BEGIN <what>" and "... END <ms> <passed>
# <failed>". Exit status 1 if any check failed. Time limits that depend on
# emulation speed are multiplied by $SBX_TIME_SCALE.
set -u
# It builds and removes cgroups below /sys/fs/cgroup: only in the check-vm
# guest (whose kernel command line carries sbxvm.accel=).
if ! grep -q 'sbxvm\.accel=' /proc/cmdline 2>/dev/null || [ ! -f /opt/sbx/config.sh ]; then
	echo "$0: runs only inside the check-vm guest" >&2
	exit 1
fi
SRC=/opt/sbx/src
SBX=$SRC/build/sbx
SBXD=$SRC/build/sandboxd
J=$SRC/tests/vm/guest/jobs
CG=/sys/fs/cgroup
S=${SBX_TIME_SCALE:-1}
W=/run/sbxvm
CTRL="+memory +pids +cpu"
mkdir -p "$W"
. /opt/sbx/config.sh

say() { printf '@@SBXVM %s\n' "$*"; }
# Milliseconds since boot, from /proc/uptime (10 ms steps): no process.
now_ms() {
	read -r _nu _ </proc/uptime
	_nf=${_nu#*.}
	echo $((${_nu%.*} * 1000 + 1$_nf * 10 - 1000))
}

TOTAL_FAIL=0
# report CHECK WHY MS DETAIL: the check passed when WHY is empty.
report() {
	if [ -z "$2" ]; then
		NPASS=$((NPASS + 1))
		say CHECK "$P" "$1" PASS "$3" "$4"
	else
		NFAIL=$((NFAIL + 1))
		say CHECK "$P" "$1" FAIL "$3" "$4 --$2"
	fi
}

# A response is read with one sed and the shell's own string operations:
# under emulation every process the plan starts costs about 45 ms, and a
# sed pipeline per field took 25 of a placement's 45 s (now 20-30 s in
# all). The shell's pattern operations on the whole line are no way out:
# on output-limit's 16 KiB line, dash's took 40 s.
#
# jload FILE: the fields the checks read, from the response on FILE's first
# line (sbx's compact JSON); jval KEY then gives one in _jv. The value of
# "KEY":"..." or "KEY":null, unquoted; "" when there is none. String-valued
# keys are unique in a response except in stdout and stderr, which the
# plan's jobs keep free of them; "memory_mb" as a string is only
# enforcement's (limits' is a number). usage: "cpu=Nms wall=Nms mem=NkB".
JKEYS="verdict limit_hit syscall memory_mb pids cpu_ms"
# The sed program: "KEY VALUE" per field found, the line restored from the
# hold space before each.
JSED="h;"
for _k in $JKEYS; do
	JSED="${JSED}g;s/.*\"$_k\":\(\"[^\"]*\"\|null\).*/$_k \1/p;"
done
JSED="${JSED}g;s/.*\"usage\":{\"cpu_ms\":\([0-9]*\),\"wall_ms\":\([0-9]*\),\"memory_kb\":\([0-9]*\)}.*/usage cpu=\1ms wall=\2ms mem=\3kB/p;q"
jload() {
	for _k in $JKEYS usage; do eval "jv_$_k="; done
	_jo=$(sed -n "$JSED" "$1" 2>/dev/null)
	while read -r _k _v; do
		_v=${_v#\"}
		case " $JKEYS usage " in *" $_k "*) eval "jv_$_k=\${_v%\\\"}" ;; esac
	done <<JLOAD
$_jo
JLOAD
}
jval() { eval "_jv=\${jv_$1-}"; }
# Why the loaded response's enforcement is not the expected one, in _ew
# ("" when it is).
enf_why() {
	_ew=""
	for _kv in "memory_mb|$E_MEM" "pids|$E_PIDS" "cpu_ms|$E_CPU"; do
		_k=${_kv%%|*} _e=${_kv#*|}
		jval "$_k"
		[ "$_jv" = "$_e" ] || _ew="$_ew enforcement.$_k '$_jv', want '$_e';"
	done
}

# job NAME VERDICT LIMIT_HIT [sbx run options] CODE: one job through the client;
# verdict, limit_hit and enforcement must be exactly these.
job() {
	_n=$1 _ev=$2 _eh=$3
	shift 3
	_f=$W/$P.$_n.json
	_t=$(now_ms)
	"$SBX" --socket "$SOCK" run --id "$P-$_n" "$@" >"$_f" 2>"$_f.err"
	_rc=$?
	_ms=$(($(now_ms) - _t))
	jload "$_f"
	jval verdict
	_v=$_jv
	jval limit_hit
	_h=$_jv
	enf_why
	_why=$_ew
	[ $_rc -eq 0 ] || _why="$_why sbx exit $_rc: $(cat "$_f.err" "$_f" | head -c 300 | tr '\n' ' ');"
	[ "$_v" = "$_ev" ] || _why="$_why verdict '$_v', want '$_ev';"
	[ "$_h" = "$_eh" ] || _why="$_why limit_hit '$_h', want '$_eh';"
	report "$_n" "$_why" "$_ms" "verdict=$_v limit_hit=$_h $jv_usage"
}

# Live (non-zombie) processes running as one of this placement's two job uids.
uid_procs() {
	grep -l "^Uid:[[:space:]]*\($UIDB\|$((UIDB + 1))\)[[:space:]]" /proc/[0-9]*/status 2>/dev/null |
		while read -r _s; do
			grep -q '^State:[[:space:]]*Z' "$_s" 2>/dev/null || echo "${_s%/status}"
		done
}
have_uid_procs() { [ -n "$(uid_procs)" ]; }
no_uid_procs() { [ -z "$(uid_procs)" ]; }
# Job cgroups are named <instance>-<slot>-<seq>, the instance "s" + 8 hex digits.
# Not counted: the fork servers' (<instance>-warm...), which live as long as
# the daemon, and a slot's cgroup made ahead for its next job: the cold
# path's has no limit before a run takes it; the warm path's holds the next
# job's pid 1 and the job forked ahead, which run as their server's uid until
# the job comes (its limits may be written already: its server's last job's,
# run_warm.c).
job_cgroups() {
	for _j in $(find "$CG" -mindepth 1 -type d -name 's????????-*' ! -name 's????????-warm*' 2>/dev/null); do
		[ "$(cat "$_j/memory.max" 2>/dev/null)" = max ] && continue
		made_ahead "$_j" && continue
		echo "$_j"
	done
}
# Processes, and none of them of a job uid.
made_ahead() {
	_ma=$(cat "$1/cgroup.procs" 2>/dev/null)
	[ -n "$_ma" ] || return 1
	for _q in $_ma; do
		_u=$(awk '/^Uid:/ { print $2 }' "/proc/$_q/status" 2>/dev/null)
		{ [ "$_u" = "$UIDB" ] || [ "$_u" = "$((UIDB + 1))" ]; } && return 1
	done
	return 0
}
no_job_cgroups() { [ -z "$(job_cgroups)" ]; }
# cgroupfs files have size 0: read them.
busy() { [ -n "$(cat "$1/cgroup.procs" 2>/dev/null)" ]; }
have_busy_job_cgroup() {
	for _d in $(job_cgroups); do busy "$_d" && return 0; done
	return 1
}
alive() { [ -r "/proc/$1/status" ] && ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null; }
not_alive() { ! alive "$1"; }
# wait_for MS COMMAND...: polls until COMMAND succeeds; 1 after MS.
wait_for() {
	_wf_end=$(($(now_ms) + $1))
	shift
	while ! "$@"; do
		[ "$(now_ms)" -ge "$_wf_end" ] && return 1
		sleep 0.1
	done
	return 0
}

# start_daemon: a shell moves itself into $DCG (empty: it stays in the plan's
# cgroup, the root) and execs sandboxd, as a unit's or a login shell's child
# would start; then waits for a ping. Sets DPID, SERVE_MS; DRC on failure.
FIRST_SERVING=""
start_daemon() {
	DRC=""
	sh -c 'if [ -n "$1" ]; then echo $$ >"$1/cgroup.procs" || exit 125; fi; shift; exec "$@"' \
		sh "$DCG" "$SBXD" --socket "$SOCK" --state-dir "$STATE" --workers 2 \
		--uid-base "$UIDB" $DARGS >>"$DLOG" 2>&1 &
	DPID=$!
	_t=$(now_ms)
	while :; do
		if "$SBX" --socket "$SOCK" ping >/dev/null 2>&1; then
			SERVE_MS=$(($(now_ms) - _t))
			if [ -z "$FIRST_SERVING" ]; then
				FIRST_SERVING=1
				read -r _u _ </proc/uptime
				_f=${_u#*.}
				say TIME first-serving $((${_u%.*} * 1000 + 1$_f * 10 - 1000))
			fi
			return 0
		fi
		if not_alive "$DPID"; then
			wait "$DPID"
			DRC=$?
			DPID=""
			return 1
		fi
		if [ $(($(now_ms) - _t)) -gt $((15000 * S)) ]; then
			DRC="no ping answer within $((15 * S)) s"
			return 1
		fi
		sleep 0.05
	done
}
daemon_cgroup() { sed -n 's/^0:://p' "/proc/$1/cgroup" 2>/dev/null; }

# Removes every cgroup below the root (all of them this plan's: the guest
# has no systemd) and the root's controllers, so each placement starts from
# a bare hierarchy.
reset_cgroups() {
	find "$CG" -mindepth 1 -depth -type d -exec rmdir {} + 2>/dev/null
	echo "-memory -pids -cpu" >"$CG/cgroup.subtree_control" 2>/dev/null
	_left=$(find "$CG" -mindepth 1 -type d | sed "s|^$CG||" | tr '\n' ' ')
	[ -z "$_left" ] || say INFO "$P-cgroups-left-over" "$_left"
}
enable() { echo "$CTRL" >"$1/cgroup.subtree_control"; }

# The login shell of session-1: a process already in the scope.
start_holder() {
	sh -c 'echo $$ >"$1/cgroup.procs" && exec sleep 100000' sh "$1" &
	HOLDER=$!
	wait_for 5000 grep -qx "$HOLDER" "$1/cgroup.procs"
}
session_scope() {
	# systemd: -.slice, user.slice and user-0.slice enable the controllers the
	# units below use (memory and tasks accounting are on by default); the
	# scope is a leaf: no Delegate=, its subtree_control stays empty.
	enable "$CG"
	mkdir -p "$CG/user.slice/user-0.slice/session-1.scope"
	enable "$CG/user.slice"
	enable "$CG/user.slice/user-0.slice"
	start_holder "$CG/user.slice/user-0.slice/session-1.scope"
	DCG=$CG/user.slice/user-0.slice/session-1.scope
}

placement() {
	P=$1
	NPASS=0 NFAIL=0 DPID="" HOLDER="" DCG="" DARGS="" SERVE_MS=0
	SOCK=$W/$P.sock STATE=$W/$P.state DLOG=$W/$P.daemon.log
	UIDB=$((62000 + IDX * 100))
	IDX=$((IDX + 1))
	E_MEM="cgroup v2" E_PIDS="cgroup v2" E_CPU="cgroup v2 + RLIMIT_CPU" MODE=cg
	reset_cgroups
	case $P in
	root)
		what="daemon in the root cgroup"
		WANT_DAEMON="/" WANT_JOBS=$CG/
		;;
	service)
		what="alone in a delegated /system.slice/sandboxd.service (Delegate=yes)"
		# systemd: -.slice and system.slice enable the controllers; with
		# Delegate=yes the unit's cgroup is offered all of them and what lies
		# below it is the daemon's.
		enable "$CG"
		mkdir -p "$CG/system.slice/sandboxd.service"
		enable "$CG/system.slice"
		DCG=$CG/system.slice/sandboxd.service
		WANT_DAEMON=/system.slice/sandboxd.service/ WANT_JOBS=$DCG/
		;;
	session)
		what="from a shell in /user.slice/user-0.slice/session-1.scope (with a login shell)"
		session_scope
		WANT_DAEMON=/sandboxd/ WANT_JOBS=$CG/sandboxd/
		;;
	nodeleg)
		what="under /nodeleg.slice/sandboxd.service, nodeleg.slice delegating nothing"
		# -.slice offers the controllers to nodeleg.slice, which does not pass
		# them on: sandboxd.service is offered none.
		enable "$CG"
		mkdir -p "$CG/nodeleg.slice/sandboxd.service"
		DCG=$CG/nodeleg.slice/sandboxd.service
		WANT_DAEMON=/sandboxd/ WANT_JOBS=$CG/sandboxd/
		;;
	parent)
		what="--cgroup-parent /sandboxd-test, from the session scope"
		session_scope
		DARGS="--cgroup-parent /sandboxd-test"
		WANT_DAEMON=/sandboxd-test/ WANT_JOBS=$CG/sandboxd-test/
		;;
	nocg)
		what="--no-cgroups, from the root cgroup"
		DARGS=--no-cgroups MODE=rl
		E_MEM=RLIMIT_AS E_PIDS=RLIMIT_NPROC E_CPU=RLIMIT_CPU
		WANT_DAEMON="/" WANT_JOBS=""
		;;
	*)
		say CHECK "$P" placement FAIL 0 "unknown placement"
		return 1
		;;
	esac
	say PLACEMENT "$P" BEGIN "$what"
	tp=$(now_ms)
	if start_daemon; then
		say INFO "$P-serving-ms" "$SERVE_MS"
		run_jobs
	else
		report start "daemon did not serve: exit $DRC" "$SERVE_MS" \
			"$(tail -n 5 "$DLOG" | tr '\n' ' ' | cut -c1-900)"
	fi
	[ -n "$DPID" ] && { kill -KILL "$DPID" 2>/dev/null; wait "$DPID" 2>/dev/null; }
	[ -n "$HOLDER" ] && { kill "$HOLDER" 2>/dev/null; wait "$HOLDER" 2>/dev/null; }
	if [ "$NFAIL" -gt 0 ]; then
		echo "  daemon log ($P), last lines:"
		tail -n 25 "$DLOG" | sed 's/^/  | /'
		echo "  cgroups:"
		find "$CG" -mindepth 1 -type d | sed "s|^$CG|  | |"
	fi
	say PLACEMENT "$P" END $(($(now_ms) - tp)) "$NPASS" "$NFAIL"
	TOTAL_FAIL=$((TOTAL_FAIL + NFAIL))
}

run_jobs() {
	# Where the daemon lives and what it said about cgroups.
	dcg=$(daemon_cgroup "$DPID")
	say INFO "$P-daemon-cgroup" "$dcg"
	why=""
	case $dcg in "$WANT_DAEMON"*) ;; *) why=" daemon in '$dcg', want below '$WANT_DAEMON';" ;; esac
	[ "$WANT_DAEMON" = / ] && [ "$dcg" != / ] && why=" daemon in '$dcg', want '/';"
	if [ $MODE = cg ]; then
		grep -q "cgroups v2" "$DLOG" || why="$why log does not say 'cgroups v2';"
	else
		grep -q "cgroups none" "$DLOG" || why="$why log does not say 'cgroups none';"
	fi
	report start "$why" "$SERVE_MS" "serving in $dcg; $(grep -m1 serving "$DLOG" | cut -c1-200)"

	job pass pass null "$J/hello.py"
	job runtime-error runtime_error null "$J/raise.py"
	job cpu-timeout timeout cpu --cpu 1 --wall $((10 * S)) "$J/spin.py"
	job wall-timeout timeout wall --wall 1 "$J/sleep.py"
	if [ $MODE = cg ]; then
		job memory memory_limit memory --memory 64 "$J/memory_hog.py"
		job fork-bomb runtime_error pids --pids 20 --wall $((10 * S)) "$J/fork_bomb.py"
		job thread-bomb runtime_error pids --pids 20 --wall $((10 * S)) "$J/thread_bomb.py"
	else
		# rlimits only: RLIMIT_AS makes the allocation (or a thread's stack
		# and arena) fail inside Python, RLIMIT_NPROC refuses forks; the job
		# exits 1 and no limit can be named from evidence.
		job memory runtime_error null --memory 64 "$J/memory_hog.py"
		job fork-bomb runtime_error null --pids 20 --wall $((10 * S)) "$J/fork_bomb.py"
		job thread-bomb runtime_error null --pids 20 --wall $((10 * S)) "$J/thread_bomb.py"
	fi
	job output-limit output_limit output --output 16 "$J/flood.py"
	job violation violation null "$J/ptrace.py"
	jload "$W/$P.violation.json"
	jval syscall
	sc=$_jv
	[ "$sc" = ptrace ] || report violation-syscall "syscall '$sc', want 'ptrace'" 0 ""

	# Orphans: the double-forked sleeper carries a marker on its command line.
	echo "sbxvm-orphan-$P-$$" >"$W/$P.mark"
	job orphans pass null --stdin "$W/$P.mark" "$J/double_fork.py"
	left=$(grep -l -a -F -f "$W/$P.mark" /proc/[0-9]*/cmdline 2>/dev/null | tr '\n' ' ')
	up=$(uid_procs | tr '\n' ' ')
	why=""
	[ -z "$left" ] || why=" marker process(es) alive: $left;"
	[ -z "$up" ] || why="$why job-uid process(es) alive: $up;"
	grep -q PARENT-DONE "$W/$P.orphans.json" || why="$why no PARENT-DONE in stdout;"
	report orphans-gone "$why" 0 "no process of the job after its response"

	parallel8
	cgroup_files
	why=""
	wait_for $((5000 * S)) no_job_cgroups || why=" left: $(job_cgroups | tr '\n' ' ')"
	report no-job-cgroups "$why" 0 "after all jobs"
	kill_restart
	sigterm
}

# 8 jobs at once on 2 workers; each must pass with its own output.
parallel8() {
	_t=$(now_ms)
	_pp=""
	for _i in 1 2 3 4 5 6 7 8; do
		echo "$_i" >"$W/$P.par$_i.in"
		"$SBX" --socket "$SOCK" run --id "$P-par$_i" --stdin "$W/$P.par$_i.in" "$J/square.py" \
			>"$W/$P.par$_i.json" 2>&1 &
		_pp="$_pp $!"
	done
	_why=""
	for _p in $_pp; do wait "$_p" || _why="$_why an sbx exited $?;"; done
	_ms=$(($(now_ms) - _t))
	for _i in 1 2 3 4 5 6 7 8; do
		_f=$W/$P.par$_i.json
		jload "$_f"
		jval verdict
		[ "$_jv" = pass ] || _why="$_why job $_i verdict '$_jv';"
		grep -qF "\"stdout\":\"$((_i * 7))\\n\"" "$_f" || _why="$_why job $_i stdout wrong;"
		enf_why
		_why="$_why$_ew"
	done
	report parallel-8 "$_why" "$_ms" "8 jobs on 2 workers"
}

# A running job's cgroup has the limits written; cancelling it (the client
# goes away) removes it.
cgroup_files() {
	"$SBX" --socket "$SOCK" run --id "$P-hold" --memory 100 --pids 30 --wall 120 "$J/sleep.py" \
		>"$W/$P.hold.json" 2>&1 &
	_c=$!
	_t=$(now_ms)
	_mm="" _sw="" _pm="" _d=""
	wait_for $((10000 * S)) have_uid_procs
	if [ $MODE = rl ]; then
		_why=""
		have_uid_procs || _why=" the job never ran;"
		[ -z "$(job_cgroups)" ] || _why="$_why job cgroup(s) exist: $(job_cgroups);"
		report no-cgroup-used "$_why" $(($(now_ms) - _t)) "a running job under --no-cgroups"
	else
		wait_for $((5000 * S)) have_busy_job_cgroup
		_d=""
		for _x in $(job_cgroups); do busy "$_x" && _d=$_x; done
		_why=""
		if [ -z "$_d" ]; then
			_why=" no job cgroup with processes found under $CG;"
		else
			say INFO "$P-job-cgroup" "${_d#$CG}"
			_mm=$(cat "$_d/memory.max" 2>&1) _sw=$(cat "$_d/memory.swap.max" 2>&1)
			_pm=$(cat "$_d/pids.max" 2>&1)
			[ "$_mm" = 104857600 ] || _why="$_why memory.max '$_mm', want 104857600;"
			[ "$_sw" = 0 ] || _why="$_why memory.swap.max '$_sw', want 0;"
			[ "$_pm" = 30 ] || _why="$_why pids.max '$_pm', want 30;"
			case $_d in "$WANT_JOBS"*) ;; *) _why="$_why job cgroup not below $WANT_JOBS;" ;; esac
		fi
		report cgroup-files "$_why" $(($(now_ms) - _t)) "memory.max=${_mm:-} memory.swap.max=${_sw:-} pids.max=${_pm:-} in ${_d#$CG}"
	fi
	kill "$_c" 2>/dev/null
	wait "$_c" 2>/dev/null
	_t=$(now_ms)
	_why=""
	wait_for $((5000 * S)) no_uid_procs || _why=" job processes alive: $(uid_procs | tr '\n' ' ');"
	wait_for $((5000 * S)) no_job_cgroups || _why="$_why left: $(job_cgroups | tr '\n' ' ');"
	report cancel-cleanup "$_why" $(($(now_ms) - _t)) "the client went away mid-job"
}

# SIGKILL: the running job dies with the daemon; a restart on the same socket
# removes the stale job cgroup and serves.
kill_restart() {
	"$SBX" --socket "$SOCK" run --id "$P-orphaned" --wall 120 "$J/sleep.py" >"$W/$P.orphaned.json" 2>&1 &
	_c=$!
	wait_for $((10000 * S)) have_uid_procs
	[ $MODE = cg ] && wait_for $((5000 * S)) have_busy_job_cgroup
	_stale=$(job_cgroups | head -n 1)
	kill -KILL "$DPID"
	wait "$DPID" 2>/dev/null
	DPID=""
	_t=$(now_ms)
	_why=""
	wait_for $((5000 * S)) no_uid_procs || _why=" job processes alive: $(uid_procs | tr '\n' ' ');"
	report sigkill-jobs-die "$_why" $(($(now_ms) - _t)) "the job's processes after SIGKILL of the daemon"
	wait "$_c" 2>/dev/null
	_note=""
	if [ "$P" = service ]; then
		# What systemd does when a unit's main process dies: the unit stops,
		# whatever is left in its cgroup is killed and the cgroup, delegated
		# subtree included, is removed; Restart= starts it in a fresh one.
		echo 1 >"$DCG/cgroup.kill"
		wait_for 5000 grep -q '^populated 0' "$DCG/cgroup.events"
		find "$DCG" -depth -type d -exec rmdir {} + 2>/dev/null
		mkdir -p "$DCG"
		_note=" (by systemd's stop)"
	fi
	if ! start_daemon; then
		report restart "daemon did not serve again: exit $DRC" "$SERVE_MS" \
			"$(tail -n 5 "$DLOG" | tr '\n' ' ' | cut -c1-900)"
		return
	fi
	_why=""
	if [ $MODE = cg ]; then
		if [ -z "$_stale" ]; then
			_why=" no job cgroup was seen before the SIGKILL;"
		elif [ -d "$_stale" ]; then
			_why=" stale ${_stale#$CG} still there;"
		fi
	fi
	_dcg=$(daemon_cgroup "$DPID")
	case $_dcg in "$WANT_DAEMON"*) ;; *) _why="$_why restarted daemon in '$_dcg';" ;; esac
	report restart "$_why" "$SERVE_MS" "same socket; stale job cgroup ${_stale#$CG} removed$_note; daemon in $_dcg"
	job after-restart pass null "$J/hello.py"
}

sigterm() {
	_t=$(now_ms)
	kill -TERM "$DPID"
	_why=""
	wait_for 5000 not_alive "$DPID" || _why=" still running 5 s after SIGTERM;"
	_ms=$(($(now_ms) - _t))
	if [ -z "$_why" ]; then
		wait "$DPID"
		_st=$?
		DPID=""
		[ $_st -eq 0 ] || _why=" exit status $_st;"
	fi
	[ -e "$SOCK" ] && _why="$_why socket $SOCK not removed;"
	no_job_cgroups || _why="$_why job cgroups left: $(job_cgroups | tr '\n' ' ');"
	report sigterm "$_why" "$_ms" "stops, exit 0, socket and job cgroups gone"
}

IDX=0
for pl in $VM_PLACEMENTS; do
	placement "$pl"
done
P=final
reset_cgroups
[ "$TOTAL_FAIL" -eq 0 ]

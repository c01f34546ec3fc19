#!/usr/bin/env bash
# Runs each test program of one suite, prints how long the suite took and a
# closing "<suite>: N passed, N failed, N skipped" line; exits non-zero if any
# program failed.
#
#   tests/run_suite.sh SUITE PROGRAM...
#
# A PROGRAM is a Check binary, or a Python unittest file (*.py, run with
# $PYTHON, default /usr/bin/python3).
#
# Skips. A test whose subject is missing on this machine (a kernel feature, a
# Python module, a data set) is reported as skipped, with its reason, and is
# never counted as passed:
#  - Check has no skipped state; such a test prints "SKIP: <suite>/<test>:
#    <reason>" on stderr and returns (tests/helpers/skip.h), which Check counts
#    as a pass. Each such line moves one test from passed to skipped, unless
#    Check reports that same test as failed (then it stays a failure).
#  - unittest counts skips itself ("OK (skipped=N)"); the runner's suites
#    (tests/runner/runner_support.py) also print a SKIP line per skip, for the
#    reasons.
# Every SKIP line is repeated in this script's output.
#
# SBX_SUITE_SUMMARY=FILE appends "SUITE PASSED FAILED SKIPPED SECONDS" to FILE
# (make check prints them as its closing table).
#
# SBX_SUITE_JOBS=N runs up to N programs at once (default 1). A suite's
# programs may run side by side only if each keeps to its own resources (the
# integration suites' daemons each take their own uid range, state directory
# and cgroups: tests/helpers/daemon.c). Most of them wait on jobs, sockets
# and timers more than they compute, so on two CPUs two at a time cut the
# suite's time by about a third. SBX_SUITE_ALONE="NAME..." names the programs
# that need the machine to themselves (they measure CPU use, wall time or
# host-wide counters); they run one by one after the rest. Each program's
# report is printed in the given order, as soon as it and those before it
# have finished.
set -u
suite=$1
shift
start=$(date +%s.%N)
pass=0 fail=0 skip=0 failed="" skips=""
jobs=${SBX_SUITE_JOBS:-1}
[[ $jobs =~ ^[1-9][0-9]*$ ]] || jobs=1
alone=" ${SBX_SUITE_ALONE:-} "
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# The programs start `python3` by name too (fake generators, the examples'
# scripts, `sbx eval`'s manifest): it is $PYTHON, as for *.py programs, not
# whatever PATH finds first. A version manager's shim there (pyenv's) took
# 0.4 s a start on a slow machine, 113 starts in one suite, and its
# interpreter sees none of Debian's modules.
mkdir "$tmp/bin" && ln -s "${PYTHON:-/usr/bin/python3}" "$tmp/bin/python3" &&
	export PATH="$tmp/bin:$PATH"

# Check's failure lines: "file:line:F:tcase:test:iteration: message" (E: error).
check_failed() {
	printf '%s\n' "$2" | grep -qE "^[^:]*:[0-9]+:[FE]:[^:]*:$1:"
}

# Runs program $2 as number $1: its output, exit status and time (in tenths
# of a second) go to files that report() reads.
run_one() {
	local i=$1 t=$2 t0 rc
	t0=$(date +%s%N)
	if [[ $t == *.py ]]; then
		"${PYTHON:-/usr/bin/python3}" "$t" >"$tmp/$i.out" 2>&1
	else
		CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120} "$t" >"$tmp/$i.out" 2>&1
	fi
	rc=$?
	echo $((($(date +%s%N) - t0) / 100000000)) >"$tmp/$i.took"
	echo $rc >"$tmp/$i.tmp" && mv "$tmp/$i.tmp" "$tmp/$i.rc"
}

# Adds program $2 (number $1), finished, to the counts and prints its lines.
report() {
	local t=$2 name out rc took
	name=$(basename "$t")
	out=$(cat "$tmp/$1.out")
	rc=$(cat "$tmp/$1.rc")
	took=$(cat "$tmp/$1.took")
	if [[ $t == *.py ]]; then
		ran=$(printf '%s\n' "$out" | sed -nE 's/^Ran ([0-9]+) tests? in .*/\1/p' | tail -1)
		status=$(printf '%s\n' "$out" | grep -E '^(OK|FAILED)( \(.*\))?$' | tail -1)
		if [ -n "$ran" ] && [ -n "$status" ]; then
			# "FAILED (failures=1, errors=2, skipped=3, expected failures=4, ...)"
			num() { printf '%s\n' "$status" | sed -nE "s/.*(\\(|, )$1=([0-9]+).*/\\2/p"; }
			f=$(num failures) e=$(num errors) s=$(num skipped) u=$(num 'unexpected successes')
			f=${f:-0} e=${e:-0} s=${s:-0} u=${u:-0}
			printf '  %s: Ran %s, Failures: %s, Errors: %s, Skipped: %s\n' "$name" "$ran" \
				"$f" "$e" "$s"
			pass=$((pass + ran - f - e - u - s))
			fail=$((fail + f + e + u))
			skip=$((skip + s))
			skips+=$(printf '%s\n' "$out" | grep -E '^SKIP: ' | sed 's/^/  /')$'\n'
		fi
		if [ $rc -ne 0 ]; then
			failed="$failed $name"
			# The failure reports: from the first "=====" separator on.
			printf '%s\n' "$out" | sed -n '/^======/,$p' | head -80 | sed 's/^/    /'
			if [ -z "$ran" ]; then
				fail=$((fail + 1))
				printf '%s\n' "$out" | tail -20 | sed 's/^/    /'
				echo "    (no unittest summary; exit status $rc)"
			fi
		fi
		return
	fi
	printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks' |
		sed "s|^|  $name: |; s|\$| ($((took / 10)).$((took % 10)) s)|"
	n_run=$(printf '%s\n' "$out" | sed -nE 's/^[0-9]+%: Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/p' | tail -1)
	if [ -n "$n_run" ]; then
		read -r c f e <<<"$n_run"
		s=0
		while IFS= read -r line; do
			[ -n "$line" ] || continue
			test=${line#SKIP: }
			test=${test%%: *}
			test=${test#*/}
			if check_failed "$test" "$out"; then
				continue
			fi
			s=$((s + 1))
			skips+="  $line"$'\n'
		done < <(printf '%s\n' "$out" | grep -E '^SKIP: ')
		[ $s -gt $((c - f - e)) ] && s=$((c - f - e))
		pass=$((pass + c - f - e - s))
		fail=$((fail + f + e))
		skip=$((skip + s))
	fi
	if [ $rc -ne 0 ]; then
		failed="$failed $name"
		# The lines that say what failed first (Check's failure lines, a
		# table's FAIL rows, sanitizer reports), then the start of the output
		# for context: a long table would otherwise hide the failing row.
		printf '%s\n' "$out" | grep -E ':[0-9]+:[FE]:|FAIL|Sanitizer|runtime error' |
			head -40 | sed 's/^/    ! /'
		printf '%s\n' "$out" | grep -vE '^(Running suite|[0-9]+%: Checks|SKIP: )' | head -20 | sed 's/^/    /'
		[ -z "$n_run" ] && fail=$((fail + 1))
		[ -n "$out" ] || echo "    (no output; exit status $rc)"
	fi
}

progs=("$@")
next=0 # the first program not yet reported
flush() {
	while [ $next -lt ${#progs[@]} ] && [ -e "$tmp/$next.rc" ]; do
		report $next "${progs[$next]}"
		next=$((next + 1))
	done
}
# Those that may share the machine first, up to $jobs at a time, then the
# ones that run alone, one by one; reports still follow the given order.
shared=() solo=()
for i in "${!progs[@]}"; do
	if [[ $alone == *" $(basename "${progs[$i]}") "* ]]; then
		solo+=("$i")
	else
		shared+=("$i")
	fi
done
for i in "${shared[@]}"; do
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
		wait -n
		flush
	done
	run_one "$i" "${progs[$i]}" &
done
wait
flush
for i in "${solo[@]}"; do
	run_one "$i" "${progs[$i]}"
	flush
done
end=$(date +%s.%N)
secs=$(printf '%.1f' "$(echo "$end - $start" | bc 2>/dev/null || python3 -c "print($end-$start)")")
if [ -n "${skips//[$'\n']/}" ]; then
	echo "$suite: skipped tests:"
	printf '%s' "$skips" | grep -v '^$'
fi
printf '[%s] suite took %s s\n' "$suite" "$secs"
echo "$suite: $pass passed, $fail failed, $skip skipped"
if [ -n "${SBX_SUITE_SUMMARY:-}" ]; then
	echo "$suite $pass $fail $skip $secs" >>"$SBX_SUITE_SUMMARY"
fi
[ -z "$failed" ] || { echo "$suite: failing programs:$failed"; exit 1; }

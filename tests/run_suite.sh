#!/usr/bin/env bash
# Runs each test binary of one suite, prints how long the suite took and a
# closing "N passed, N failed" line; exits non-zero if any binary failed.
set -u
suite=$1; shift
start=$(date +%s.%N)
pass=0; fail=0; failed=""
for t in "$@"; do
	out=$(CK_DEFAULT_TIMEOUT=${CK_DEFAULT_TIMEOUT:-120} "$t" 2>&1); rc=$?
	printf '%s\n' "$out" | grep -E '^[0-9]+%: Checks' | sed "s|^|  $(basename "$t"): |"
	n_run=$(printf '%s\n' "$out" | sed -nE 's/^[0-9]+%: Checks: ([0-9]+), Failures: ([0-9]+), Errors: ([0-9]+).*/\1 \2 \3/p' | tail -1)
	if [ -n "$n_run" ]; then
		set -- $n_run "$@"; c=$1; f=$2; e=$3; shift 3
		pass=$((pass + c - f - e)); fail=$((fail + f + e))
	fi
	if [ $rc -ne 0 ]; then
		failed="$failed $(basename "$t")"
		printf '%s\n' "$out" | grep -vE '^(Running suite|[0-9]+%: Checks)' | head -40 | sed 's/^/    /'
		[ -z "$n_run" ] && fail=$((fail + 1))
	fi
done
end=$(date +%s.%N)
printf '[%s] suite took %.1f s\n' "$suite" "$(echo "$end - $start" | bc 2>/dev/null || python3 -c "print($end-$start)")"
echo "$suite: $pass passed, $fail failed"
[ -z "$failed" ] || { echo "$suite: failing binaries:$failed"; exit 1; }

#!/usr/bin/env bash
# Runs the libFuzzer targets build-fuzz/fuzz_<T> for SECONDS each, as many
# at a time as there are CPUs: each fuzzer uses one, so on two CPUs the
# four targets take two rounds instead of four. Each target's log is in
# build-fuzz/<T>.log; the summaries are printed in the order given. Exits 1
# if any target crashed (its input is left in build-fuzz/).
#
#   tests/fuzz/run_fuzz.sh SECONDS TARGET...
set -u
secs=$1
shift
fuzz_one() {
	local t=$1 start rc
	start=$(date +%s)
	mkdir -p "build-fuzz/corpus-$t" && cp "tests/fuzz/corpus/$t/"* "build-fuzz/corpus-$t/"
	ASAN_OPTIONS=detect_leaks=1 "./build-fuzz/fuzz_$t" -max_total_time="$secs" \
		-max_len=65536 -timeout=10 -rss_limit_mb=2048 -artifact_prefix=build-fuzz/ \
		-close_fd_mask=3 "build-fuzz/corpus-$t" "tests/fuzz/corpus/$t" >"build-fuzz/$t.log" 2>&1
	rc=$?
	echo "$rc $(($(date +%s) - start))" >"build-fuzz/$t.result"
}
n=$(nproc 2>/dev/null || echo 1)
for t in "$@"; do
	rm -f "build-fuzz/$t.result"
	while [ "$(jobs -rp | wc -l)" -ge "$n" ]; do wait -n; done
	fuzz_one "$t" &
done
wait
status=0
for t in "$@"; do
	read -r rc took <"build-fuzz/$t.result" 2>/dev/null || { rc=1 took=?; }
	if [ "$rc" != 0 ]; then
		tail -30 "build-fuzz/$t.log"
		echo "[fuzz] $t: CRASH (input in build-fuzz/)"
		status=1
		continue
	fi
	grep -E '^Done|^#[0-9]+.*DONE' "build-fuzz/$t.log" | tail -1
	echo "[fuzz] $t: $took s"
done
exit $status

#!/usr/bin/env bash
# make run: start a daemon on a temporary socket, run the bundled example
# programs through `sbx run`, show each verdict, stop the daemon.
set -eu
build=${1:-build}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/sandboxd-demo.XXXXXX)
sock=$tmp/sandboxd.sock
# The evaluation's outputs outlive the demo (the daemon's temp dir does not).
out=$build/demo/eval
rm -rf "$out"
mkdir -p "$build/demo"
daemon=
cleanup() {
	[ -n "$daemon" ] && { kill -TERM "$daemon" 2>/dev/null || true; wait "$daemon" 2>/dev/null || true; }
	rm -rf "$tmp"
}
trap cleanup EXIT
# The job uids must belong to nobody: a sandboxd already serving on this
# machine (or a test's) holds the default range, and the daemon then refuses
# to start and names --uid-base. The demo tries other ranges before giving up.
up=0
for base in 61000 $(shuf -i 2000-9000 -n 4 | sed 's/$/00/'); do
	"$build/sandboxd" --socket "$sock" --state-dir "$tmp/state" --uid-base "$base" \
		2>"$tmp/daemon.log" &
	daemon=$!
	for _ in $(seq 200); do
		"$build/sbx" --socket "$sock" ping >/dev/null 2>&1 && { up=1; break; }
		kill -0 "$daemon" 2>/dev/null || break
		sleep 0.05
	done
	[ "$up" = 1 ] && break
	kill -TERM "$daemon" 2>/dev/null || true
	wait "$daemon" 2>/dev/null || true
	daemon=
	grep -q -- '--uid-base' "$tmp/daemon.log" || break
done
if [ "$up" != 1 ]; then
	echo "sandboxd did not come up; its log:" >&2
	sed 's/^/  /' "$tmp/daemon.log" >&2
	exit 1
fi
echo "sandboxd is up: $("$build/sbx" --socket "$sock" ping)"
echo
printf '%-18s %-14s %-6s %-8s %-8s %-9s %s\n' PROGRAM VERDICT HIT CPU_MS WALL_MS MEM_KB "MESSAGE / FIRST LINE OF OUTPUT"
run() {
	local name=$1; shift
	"$build/sbx" --socket "$sock" run "$@" "$here/programs/$name" | python3 -c '
import json, sys
name = sys.argv[1]
r = json.load(sys.stdin)
u = r["usage"]
lines = (r["stderr"] if r["verdict"] == "runtime_error" else r["stdout"]).strip().splitlines()
detail = lines[-1] if lines and r["verdict"] in ("pass", "runtime_error") else r["message"]
print("%-18s %-14s %-6s %-8s %-8s %-9s %s" % (name, r["verdict"], r["limit_hit"] or "-",
      u["cpu_ms"], u["wall_ms"], u["memory_kb"], detail[:70]))' "$name"
}
run hello.py
run sum_stdin.py --stdin "$here/programs/sum_stdin.in"
run network.py
run exception.py
run busy_loop.py --cpu 1
run memory_hog.py --memory 128
run output_flood.py --output 256
run ptrace.py

echo
echo "== Structured feedback: the model-facing view of a failing test run"
"$build/sbx" --socket "$sock" run --explain --format unittest \
	--tests "$here/feedback/test_word_count.py" "$here/feedback/word_count.py" | sed 's/^/  /'

echo
echo "== A multi-turn evaluation (ConvCodeWorld's loop) on the bundled tasks"
echo "   generator: examples/generators/replay.py (canned attempts; a stand-in for a model)"
echo "   --check-reference runs each task's reference solution first: the ninth task"
echo "   (tasks/broken_reference.jsonl) imports a module this machine lacks, so it is"
echo "   left out of the score and listed, instead of counting as the model's failure"
cat "$here/tasks/bigcodebench.jsonl" "$here/tasks/broken_reference.jsonl" >"$tmp/tasks.jsonl"
"$build/sbx" --socket "$sock" eval --dataset "$tmp/tasks.jsonl" \
	--format bigcodebench --check-reference \
	--generator "$here/generators/replay.py $here/tasks/attempts.json" \
	--setting CF --setting CF_EF_UNIT --setting CF_EF_FULL --turns 3 --no-progress \
	--out "$out" | sed 's/^/  /'
"$build/sbx" score --plot "$out/pass_at_1.svg" "$out" >/dev/null
"$build/sbx" report -o "$out/report.html" "$out" >/dev/null
echo "   wrote, in $out/ (kept after the demo):"
echo "     turns.jsonl ($(wc -l < "$out/turns.jsonl") records), traces.jsonl, summary.json"
echo "     reference.jsonl (each task's reference check; the limits used are in manifest.json)"
echo "     pass_at_1.svg (the Pass@1-per-turn plot)"
echo "     report.html (the HTML report: scores, curves, each task's turns)"
first_fail=$(python3 -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r["setting"] == "CF_EF_FULL" and r["turn"] == 1 and not r["carried"]:
        print("   turn 1 of %s: the model was shown:" % r["task_id"])
        print("\n".join("     | " + l for l in r["user_message"].splitlines()[:36]))
        break' "$out/turns.jsonl")
echo "$first_fail"

echo
echo "daemon log (last lines):"
tail -5 "$tmp/daemon.log" | sed 's/^/  /'

#!/usr/bin/env python3
"""A generator whose outcome differs from task to task, so that a merged
score can only equal the unsharded one when every task of every shard is in
it (with tests/eval/canonical_gen.py every task goes 0 -> 1 and any subset
scores the same). By crc32(task_id) % 4 the task is answered with the
dataset's canonical solution from turn 0, from turn 1, from turn 2, or never
(a stub that compiles and fails).

Usage: mixed_gen.py DATASET.jsonl[.gz]   (HumanEval JSONL)
"""
import gzip
import json
import sys
import zlib


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return {r["task_id"]: r for r in map(json.loads, f)}


def first_right_turn(task_id):
    k = zlib.crc32(task_id.encode()) % 4
    return None if k == 3 else k


def main():
    tasks = load(sys.argv[1])
    req = json.load(sys.stdin)
    task = tasks[req["task_id"]]
    first = first_right_turn(req["task_id"])
    if first is None or req["turn"] < first:
        code = f"def {task['entry_point']}(*args, **kwargs):\n    return None\n"
    else:
        code = task["prompt"] + task["canonical_solution"]
    sys.stdout.write("```python\n" + code + "\n```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""A generator that is wrong at turn 0 and answers the dataset's canonical
solution from turn 1 on: with CF_EF_FULL, Pass@1 must go 0 -> 1.0 and MRR
be 0.5 over any benchmark whose canonical solutions pass (a check of the
whole loop on real data, e.g. the 164 HumanEval tasks).

Usage: canonical_gen.py DATASET.jsonl[.gz]   (HumanEval or BigCodeBench JSONL)
"""
import gzip
import json
import sys


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as f:
        return {r["task_id"]: r for r in map(json.loads, f)}


def main():
    tasks = load(sys.argv[1])
    req = json.load(sys.stdin)
    task = tasks[req["task_id"]]
    if req["turn"] == 0:
        code = f"def {task['entry_point']}(*args, **kwargs):\n    return None\n"
    else:
        # BigCodeBench keeps imports and signature in code_prompt;
        # HumanEval in prompt.
        head = task.get("code_prompt") or task["prompt"]
        code = head + task["canonical_solution"]
    sys.stdout.write("```python\n" + code + "\n```\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())

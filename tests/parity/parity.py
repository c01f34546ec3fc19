#!/usr/bin/python3
"""Warm/cold parity driver (issue 11, section 2: "Results are identical to
the cold path"). Sends the same requests to two running daemons, a default
one (warm path) and a `--cold` one, and compares their responses.

    SBX_PARITY_COLD=SOCK SBX_PARITY_WARM=SOCK parity.py PART...

PART is one of: probes (tests/parity/probes/*.py), examples (examples/),
hostile (tests/hostile/*.py job programs), humaneval (164 canonical
solutions, a None stub and a mutant each), bigcodebench (a sample of the
data set: canonical solutions and None stubs); the data-set requests with
and without a seed (parity_data.py), and in them verdicts and per-test
outcomes must agree as well as the whole response.
tests/integration/test_parity.c and test_parity_data.c start the daemons
(both with the same --uid-base, so the uids the jobs see are the same) and
run this script; it never runs jobs on both daemons at once, because the two
share that uid range.

The comparison: each response line is parsed, then `usage`, `timing` and
`path` are removed at top level and `duration_ms` from each test (the
per-test timing); the rest is serialized again in the daemon's key order
and compared byte for byte. Where a program's own output varies from run to
run on the cold path too, the varying part is normalized or a weaker
comparison is used, named with its reason (parity_data.py:
HOSTILE_NORMALIZE, HOSTILE_WEAK, HOSTILE_TIME_RACE); an unseeded data-set
request that differs is re-run on the --cold daemon, and not compared when
the cold path disagrees with itself. Probes: fresh_random.py is not compared
but run twice per daemon (two unseeded jobs must not share random state),
and every probe but exit_* must pass on the cold path.

On the default daemon `path` must be "warm" for every job without a seed and without isolation "process" (the warm path may
legitimately run those cold: a seed no fork server has, a process-isolated
job); on the --cold daemon it must be "cold". SBX_PARITY_PATHS=0 turns the
path check off (to see the content comparison alone).

Exit 0: every comparison agreed; 1: a difference (each is printed);
77: nothing could run (a data set missing), with the reason.
SBX_PARITY_CONTROL=1: every response of the default daemon is altered as a
broken warm path could answer (verdict, error code, first test outcome), and
every comparison must report it (the control of test_parity.c).
SBX_PARITY_STRICT=1: no per-program normalization or weak comparison (to
find what varies on the cold path alone: both sockets the --cold daemon's).
SBX_PARITY_QUICK=1: the examples part in its short form (make check).
SBX_PARITY_ONLY=substring runs only the requests whose id contains it.
SBX_DATASETS names the data set directory (default ../shared/datasets)."""
import ast
import json
import os
import re
import sys
import time

from parity_data import part_bigcodebench, part_hostile, part_humaneval
from parity_lib import (EXAMPLES, ONLY, PROBES, QUICK, SEED, SKIP, SOCKS, Conn,
                        Tally, header, log, run_both, seeded)


CHECK_PROBE = "def check(candidate):\n    candidate()\n"


def test_req(rid, code, seed=None, **kw):
    r = {"id": rid, "code": code, "format": "humaneval", "tests": CHECK_PROBE,
         "entry_point": "probe"}
    r.update(kw)
    if seed is not None:
        r["seed"] = seed
    return r


def probe_requests():
    reqs, fresh = [], []
    for name in sorted(os.listdir(PROBES)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(PROBES, name), encoding="utf-8") as f:
            src = f.read()
        if name == "fresh_random.py":
            fresh = [{"id": "fresh-%d" % i, "code": src} for i in range(2)]
            continue
        stdin = [ast.literal_eval('"%s"' % s) for s in header(src, "stdin")]
        base = "probe/" + name
        reqs.append({"id": base + "/plain", "code": src})
        reqs.append({"id": base + "/plain-seed", "code": src, "seed": SEED})
        reqs.append(test_req(base + "/test", src))
        reqs.append(test_req(base + "/test-seed", src, seed=SEED))
        # A stdio case runs the program as a plain run does (as the runner's
        # "main" job), its file named solution.py; its output is compared
        # with nothing, so the case "fails" and shows it.
        cases = [{"input": s, "output": ""} for s in stdin] or [{"input": "", "output": ""}]
        reqs.append({"id": base + "/stdio", "code": src, "format": "stdio", "tests": cases})
        for i, s in enumerate(stdin):
            reqs.append({"id": base + "/plain-stdin%d" % i, "code": src, "stdin": s})
            reqs.append(test_req(base + "/test-seed-stdin%d" % i, src, seed=SEED, stdin=s))
    return reqs, fresh


def part_probes():
    t = Tally("probes")
    reqs, fresh = probe_requests()
    pairs, reqs = run_both(reqs)
    for r in reqs:
        t.compare(r, *pairs[r["id"]])
    ok = t.done()
    # A probe that breaks prints the same traceback on both paths: every
    # probe but the exit_* ones must pass on the cold path, or it proves
    # nothing.
    for r in reqs:
        resp = json.loads(pairs[r["id"]][0])
        v = resp.get("verdict")
        if r["id"].endswith("/stdio"):     # judged against "": it ran if it failed
            v = "pass" if {t.get("outcome") for t in resp.get("tests", [])} == {"failed"} \
                else v
        if not r["id"].startswith("probe/exit_") and v != "pass":
            ok = False
            log("BROKEN probes %s: verdict %s on the cold path (a probe must pass): %s" %
                (r["id"], v, pairs[r["id"]][0][-600:].decode(errors="replace")))
    # Freshness: two unseeded jobs on the same daemon must not share random
    # state (random, os.urandom, numpy). hash() is reported, not required:
    # the hash secret is fixed per interpreter, and the warm path's rule for
    # it is documented in docs/architecture.md.
    fresh = [r for r in fresh if ONLY in r["id"]]
    if len(fresh) == 2:
        for key in ("cold", "warm"):
            c = Conn(SOCKS[key])
            try:
                outs = [json.loads(c.pipeline([r])[r["id"]]) for r in fresh]
            finally:
                c.close()
            lines = [dict(line.split(" ", 1) for line in o.get("stdout", "").splitlines()
                          if " " in line) for o in outs]
            for k in ("random", "urandom", "numpy", "hash"):
                same = lines[0].get(k) == lines[1].get(k)
                if k == "numpy" and lines[0].get(k) == "absent":
                    continue
                if k == "hash":
                    log("parity probes: %s daemon: two unseeded jobs %s hash('abc')" %
                        (key, "share" if same else "differ in"))
                elif same or k not in lines[0]:
                    ok = False
                    log("DIFF probes fresh_random.py: %s daemon: two unseeded jobs gave the "
                        "same %s line %r (or none)" % (key, k, lines[0].get(k)))
    return ok


# Examples: the limits and stdin examples/demo.sh runs each program with.
EXAMPLE_LIMITS = {"busy_loop.py": {"cpu_ms": 1000}, "memory_hog.py": {"memory_mb": 128},
                  "output_flood.py": {"output_kb": 256}}


def fenced(text):
    m = re.search(r"```(?:python)?\n(.*?)```", text, re.S)
    return m.group(1) if m else text


def jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def example_requests():
    reqs = []
    progs = os.path.join(EXAMPLES, "programs")
    for name in sorted(os.listdir(progs)):
        if not name.endswith(".py"):
            continue
        with open(os.path.join(progs, name), encoding="utf-8") as f:
            r = {"id": "example/programs/" + name, "code": f.read()}
        inp = os.path.join(progs, name[:-3] + ".in")
        if os.path.exists(inp):
            with open(inp, encoding="utf-8") as f:
                r["stdin"] = f.read()
        if name in EXAMPLE_LIMITS:
            r["limits"] = EXAMPLE_LIMITS[name]
        reqs.append(r)
    fb = os.path.join(EXAMPLES, "feedback")
    with open(os.path.join(fb, "word_count.py"), encoding="utf-8") as f:
        code = f.read()
    with open(os.path.join(fb, "test_word_count.py"), encoding="utf-8") as f:
        tests = f.read()
    for seed in (None, SEED):
        for cov in ("full",) if QUICK else ("full", "partial", "none"):
            r = {"id": "example/feedback/word_count/%s/%s" % (cov, seed), "code": code,
                 "format": "unittest", "tests": tests, "coverage": cov}
            if seed is not None:
                r["seed"] = seed
            reqs.append(r)
    tasks = os.path.join(EXAMPLES, "tasks")
    attempts = json.load(open(os.path.join(tasks, "attempts.json"), encoding="utf-8"))
    for t in jsonl(os.path.join(tasks, "humaneval.jsonl")):
        for kind, code in (("canonical", t["prompt"] + t["canonical_solution"]),
                           ("none", t["prompt"] + "    return None\n"))[:1 if QUICK else 2]:
            reqs += seeded({"id": "example/he/%s/%s" % (t["task_id"], kind), "code": code,
                            "format": "humaneval", "tests": t["test"],
                            "entry_point": t["entry_point"]})
    for t in jsonl(os.path.join(tasks, "bigcodebench.jsonl")):
        codes = [("canonical", t["code_prompt"] + t["canonical_solution"])]
        if not QUICK:
            codes += [("attempt%d" % i, fenced(a)) for i, a in
                      enumerate(attempts.get(t["task_id"], []))]
        for kind, code in codes:
            reqs += seeded({"id": "example/bcb/%s/%s" % (t["task_id"], kind), "code": code,
                            "format": "unittest", "tests": t["test"]})
    for t in jsonl(os.path.join(tasks, "stdio.jsonl")):
        cases = [{"input": c["input"]["stdin"], "output": c["output"]["stdout"]}
                 for c in t["test"]]
        for i, sol in enumerate(t["solutions"]["solution"]):
            reqs.append({"id": "example/stdio/%s/%d" % (t["id"], i), "code": sol,
                         "format": "stdio", "tests": cases})
            if QUICK:
                break
            reqs.append({"id": "example/stdio/%s/%d/wrong" % (t["id"], i),
                         "code": "print(42)\n", "format": "stdio", "tests": cases,
                         "fail_fast": True})
    return reqs


def part_examples():
    t = Tally("examples")
    pairs, reqs = run_both(example_requests())
    for r in reqs:
        t.compare(r, *pairs[r["id"]])
    return t.done()


PARTS = {"probes": part_probes, "examples": part_examples, "hostile": part_hostile,
         "humaneval": part_humaneval, "bigcodebench": part_bigcodebench}


def main(argv):
    if not argv or any(p not in PARTS for p in argv) or not all(SOCKS.values()):
        sys.stderr.write("usage: SBX_PARITY_COLD=SOCK SBX_PARITY_WARM=SOCK parity.py %s...\n" %
                         "|".join(PARTS))
        return 2
    results = []
    for p in argv:
        t0 = time.monotonic()
        results.append(PARTS[p]())
        log("parity %s: %.1f s" % (p, time.monotonic() - t0))
    if any(r is False for r in results):
        return 1
    if all(r is None for r in results):
        return SKIP
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

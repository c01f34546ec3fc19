#!/usr/bin/env python3
"""make bench: what a sandboxd job costs against bare python3, side by side.

Sections (issue 11, section 1), each printed as a table and written to
BUILD/bench.json, with the ratios charted in BUILD/bench.svg:
  1. a trivial job, 2. an `import numpy, pandas` job: bare `/usr/bin/python3
     FILE`, bubblewrap, `sbx run` and a kept-open connection, end to end;
  3. HumanEval's 164 canonical solutions, the reference harness's way
     against sandboxd test requests, tasks/s;
  4. 40 BigCodeBench tasks, plain python3 + unittest against sandboxd;
  5. throughput with 1 and 2 workers (a daemon per count) for 1 and 3, and
     for 1 an unsandboxed fork server (fork_floor.py): what any design that
     forks a process per job can reach on this machine;
  6. the daemon's RSS; 7. one job's phases from the response's `timing`;
  8. the HTTP front against the Unix socket at 64 concurrent (bench_http);
  and what isolation "process" costs on HumanEval (issue 10).
Methods are interleaved round by round and ratios are medians of per-round
ratios. Figures only: nothing here passes or fails on time.
BENCH_QUICK=1: fewer rounds and tasks (under two minutes)."""
import sys

sys.dont_write_bytecode = True  # noqa: E402 (no __pycache__ in the tree)

import json  # noqa: E402
import os  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import bench_jobs as jobs  # noqa: E402
import bench_tasks as tasks  # noqa: E402
from bench_daemon import Conn, Daemon  # noqa: E402
from bench_http import http_section  # noqa: E402
from bench_report import fmt, med, paired_ratio, svg, table  # noqa: E402

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
QUICK = os.environ.get("BENCH_QUICK", "") not in ("", "0")
HERE = os.path.dirname(os.path.abspath(__file__))
DATASETS = os.environ.get("SBX_DATASETS",
                          os.path.join(HERE, "..", "..", "..", "shared", "datasets"))
ROUNDS = {  # quick, full
    "trivial": (10, 40), "numpy_pandas": (3, 12), "he_tasks": (40, 164),
    "he_rounds": (1, 3), "bcb_tasks": (10, 40), "bcb_rounds": (1, 2),
    "tp_jobs": (20, 80), "tp_rounds": (1, 2), "phase_tasks": (5, 20), "iso_rounds": (1, 2)}
N = {k: v[0 if QUICK else 1] for k, v in ROUNDS.items()}
if os.environ.get("BENCH_N"):
    N["trivial"] = int(os.environ["BENCH_N"])
UID_BASE = 64000 + (os.getpid() % 400) * 8
PHASES = ["accept_us", "queue_us", "setup_host_us", "fork_us", "setup_jail_us", "start_us", "run_us",
          "user_code_us", "tests_us", "exit_us", "teardown_us", "response_us", "total_us"]
LABEL = {"bare": "bare python3", "bwrap": "bubblewrap", "sbx_run": "sbx run",
         "conn": "kept-open connection"}


def single(daemon, tmp, name, code, rounds):
    """Sections 1 and 2: one program by every method."""
    job = jobs.SingleJob(BUILD, daemon, tmp, name, code)
    try:
        ms = jobs.interleaved(job, rounds)
    finally:
        job.close()
    res = {"code": code, "rounds": rounds,
           "median_ms": {m: med(v) for m, v in ms.items()},
           "ratio_vs_bare": {m: paired_ratio(v, ms["bare"]) for m, v in ms.items()},
           "ratio_vs_bwrap": ({m: paired_ratio(v, ms["bwrap"]) for m, v in ms.items()}
                              if "bwrap" in ms else None),
           "samples_ms": ms}
    rows = [[LABEL[m], fmt(res["median_ms"][m]), fmt(res["ratio_vs_bare"][m], ".2f"),
             fmt((res["ratio_vs_bwrap"] or {}).get(m), ".2f")] for m in ms]
    table("%s job (%r), %d interleaved rounds" % (name, code.strip(), rounds),
          ["method", "median ms", "x bare", "x bwrap"], rows)
    return res, job.timings


def phase_medians(timings):
    out = {}
    for p in PHASES:
        vals = [t[p] for t in timings if p in t]
        out[p] = med(vals)
    return out


def he_section(daemon, he, rounds, manager=False):
    """Section 3 (and 5's HumanEval row): the harness's way against
    pipelined test requests on one connection, round by round; with
    manager, also the published harness (a Manager per task)."""
    res = {"tasks": len(he), "rounds": rounds, "workers": daemon.workers,
           "bare": {"tasks_per_s": [], "passed": []},
           "sandboxd": {"tasks_per_s": [], "passed": [], "busy": []}}
    with Conn(daemon.sock) as c:
        sbx_reqs = tasks.he_requests(he)
        for _ in range(rounds):
            r, p = tasks.he_bare(he, daemon.workers)
            res["bare"]["tasks_per_s"].append(r)
            res["bare"]["passed"].append(p)
            if manager:
                r, p = tasks.he_bare(he, daemon.workers, manager=True)
                m = res.setdefault("bare_manager", {"tasks_per_s": [], "passed": []})
                m["tasks_per_s"].append(r)
                m["passed"].append(p)
            r, p, b = tasks.sbx_rate(c, sbx_reqs)
            res["sandboxd"]["tasks_per_s"].append(r)
            res["sandboxd"]["passed"].append(p)
            res["sandboxd"]["busy"].append(b)
    for k in ("bare", "sandboxd"):
        res[k]["median_tasks_per_s"] = med(res[k]["tasks_per_s"])
    res["ratio"] = paired_ratio(res["sandboxd"]["tasks_per_s"], res["bare"]["tasks_per_s"])
    if manager:
        m = res["bare_manager"]
        m["median_tasks_per_s"] = med(m["tasks_per_s"])
        m["ratio"] = paired_ratio(res["sandboxd"]["tasks_per_s"], m["tasks_per_s"])
    return res


def iso_section(daemon, he, rounds):
    """What isolation "process" costs (issue 10): the same tasks in the
    tests' process and with the candidate in its own, interleaved."""
    res = {"tasks": len(he), "rounds": rounds, "workers": daemon.workers}
    with Conn(daemon.sock) as c:
        for _ in range(rounds):
            for iso in ("none", "process"):
                r = res.setdefault(iso, {"tasks_per_s": [], "passed": [], "cpu_ms": []})
                rate, p, _ = tasks.sbx_rate(c, tasks.he_requests(he, isolation=iso),
                                            r["cpu_ms"])
                r["tasks_per_s"].append(rate)
                r["passed"].append(p)
    for iso in ("none", "process"):
        r = res[iso]
        r["median_tasks_per_s"] = med(r["tasks_per_s"])
        r["median_cpu_ms"] = med(r.pop("cpu_ms"))
    res["ratio"] = paired_ratio(res["process"]["tasks_per_s"], res["none"]["tasks_per_s"])
    return res


def bcb_section(daemon, picked, rounds):
    res = {"tasks": len(picked), "task_ids": [t["task_id"] for t in picked],
           "rounds": rounds, "workers": daemon.workers,
           "bare": {"tasks_per_s": [], "passed": []},
           "sandboxd": {"tasks_per_s": [], "passed": [], "busy": []}}
    with Conn(daemon.sock) as c:
        reqs = tasks.bcb_requests(picked)
        for _ in range(rounds):
            r, p = tasks.bcb_bare(picked, daemon.workers)
            res["bare"]["tasks_per_s"].append(r)
            res["bare"]["passed"].append(p)
            r, p, b = tasks.sbx_rate(c, reqs)
            res["sandboxd"]["tasks_per_s"].append(r)
            res["sandboxd"]["passed"].append(p)
            res["sandboxd"]["busy"].append(b)
    for k in ("bare", "sandboxd"):
        res[k]["median_tasks_per_s"] = med(res[k]["tasks_per_s"])
    res["ratio"] = paired_ratio(res["sandboxd"]["tasks_per_s"], res["bare"]["tasks_per_s"])
    return res


def rate_rows(name, res):
    """Each baseline with sandboxd's rate as a multiple of it."""
    rows = [[name + ", bare", fmt(res["bare"]["median_tasks_per_s"]),
             "%d/%d" % (min(res["bare"]["passed"]), res["tasks"]), fmt(res["ratio"], ".2f")]]
    if "bare_manager" in res:
        m = res["bare_manager"]
        rows.append([name + ", published harness (+ Manager per task)",
                     fmt(m["median_tasks_per_s"]), "%d/%d" % (min(m["passed"]), res["tasks"]),
                     fmt(m["ratio"], ".2f")])
    rows.append([name + ", sandboxd", fmt(res["sandboxd"]["median_tasks_per_s"]),
                 "%d/%d" % (min(res["sandboxd"]["passed"]), res["tasks"]), ""])
    return rows


def trivial_tp(daemon, tmp, rounds, n):
    path = os.path.join(tmp, "tp.py")
    with open(path, "w") as f:
        f.write("pass\n")
    names = ("bare", "fork_floor", "sandboxd")
    rate, cpu, idle = ({k: [] for k in names} for _ in range(3))
    for _ in range(rounds):
        for k, (r, c, i) in zip(names, jobs.throughput(BUILD, daemon, n, (path, "pass\n"))):
            rate[k].append(r)
            cpu[k].append(c)
            idle[k].append(i)
    bare, floor, sbx = rate["bare"], rate["fork_floor"], rate["sandboxd"]
    return {"jobs": n, "rounds": rounds, "bare_runs_per_s": med(bare),
            "fork_floor_jobs_per_s": med(floor), "sandboxd_jobs_per_s": med(sbx),
            "ratio": paired_ratio(sbx, bare), "fork_floor_ratio": paired_ratio(floor, bare),
            "ratio_vs_fork_floor": paired_ratio(sbx, floor),
            "cpu_ms_per_job": {k: med(v) for k, v in cpu.items()},
            "idle_ms_per_job": {k: med(v) for k, v in idle.items()},
            "samples": {"bare": bare, "fork_floor": floor, "sandboxd": sbx}}


def main():
    t_start = time.monotonic()
    out = {"meta": {"quick": QUICK, "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
                    "cpus": os.cpu_count(), "kernel": platform.release(),
                    "python": jobs.PY, "bwrap": shutil.which("bwrap"), "counts": N}}
    tmp = tempfile.mkdtemp(prefix="sbx-bench-files-")
    he = tasks.load(DATASETS, "HumanEval.jsonl.gz")
    bcb = tasks.load(DATASETS, "BigCodeBench.jsonl.gz")
    try:
        with Daemon(BUILD, workers=2, uid_base=UID_BASE) as d:
            rss_idle = d.rss_kb()
            out["trivial"], t_triv = single(d, tmp, "trivial", "pass\n", N["trivial"])
            out["numpy_pandas"], t_np = single(d, tmp, "numpy_pandas",
                                               "import numpy, pandas\n", N["numpy_pandas"])
            phases = {"trivial": phase_medians(t_triv), "numpy_pandas": phase_medians(t_np)}
            if he:
                with Conn(d.sock) as c:
                    got = [c.call(r).get("timing") or {}
                           for r in tasks.he_requests(he[:N["phase_tasks"]], timing=True)]
                phases["humaneval"] = phase_medians(got)
                out["humaneval"] = he_section(d, he[:N["he_tasks"]], N["he_rounds"],
                                              manager=True)
                out["humaneval_isolation"] = iso_section(d, he[:N["he_tasks"]],
                                                         N["iso_rounds"])
            if bcb:
                picked = tasks.bcb_pick(bcb, N["bcb_tasks"])
                out["bigcodebench"] = bcb_section(d, picked, N["bcb_rounds"])
            tp = {"2": {"trivial": trivial_tp(d, tmp, N["tp_rounds"], N["tp_jobs"])}}
            if he:
                tp["2"]["humaneval"] = out["humaneval"]
            time.sleep(1)
            with Conn(d.sock) as c:
                p = c.ping()
            out["rss"] = {"idle_kb": rss_idle, "after_load_kb": d.rss_kb(),
                          "warm_servers": p.get("warm_ready", 0),
                          "warm_rss_kb": p.get("warm_rss_kb", 0),
                          "per_warm_slot_kb": (p.get("warm_rss_kb", 0) // max(1, d.workers))}
        with Daemon(BUILD, workers=1, uid_base=UID_BASE) as d1:
            tp["1"] = {"trivial": trivial_tp(d1, tmp, N["tp_rounds"], N["tp_jobs"])}
            if he:
                tp["1"]["humaneval"] = he_section(d1, he[:N["he_tasks"]],
                                                  max(1, N["he_rounds"] - 1))
        out["throughput"] = tp
        out["http"] = http_section(BUILD, N["tp_jobs"] * 2, N["tp_rounds"])
        out["phases"] = {"n": {"trivial": N["trivial"], "numpy_pandas": N["numpy_pandas"],
                               "humaneval": N["phase_tasks"]}, "median_us": phases}
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    report(out)
    out["meta"]["seconds"] = round(time.monotonic() - t_start, 1)
    path = os.path.join(BUILD, "bench.json")
    with open(path, "w") as f:
        json.dump(out, f, indent=1)
    svg(chart(out), os.path.join(BUILD, "bench.svg"))
    print("\nwritten: %s, %s (%.0f s)" % (path, os.path.join(BUILD, "bench.svg"),
                                         out["meta"]["seconds"]))


def report(out):
    h = out.get("http")
    if h:
        table("the HTTP front (sandboxd-http /v1/run, %d concurrent keep-alive clients) "
              "against the Unix socket (%d in flight), %d trivial jobs, %d rounds"
              % (h["concurrency"], h["concurrency"], h["jobs"], h["rounds"]),
              ["", "requests/s (median)"],
              [["Unix socket", fmt(med(h["socket_rps"]))],
               ["HTTP front", fmt(med(h["http_rps"]))],
               ["overhead (socket / HTTP)", fmt(med(h["ratio"]), ".3f")]])
    rows = []
    if "humaneval" in out:
        rows += rate_rows("HumanEval %d" % out["humaneval"]["tasks"], out["humaneval"])
    if "bigcodebench" in out:
        rows += rate_rows("BigCodeBench %d" % out["bigcodebench"]["tasks"],
                          out["bigcodebench"])
    if rows:
        table("data sets, %d workers / processes at a time (sections 3, 4)"
              % out.get("humaneval", out.get("bigcodebench"))["workers"],
              ["", "tasks/s", "passed", "sandboxd x this"], rows)
    if "humaneval_isolation" in out:
        res = out["humaneval_isolation"]
        n = res["tasks"]
        table("HumanEval %d, isolation none against process (issue 10), %d workers, %d rounds"
              % (n, res["workers"], res["rounds"]), ["isolation", "tasks/s", "passed",
                                                     "CPU ms/task", "x none"],
              [[iso, fmt(res[iso]["median_tasks_per_s"]),
                "%d/%d" % (min(res[iso]["passed"]), n), fmt(res[iso]["median_cpu_ms"], ".0f"),
                fmt(1.0 if iso == "none" else res["ratio"], ".2f")]
               for iso in ("none", "process")])
    rows = []
    for w in ("1", "2"):
        t = out["throughput"][w]
        tt = t["trivial"]
        rows.append(["%s worker(s), trivial" % w, fmt(tt["bare_runs_per_s"]),
                     fmt(tt["fork_floor_jobs_per_s"]), fmt(tt["sandboxd_jobs_per_s"]),
                     fmt(tt["ratio"], ".2f"), fmt(tt["fork_floor_ratio"], ".2f"),
                     fmt(tt["ratio_vs_fork_floor"], ".2f")])
        if "humaneval" in t:
            h = t["humaneval"]
            rows.append(["%s worker(s), HumanEval" % w, fmt(h["bare"]["median_tasks_per_s"]),
                         "", fmt(h["sandboxd"]["median_tasks_per_s"]), fmt(h["ratio"], ".2f"),
                         "", ""])
    table("throughput, a daemon per worker count (section 5; fork floor: an unsandboxed "
          "server forking a child per job, the ceiling of any fork-per-job design)",
          ["", "bare /s", "fork floor /s", "sandboxd /s", "sandboxd x bare", "floor x bare",
           "sandboxd x floor"], rows)
    rows = []
    for w in ("1", "2"):
        tt = out["throughput"][w]["trivial"]
        c, i = tt["cpu_ms_per_job"], tt["idle_ms_per_job"]
        rows.append(["%s worker(s), trivial" % w] +
                    [fmt(c[k], ".2f") + " / " + fmt(i[k], ".2f")
                     for k in ("bare", "fork_floor", "sandboxd")])
    tt = out["throughput"]["2"]["trivial"]
    # The CPU a job may cost for 5x bare's rate with as many CPUs busy
    # as there are workers (2), or every CPU of a smaller machine.
    cpus = min(2, out["meta"]["cpus"] or 1)
    budget = cpus * 1000.0 / (5 * tt["bare_runs_per_s"]) if tt["bare_runs_per_s"] else None
    rows.append(["CPU per job at 5x bare (2 workers, %d CPUs busy)" % cpus,
                 "", "", fmt(budget, ".2f")])
    table("the machine's CPU per trivial job, busy / idle ms (section 5; /proc/stat over "
          "the run: every process, this client and the kernel's workers)",
          ["", "bare", "fork floor", "sandboxd"], rows)
    r = out["rss"]
    table("daemon memory (section 6)", ["", "RSS"],
          [["daemon, idle, after start", "%d kB" % r["idle_kb"]],
           ["daemon, idle, after the sections above", "%d kB" % r["after_load_kb"]],
           ["fork servers (%d), together" % r["warm_servers"], "%d kB" % r["warm_rss_kb"]],
           ["per warm slot (its servers; shared pages counted in each)",
            "%d kB" % r["per_warm_slot_kb"]]])
    ph = out["phases"]["median_us"]
    kinds = list(ph)
    rows = []
    for p in PHASES:
        if any(ph[k].get(p) is not None for k in kinds):
            rows.append([p[:-3]] + [fmt(ph[k].get(p) and ph[k][p] / 1000, ".2f") for k in kinds])
    setup = [fmt(None if ph[k].get("setup_host_us") is None or ph[k].get("setup_jail_us") is None
                 else (ph[k]["setup_host_us"] + ph[k]["setup_jail_us"]) / 1000, ".2f")
             for k in kinds]
    rows.append(["jail set-up (host + jail)"] + setup)
    table("one job's phases, median ms of the response's timing (section 7; "
          "- = not seen for that kind)", ["phase"] + kinds, rows)
    targets(out)


def targets(out):
    """Issue 11, section 3: each target against this run's figures."""
    rows = []

    def row(name, got, want, lower):
        ok = got is not None and (got <= want if lower else got >= want)
        rows.append([name, fmt(got, ".3f"), ("<= " if lower else ">= ") + fmt(want, ".2f"),
                     "met" if ok else "NOT met"])
    row("trivial job, sbx run x bare", out["trivial"]["ratio_vs_bare"].get("sbx_run"), 0.25, True)
    row("trivial job, kept-open connection x bare",
        out["trivial"]["ratio_vs_bare"].get("conn"), 0.25, True)
    row("numpy/pandas job, sbx run x bare",
        out["numpy_pandas"]["ratio_vs_bare"].get("sbx_run"), 0.1, True)
    if "humaneval" in out:
        row("HumanEval tasks/s x multiprocessing harness", out["humaneval"]["ratio"], 1.0, False)
    row("2-worker throughput x bare python3", out["throughput"]["2"]["trivial"]["ratio"], 5.0,
        False)
    # Not a target: how far any fork-per-job design gets on this machine.
    floor = out["throughput"]["2"]["trivial"]["fork_floor_ratio"]
    rows.append(["  (its ceiling here: an unsandboxed fork server x bare)", fmt(floor, ".3f"),
                 "", ""])
    ph = out["phases"]["median_us"].get("trivial", {})
    jail = ph.get("setup_jail_us")
    row("jail set-up on top of the fork, ms (trivial)", jail and jail / 1000, 1.0, True)
    if "humaneval" in out and out["humaneval"].get("bare_manager"):
        m = out["humaneval"]
        row("HumanEval tasks/s x the published harness (Manager per task)",
            m["sandboxd"]["median_tasks_per_s"] / m["bare_manager"]["median_tasks_per_s"],
            1.0, False)
    table("targets (issue 11, section 3), this run", ["", "measured", "target", ""], rows)


def chart(out):
    g = []
    for key, title, target in (("trivial", "trivial job, time", 0.25),
                               ("numpy_pandas", "import numpy, pandas, time", 0.1)):
        r = out[key]["ratio_vs_bare"]
        g.append((title + " (x bare; lower is better)",
                  [(LABEL[m], r.get(m), target if m == "sbx_run" else None)
                   for m in ("bwrap", "sbx_run", "conn") if m in r]))
    bars = []
    if "humaneval" in out:
        bars.append(("HumanEval, 2 workers, sandboxd", out["humaneval"]["ratio"], 1.0))
    if "bigcodebench" in out:
        bars.append(("BigCodeBench, sandboxd", out["bigcodebench"]["ratio"], None))
    for w in ("1", "2"):
        t = out["throughput"][w]
        bars.append(("%s worker(s), trivial jobs/s" % w, t["trivial"]["ratio"],
                     5.0 if w == "2" else None))
        bars.append(("%s worker(s), unsandboxed fork server" % w,
                     t["trivial"]["fork_floor_ratio"], None))
        if w == "1" and "humaneval" in t:
            bars.append(("1 worker, HumanEval tasks/s", t["humaneval"]["ratio"], None))
    g.append(("throughput (x bare; higher is better)", bars))
    return g


if __name__ == "__main__":
    main()

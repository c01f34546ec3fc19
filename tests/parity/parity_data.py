"""The warm/cold parity driver's heavy parts (make check-parity): the
hostile corpus, HumanEval and BigCodeBench. See tests/parity/parity.py."""
import ast
import gzip
import importlib.util
import json
import os
import re
import secrets
import sys

from parity_lib import (HOSTILE, SEED, STRICT, Tally, compare_tests, header, log,
                        run_both, seeded, skip, dataset_dir)

# Hostile programs whose own output varies from run to run on the cold path
# itself (found by running the corpus against one --cold daemon twice:
# SBX_PARITY_WARM set to the cold socket, SBX_PARITY_STRICT=1). NORMALIZE:
# the varying part is replaced on both sides, the rest compared byte for
# byte. WEAK: only the named response fields are compared. Each says why.
HEX_ADDR = (r"0x[0-9a-f]{6,}", "0xADDR")
HOSTILE_NORMALIZE = {
    "proc_mountinfo.py": ([(r"(?m)^\d+ \d+ \d+:\d+ ", "ID PARENT DEV "),
                           (r"(?m)^((?!.* /work ).*),uid=\d+,gid=\d+$", r"\1")],
                          "mount ids and a new tmpfs's device number are global counters; "
                          "the tmpfs a warm job mounts (all but /work, which is the slot "
                          "uid's on both paths) name the server's uid as owner "
                          "(docs/architecture.md, what differs)"),
    "sec_inherited_fds.py": ([(r"(pipe|socket):\[\d+\]", r"\1:[N]")],
                             "pipe inode numbers are a global counter"),
    "res_memory_sysv_shm.py": ([HEX_ADDR], "it prints where the segment was attached (ASLR)"),
    "res_udp_buffers.py": ([(r"\b(mem|alloc) \d+", r"\1 N")],
                           "/proc/net/sockstat's TCP alloc and mem figures count the host's sockets"),
}
ALL_BUT_OUTPUT = ("verdict", "limit_hit", "violation", "error", "exit_code", "signal")
HOSTILE_WEAK = {
    "io_output_flood.py": (ALL_BUT_OUTPUT,
                           "three writers race for the two pipes: which stream holds what, "
                           "and which is cut, when the limit fires varies"),
    "res_memory_many_procs.py": (ALL_BUT_OUTPUT,
                                 "which of its children the OOM killer picks varies"),
    "sec_init_memory.py": (ALL_BUT_OUTPUT,
                           "it prints addresses and registers of its own process (ASLR)"),
    "sys_violation_storm.py": (("verdict", "limit_hit", "error", "exit_code", "signal"),
                               "which thread's forbidden syscall the notifier sees first "
                               "is a race between threads"),
}
# Programs that spin until a time limit (a cpu_ms below wall_ms): on a
# loaded machine the wall limit may come first, on the cold path alone too.
# limit_hit "cpu" and "wall" (and the message naming it) are the same
# here; the verdict must still be timeout on both, and the rest agree.
HOSTILE_TIME_RACE = {"res_cpu_loop.py", "res_cpu_short_children.py", "res_cpu_threads.py",
                     "res_fork_bomb.py", "res_rlimit_raise.py", "sig_block_signals.py",
                     "sig_ignore_signals.py"}


# --- the hostile corpus ------------------------------------------------------

def hostile_jobs():
    """(request, program file) for every job program, as test_hostile.c
    builds them; the tokens get one value for both daemons, so the two
    requests are the same bytes. Programs with a setup header (host state
    the driver of test_hostile.c prepares) are left out."""
    marker = "sbxpar" + secrets.token_hex(6)
    subst = {"@MARKER@": marker, "@PORT@": "9", "@SOCK@": "/run/sandboxd-parity.sock",
             "@STATEDIR@": "/run/sandboxd-parity", "@DAEMONPID@": "999999",
             "@SUBMOUNT@": "/usr/local/sbx-parity-none", "@ASSUME_NO_IA32@": "0"}
    jobs, left_out = [], []
    for name in sorted(os.listdir(HOSTILE)):
        if not name.endswith(".py") or name.startswith("client_"):
            continue
        with open(os.path.join(HOSTILE, name), encoding="utf-8") as f:
            raw = f.read()
        for k, v in subst.items():
            raw = raw.replace(k, v)
        if header(raw, "setup"):
            left_out.append(name)
            continue
        rows = [None]
        if header(raw, "table"):
            with open(os.path.join(HOSTILE, header(raw, "table")[0]), encoding="utf-8") as f:
                rows = json.load(f)
        for row in rows:
            src, rid = raw, "hostile/" + name
            if row is not None:
                rid += "[%s]" % row["name"]
                src = src.replace("@ROW@", json.dumps(row, separators=(",", ":")))
                for k, v in row.items():
                    if isinstance(v, (str, int)) and not isinstance(v, bool):
                        src = src.replace("@ROW.%s@" % k, str(v))
            r = {"id": rid, "code": src}
            for key in ("limits", "files"):
                if header(src, key):
                    r[key] = json.loads(header(src, key)[0])
            if header(src, "stdin_bytes"):
                n = int(header(src, "stdin_bytes")[0])
                r["stdin"] = "".join("\n" if i % 64 == 63 else "x" for i in range(n))
            jobs.append((r, name))
    return jobs, left_out


def part_hostile():
    t = Tally("hostile")
    jobs, left_out = hostile_jobs()
    if left_out:
        log("parity hostile: left out (they need the host set-up of test_hostile.c): " +
            ", ".join(left_out))
    # persist_* programs run in name order on the same slot; run_both sends
    # them in file order, and the daemons have one worker.
    pairs, reqs = run_both([r for r, _ in jobs])
    names = dict((r["id"], n) for r, n in jobs)
    for r in reqs:
        name = names[r["id"]]
        fields, why = HOSTILE_WEAK.get(name, (None, None))
        subs = HOSTILE_NORMALIZE.get(name, ((), None))[0]
        race = name in HOSTILE_TIME_RACE
        if STRICT:
            fields, subs, race = None, (), False
        t.compare(r, *pairs[r["id"]], fields=fields, why=why, subs=subs, time_race=race)
    return t.done()


# --- data sets -----------------------------------------------------------------

def dataset(name):
    d = dataset_dir()
    path = os.path.join(d, name)
    if not os.path.exists(path):
        return None, path
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()], path


# Simple mutants: the first of these rewrites that applies to a canonical
# solution (every HumanEval task has one).
HE_MUTATIONS = ((r"<=", "<"), (r"==", "!="), (r"\+ 1\b", "+ 2"), (r"\bTrue\b", "False"),
                (r" < ", " <= "), (r" > ", " >= "), (r" - ", " + "), (r"\[0\]", "[1]"),
                (r"\breturn (?!None)", "return not "))


def he_mutants(t):
    """The canonical solution, a stub returning None and one mutant."""
    body = t["canonical_solution"]
    out = [("canonical", body), ("none", "    return None\n")]
    for i, (pat, rep) in enumerate(HE_MUTATIONS):
        if re.search(pat, body):
            out.append(("mutant%d" % i, re.sub(pat, rep, body, count=1)))
            break
    return out


def part_humaneval():
    tasks, path = dataset("HumanEval.jsonl.gz")
    if tasks is None:
        return skip("data set %s is not there" % path)
    # Per task: the canonical solution without and with a seed, the None
    # stub without, the mutant with. (Isolation "process" always runs cold:
    # test_daemon_isolation compares it with the in-process mode.)
    reqs = []
    for task in tasks:
        for kind, body in he_mutants(task):
            r = {"id": "he/%s/%s" % (task["task_id"], kind), "code": task["prompt"] + body,
                 "format": "humaneval", "tests": task["test"],
                 "entry_point": task["entry_point"]}
            if kind == "canonical":
                reqs += seeded(r)
            elif kind == "none":
                reqs.append(r)
            else:
                reqs.append(dict(r, id=r["id"] + "/seed", seed=SEED))
    t = Tally("humaneval")
    pairs, reqs = run_both(reqs)
    ok = compare_tests(t, reqs, pairs)
    return t.done() and ok


BCB_N = int(os.environ.get("SBX_PARITY_BCB", "40"))
BCB_STUBS = 10  # numpy/pandas tasks also run as a None stub (each costs an import of pandas)
BCB_LIBS = {"numpy", "pandas", "matplotlib"}
BCB_SKIP_LIBS = {"requests", "urllib", "socket", "ssl", "smtplib", "http", "ftplib",
                 "mechanize", "bs4", "wikipedia", "flask", "flask_mail", "flask_restful",
                 "flask_login", "flask_wtf", "django"}


def part_bigcodebench():
    tasks, path = dataset("BigCodeBench.jsonl.gz")
    if tasks is None:
        return skip("data set %s is not there" % path)
    # The benchmark's sample (tests/bench/bench_tasks.py, bcb_pick): the first
    # tasks that import numpy, pandas or matplotlib, need no network and whose
    # libraries are installed; then the same number of tasks in data set order
    # that need only the standard library.
    pick, std = [], []
    for task in tasks:
        libs = set(ast.literal_eval(task["libs"]))
        if libs & BCB_SKIP_LIBS:
            continue
        if not all(importlib.util.find_spec(m) is not None for m in libs):
            continue
        if libs & BCB_LIBS and len(pick) < BCB_N:
            pick.append(task)
        elif not libs - set(sys.stdlib_module_names) and len(std) < BCB_N:
            std.append(task)
    reqs = []
    for task in pick + std:
        for kind, code in (("canonical", task["code_prompt"] + task["canonical_solution"]),
                           ("stub", task["code_prompt"] + "    return None\n")):
            r = {"id": "bcb/%s/%s" % (task["task_id"], kind), "code": code,
                 "format": "unittest", "tests": task["test"],
                 "limits": {"cpu_ms": 30000, "wall_ms": 60000, "memory_mb": 1024,
                            "pids": 256}}
            if kind == "canonical":
                reqs += seeded(r)
            elif task in std or task in pick[:BCB_STUBS]:
                reqs.append(r)
    log("parity bigcodebench: %d tasks with numpy/pandas/matplotlib, %d standard-library "
        "only, %d requests per daemon" % (len(pick), len(std), len(reqs)))
    t = Tally("bigcodebench")
    pairs, reqs = run_both(reqs)
    ok = compare_tests(t, reqs, pairs)
    return t.done() and ok

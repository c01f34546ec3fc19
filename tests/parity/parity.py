#!/usr/bin/python3
"""Warm/cold parity driver (issue 11, section 2: "Results are identical to
the cold path"). Sends the same requests to two running daemons, a default
one (warm path) and a `--cold` one, and compares their responses.

    SBX_PARITY_COLD=SOCK SBX_PARITY_WARM=SOCK parity.py PART...

PART is one of: probes (tests/parity/probes/*.py), examples (examples/),
hostile (tests/hostile/*.py job programs), humaneval (164 canonical
solutions and two mutants each), bigcodebench (a sample of the data set).
tests/integration/test_parity.c and test_parity_data.c start the daemons
(both with the same --uid-base, so the uids the jobs see are the same) and
run this script; it never runs jobs on both daemons at once, because the two
share that uid range.

The comparison: each response line is parsed, then `usage`, `timing` and
`path` are removed at top level and `duration_ms` from each test (the
per-test timing); the rest is serialized again in the daemon's key order
and compared byte for byte. Where a program's own output varies from run to
run on the cold path too, the varying part is normalized or a weaker
comparison is used, named with its reason (HOSTILE_NORMALIZE, HOSTILE_WEAK,
HOSTILE_TIME_RACE). On the default daemon `path` must be "warm" for every
job without a seed and without isolation "process" (the warm path may
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
import gzip
import importlib.util
import json
import os
import re
import secrets
import socket
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBES = os.path.join(ROOT, "tests", "parity", "probes")
HOSTILE = os.path.join(ROOT, "tests", "hostile")
EXAMPLES = os.path.join(ROOT, "examples")
SEED = 1234
WINDOW = 16  # requests in flight on one connection (below the per-peer queue)
CALL_S = 180  # the longest one response may take
SKIP = 77

# Hostile programs whose own output varies from run to run on the cold path
# itself (found by running the corpus against one --cold daemon twice:
# SBX_PARITY_WARM set to the cold socket, SBX_PARITY_STRICT=1). NORMALIZE:
# the varying part is replaced on both sides, the rest compared byte for
# byte. WEAK: only the named response fields are compared. Each says why.
HEX_ADDR = (r"0x[0-9a-f]{6,}", "0xADDR")
HOSTILE_NORMALIZE = {
    "proc_mountinfo.py": ([(r"(?m)^\d+ \d+ \d+:\d+ ", "ID PARENT DEV ")],
                          "mount ids and a new tmpfs's device number are global counters"),
    "sec_inherited_fds.py": ([(r"(pipe|socket):\[\d+\]", r"\1:[N]")],
                             "pipe inode numbers are a global counter"),
    "res_memory_sysv_shm.py": ([HEX_ADDR], "it prints where the segment was attached (ASLR)"),
    "res_udp_buffers.py": ([(r"\b(mem|alloc) \d+", r"\1 N")],
                           "/proc/net/sockstat's TCP alloc and mem figures count the host's sockets"),
}
ALL_BUT_OUTPUT = ("verdict", "limit_hit", "violation", "error", "exit_code", "signal")
HOSTILE_WEAK = {
    "io_output_flood.py": (ALL_BUT_OUTPUT + ("stdout_truncated", "stderr_truncated"),
                           "three writers race for the two pipes: which stream holds what "
                           "when the limit fires varies"),
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


def log(*a):
    print(*a, flush=True)


# --- talking to a daemon ---------------------------------------------------

class Conn:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.settimeout(CALL_S)
        self.s.connect(path)
        self.f = self.s.makefile("rb")

    def pipeline(self, reqs):
        """Raw response lines by id; `busy` answers are retried."""
        out, pending, inflight = {}, list(reqs), {}
        while pending or inflight:
            while pending and len(inflight) < WINDOW:
                r = pending.pop(0)
                inflight[r["id"]] = r
                self.s.sendall(json.dumps(r).encode() + b"\n")
            line = self.f.readline()
            if not line:
                raise OSError("the daemon closed the connection")
            resp = json.loads(line)
            req = inflight.pop(resp.get("id"))
            if (resp.get("error") or {}).get("code") == "busy":
                pending.insert(0, req)
                time.sleep(0.02)
                continue
            out[req["id"]] = line.rstrip(b"\n")
        return out

    def close(self):
        self.f.close()
        self.s.close()


def run_both(reqs):
    """Every request on the cold daemon, then on the warm one (never at the
    same time: they share a uid range). Returns {id: (cold, warm)}."""
    reqs = [r for r in reqs if ONLY in r["id"]]
    res = {}
    for key in ("cold", "warm"):
        c = Conn(SOCKS[key])
        try:
            res[key] = c.pipeline(reqs)
        finally:
            c.close()
    if CONTROL:
        res["warm"] = {k: broken(v) for k, v in res["warm"].items()}
    return {r["id"]: (res["cold"][r["id"]], res["warm"][r["id"]]) for r in reqs}, reqs


def broken(line):
    """SBX_PARITY_CONTROL: the response as a broken warm path could give
    it: another verdict (or error code), and the first test's outcome
    flipped. Every comparison must then report it."""
    obj = json.loads(line)
    if "verdict" in obj:
        obj["verdict"] = "fail" if obj["verdict"] == "pass" else "pass"
    elif isinstance(obj.get("error"), dict):
        obj["error"]["code"] = "internal"
    for x in (obj.get("tests") or [])[:1]:
        x["outcome"] = "failed" if x.get("outcome") == "passed" else "passed"
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode()


# --- comparing -------------------------------------------------------------

def normalize(line, subs=(), time_race=False):
    """The response without usage, timing, path and per-test duration_ms,
    serialized again in the daemon's own key order. The message of a job
    killed by a SIGXCPU it sent itself names the CPU time it had used: that
    figure is usage too. subs: (regex, replacement) for stdout and stderr."""
    obj = json.loads(line)
    for k in ("usage", "timing", "path"):
        obj.pop(k, None)
    if isinstance(obj.get("message"), str):
        obj["message"] = re.sub(r"\(SIGXCPU\) at \d+ ms of CPU", "(SIGXCPU) at N ms of CPU",
                                obj["message"])
    if time_race and obj.get("limit_hit") in ("cpu", "wall"):
        obj["limit_hit"] = "cpu|wall"
        obj["message"] = re.sub(r"^(CPU|wall) time limit exceeded$", "CPU|wall time limit exceeded",
                                obj.get("message") or "")
    for k in ("stdout", "stderr"):
        for pat, rep in subs:
            if isinstance(obj.get(k), str):
                obj[k] = re.sub(pat, rep, obj[k])
    for t in obj.get("tests") or []:
        if isinstance(t, dict):
            t.pop("duration_ms", None)
    return json.dumps(obj, ensure_ascii=False, separators=(",", ":"))


def first_diff(a, b):
    """A short description of where two normalized responses differ."""
    oa, ob = json.loads(a), json.loads(b)
    for k in list(oa) + [k for k in ob if k not in oa]:
        va, vb = oa.get(k), ob.get(k)
        if va == vb:
            continue
        if isinstance(va, str) and isinstance(vb, str):
            i = next((i for i in range(min(len(va), len(vb))) if va[i] != vb[i]),
                     min(len(va), len(vb)))
            return "key %r from character %d: cold %s | warm %s" % (
                k, i, json.dumps(va[max(0, i - 60):i + 240]), json.dumps(vb[max(0, i - 60):i + 240]))
        return "key %r: cold %s | warm %s" % (k, json.dumps(va)[:600], json.dumps(vb)[:600])
    i = next((i for i in range(min(len(a), len(b))) if a[i] != b[i]), min(len(a), len(b)))
    return "byte %d: cold ...%s | warm ...%s" % (i, a[max(0, i - 80):i + 200],
                                                  b[max(0, i - 80):i + 200])


class Tally:
    def __init__(self, part):
        self.part, self.agree, self.differ, self.weak, self.path_bad = part, 0, 0, 0, 0
        self.warm_seen = {}

    def path(self, req, key, line):
        obj = json.loads(line)
        if "verdict" not in obj:
            if "path" in obj:
                self.bad(req, "%s: an error response with a path" % key)
            return
        got = obj.get("path")
        if key == "warm":
            self.warm_seen[got] = self.warm_seen.get(got, 0) + 1
        may_be_cold = "seed" in req or req.get("isolation") == "process"
        want = ("cold",) if key == "cold" else ("warm", "cold") if may_be_cold else ("warm",)
        if CHECK_PATHS and got not in want:
            self.path_bad += 1
            if self.path_bad > 10:
                return
            log("PATH %s %s: %s daemon answered path %r, expected %s" %
                (self.part, req["id"], key, got, " or ".join(want)))

    def bad(self, req, why):
        self.differ += 1
        log("DIFF %s %s: %s" % (self.part, req["id"], why))

    def compare(self, req, cold, warm, fields=None, why=None, subs=(), time_race=False):
        self.path(req, "cold", cold)
        self.path(req, "warm", warm)
        a, b = normalize(cold, subs, time_race), normalize(warm, subs, time_race)
        if fields is None:
            if a == b:
                self.agree += 1
            else:
                self.bad(req, first_diff(a, b))
            return
        oa, ob = json.loads(a), json.loads(b)
        pick = {f: (oa.get(f), ob.get(f)) for f in fields}
        wrong = {f: v for f, v in pick.items() if v[0] != v[1]}
        if wrong:
            self.bad(req, "%s differ (compared only these: %s): %s" %
                     (", ".join(wrong), why, json.dumps(wrong)[:1200]))
        else:
            self.weak += 1

    def done(self):
        log("parity %s: %d identical, %d compared on %s only, %d differ, %d wrong path; "
            "warm daemon's paths: %s" % (self.part, self.agree, self.weak,
                                         "named fields", self.differ, self.path_bad,
                                         json.dumps(self.warm_seen, sort_keys=True)))
        return self.differ == 0 and self.path_bad == 0


# --- requests --------------------------------------------------------------

def header(src, key):
    """Every "# key: value" among the leading comment lines."""
    out = []
    for line in src.splitlines():
        if not line.startswith("#"):
            break
        m = re.match(r"# ([a-z_]+):\s*(.*)$", line)
        if m and m.group(1) == key:
            out.append(m.group(2))
    return out


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
        reqs.append(test_req(base + "/test", src))
        reqs.append(test_req(base + "/test-seed", src, seed=SEED))
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


def seeded(r):
    """The request without and with a seed (quick: without only)."""
    return [r] if QUICK else [r, dict(r, id=r["id"] + "/seed", seed=SEED)]


def part_examples():
    t = Tally("examples")
    pairs, reqs = run_both(example_requests())
    for r in reqs:
        t.compare(r, *pairs[r["id"]])
    return t.done()


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
    d = os.environ.get("SBX_DATASETS") or os.path.join(ROOT, "..", "shared", "datasets")
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


def outcomes(line):
    o = json.loads(line)
    return (o.get("verdict"), (o.get("error") or {}).get("code"),
            [(x.get("name"), x.get("outcome")) for x in o.get("tests") or []])


def compare_tests(t, reqs, pairs):
    """Verdict and per-test outcomes must agree, and the whole response too.
    A request without a seed that differs is sent to the --cold daemon once
    more: when the cold path gives a different response again, the task's
    own result is random (it uses unseeded randomness) and it is reported as
    VARIES, not as a difference; with a seed there is no such excuse."""
    out_diff, varies, again = 0, 0, []
    for r in reqs:
        cold, warm = pairs[r["id"]]
        differs = (outcomes(cold) != outcomes(warm) or
                   normalize(cold) != normalize(warm))
        if differs and "seed" not in r and not STRICT:
            again.append(r)
    cold2 = {}
    if again:
        c = Conn(SOCKS["cold"])
        try:
            cold2 = c.pipeline(again)
        finally:
            c.close()
    for r in reqs:
        cold, warm = pairs[r["id"]]
        if r["id"] in cold2 and normalize(cold2[r["id"]]) != normalize(cold):
            varies += 1
            log("VARIES %s %s: the cold path alone gave two different responses "
                "(outcomes %s, then %s): not compared" % (t.part, r["id"], outcomes(cold),
                                                         outcomes(cold2[r["id"]])))
            t.path(r, "cold", cold)
            t.path(r, "warm", warm)
            continue
        if outcomes(cold) != outcomes(warm):
            out_diff += 1
            log("OUTCOME %s %s: cold %s | warm %s" % (t.part, r["id"], outcomes(cold),
                                                     outcomes(warm)))
        t.compare(r, cold, warm)
    log("parity %s: verdict and per-test outcomes agree on %d of %d (%d vary on the cold "
        "path alone and were not compared)" % (t.part, len(reqs) - out_diff - varies,
                                                len(reqs) - varies, varies))
    return out_diff == 0


def part_humaneval():
    tasks, path = dataset("HumanEval.jsonl.gz")
    if tasks is None:
        return skip("data set %s is not there" % path)
    reqs = []
    for task in tasks:
        for kind, body in he_mutants(task):
            reqs += seeded({"id": "he/%s/%s" % (task["task_id"], kind),
                            "code": task["prompt"] + body, "format": "humaneval",
                            "tests": task["test"], "entry_point": task["entry_point"]})
        reqs.append({"id": "he/%s/canonical/process" % task["task_id"],
                     "code": task["prompt"] + task["canonical_solution"],
                     "format": "humaneval", "tests": task["test"],
                     "entry_point": task["entry_point"], "isolation": "process"})
    t = Tally("humaneval")
    pairs, reqs = run_both(reqs)
    ok = compare_tests(t, reqs, pairs)
    return t.done() and ok


BCB_N = int(os.environ.get("SBX_PARITY_BCB", "40"))
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
            reqs += seeded({"id": "bcb/%s/%s" % (task["task_id"], kind), "code": code,
                            "format": "unittest", "tests": task["test"],
                            "limits": {"cpu_ms": 30000, "wall_ms": 60000,
                                       "memory_mb": 1024, "pids": 256}})
    log("parity bigcodebench: %d tasks with numpy/pandas/matplotlib, %d standard-library "
        "only, %d requests per daemon" % (len(pick), len(std), len(reqs)))
    t = Tally("bigcodebench")
    pairs, reqs = run_both(reqs)
    ok = compare_tests(t, reqs, pairs)
    return t.done() and ok


def skip(why):
    log("SKIP: " + why)
    return None


PARTS = {"probes": part_probes, "examples": part_examples, "hostile": part_hostile,
         "humaneval": part_humaneval, "bigcodebench": part_bigcodebench}
SOCKS = {"cold": os.environ.get("SBX_PARITY_COLD", ""),
         "warm": os.environ.get("SBX_PARITY_WARM", "")}
ONLY = os.environ.get("SBX_PARITY_ONLY", "")
# The examples part in make check: each program and each task's canonical
# solution once (the variants are in make check-parity).
CONTROL = os.environ.get("SBX_PARITY_CONTROL", "") not in ("", "0")
STRICT = os.environ.get("SBX_PARITY_STRICT", "") not in ("", "0")
QUICK = os.environ.get("SBX_PARITY_QUICK", "") not in ("", "0")
CHECK_PATHS = os.environ.get("SBX_PARITY_PATHS", "1") != "0"


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

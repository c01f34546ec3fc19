"""The warm/cold parity driver's shared parts (tests/parity/parity.py has
the whole story): the two daemons' sockets and the run's settings from the
environment, a pipelining connection, and the comparison of responses."""
import json
import os
import re
import socket
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PROBES = os.path.join(ROOT, "tests", "parity", "probes")
HOSTILE = os.path.join(ROOT, "tests", "hostile")
EXAMPLES = os.path.join(ROOT, "examples")
SEED = 1234
WINDOW = 16  # requests in flight on one connection (below the per-peer queue)
CALL_S = 180  # the longest one response may take
SKIP = 77

SOCKS = {"cold": os.environ.get("SBX_PARITY_COLD", ""),
         "warm": os.environ.get("SBX_PARITY_WARM", "")}
ONLY = os.environ.get("SBX_PARITY_ONLY", "")
CONTROL = os.environ.get("SBX_PARITY_CONTROL", "") not in ("", "0")
STRICT = os.environ.get("SBX_PARITY_STRICT", "") not in ("", "0")
# The examples part in make check: each program and each task's canonical
# solution once (the variants are in make check-parity).
QUICK = os.environ.get("SBX_PARITY_QUICK", "") not in ("", "0")
CHECK_PATHS = os.environ.get("SBX_PARITY_PATHS", "1") != "0"


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
    same time: they share a uid range). Returns {id: (cold, warm)}. The
    requests go without a seed first, then grouped by seed (each group in
    its given order): a daemon that keys its fork servers by hash seed then
    has no reason to switch at every request, so as many jobs as it can
    take run warm."""
    reqs = [r for r in reqs if ONLY in r["id"]]
    order = sorted(reqs, key=lambda r: ("seed" in r, r.get("seed", 0)))
    res, took = {}, {}
    for key in ("cold", "warm"):
        c = Conn(SOCKS[key])
        t0 = time.monotonic()
        try:
            res[key] = c.pipeline(order)
        finally:
            c.close()
        took[key] = time.monotonic() - t0
    log("parity: %d requests: cold daemon %.1f s, warm daemon %.1f s"
        % (len(order), took["cold"], took["warm"]))
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
        obj["message"] = re.sub(r"^(CPU|wall) time limit exceeded$",
                                "CPU|wall time limit exceeded", obj.get("message") or "")
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
            k = "%s%s" % (got, " (seeded)" if "seed" in req else "")
            self.warm_seen[k] = self.warm_seen.get(k, 0) + 1
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


def seeded(r):
    """The request without and with a seed (quick: without only)."""
    return [r] if QUICK else [r, dict(r, id=r["id"] + "/seed", seed=SEED)]


def skip(why):
    log("SKIP: " + why)
    return None



def dataset_dir():
    return os.environ.get("SBX_DATASETS") or os.path.join(ROOT, "..", "shared", "datasets")


def outcomes(line):
    o = json.loads(line)
    return (o.get("verdict"), (o.get("error") or {}).get("code"),
            [(x.get("name"), x.get("outcome")) for x in o.get("tests") or []])


def compare_tests(t, reqs, pairs):
    """Verdict and per-test outcomes must agree, and the whole response too.
    A request that differs is sent to the --cold daemon once more: when the
    cold path then disagrees with itself, the difference is the task's own
    (unseeded randomness, or what a seed does not fix: tempfile's names,
    the time); it is reported as VARIES and not held against the warm
    path. Outcomes are excused only when the cold path's own outcomes
    changed."""
    out_diff, varies, again = 0, 0, []
    for r in reqs:
        cold, warm = pairs[r["id"]]
        differs = (outcomes(cold) != outcomes(warm) or
                   normalize(cold, time_race=True) != normalize(warm, time_race=True))
        if differs and not STRICT and not CONTROL:
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
        c2 = cold2.get(r["id"])
        if outcomes(cold) != outcomes(warm):
            if c2 is not None and outcomes(c2) != outcomes(cold):
                log("VARIES %s %s: the cold path's own outcomes changed (%s, then %s)" %
                    (t.part, r["id"], outcomes(cold), outcomes(c2)))
            else:
                out_diff += 1
                log("OUTCOME %s %s: cold %s | warm %s" % (t.part, r["id"], outcomes(cold),
                                                         outcomes(warm)))
        if c2 is not None and (normalize(c2, time_race=True) !=
                               normalize(cold, time_race=True)):
            varies += 1
            log("VARIES %s %s: the cold path alone gave two different responses (%s): "
                "not compared byte for byte" %
                (t.part, r["id"], first_diff(normalize(cold, time_race=True),
                                             normalize(c2, time_race=True))[:300]))
            t.path(r, "cold", cold)
            t.path(r, "warm", warm)
            continue
        t.compare(r, cold, warm, time_race=True)
    log("parity %s: verdict and per-test outcomes agree on %d of %d (%d responses vary on "
        "the cold path alone and were not compared byte for byte)" %
        (t.part, len(reqs) - out_diff, len(reqs), varies))
    return out_diff == 0

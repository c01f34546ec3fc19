#!/usr/bin/env python3
"""What the runner's suites share (tests/runner/test_runner_*.py): running
the in-jail test runner (the sbx_runner package under
sandboxd/feedback/runner/) on the bundle the jail runs: $SBX_RUNNER, by
default build/runner.pyz (`make runner-tests` builds it and sets SBX_RUNNER).

The bundle is run directly, outside the jail, as the daemon would start it:
`/usr/bin/python3 -B runner.pyz`, the key on fd 4 (written, then closed), the
result pipe on fd 3, the job in a job.json named by SBX_RUNNER_JOB (run_job).
RunnerTest checks every record the runner wrote against the names of
common/records.h. main() runs a suite file, printing a "SKIP:
runner/<Class>.<test>: <reason>" line for every skip (tests/run_suite.sh
counts them), never passing a missing subject silently.

Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_<x>.py)
Real data comes from ../shared/datasets/, or $SBX_DATASETS (skipped when
absent).
"""
import ast
import gzip
import json
import os
import random
import re
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
import unittest
import zipfile
from concurrent.futures import ThreadPoolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNER_SRC = os.path.join(REPO, "sandboxd", "feedback", "runner")
RUNNER = os.path.abspath(os.environ.get("SBX_RUNNER") or
                         os.path.join(REPO, "build", "runner.pyz"))
RECORDS_H = os.path.join(REPO, "common", "records.h")
PYTHON = "/usr/bin/python3"
DATASETS = os.path.abspath(os.environ.get("SBX_DATASETS") or
                           os.path.join(REPO, "..", "shared", "datasets"))

# Puts the result pipe on fd 3 and the key pipe on fd 4, as the jail does,
# then becomes the runner.
WRAPPER = r"""
import fcntl, os, sys
r, k = int(sys.argv[1]), int(sys.argv[2])
hr = fcntl.fcntl(r, fcntl.F_DUPFD, 50)
hk = fcntl.fcntl(k, fcntl.F_DUPFD, 50)
os.dup2(hr, 3)
os.dup2(hk, 4)
for fd in {hr, hk, r, k} - {3, 4}:
    os.close(fd)
os.execv(sys.argv[3], sys.argv[3:])
"""


def read_records_h():
    """{name: value} of common/records.h, read here on its own (not with the
    bundle's generator, which BundleTests check against this)."""
    with open(RECORDS_H) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    defs = {}
    for m in re.finditer(r'^#define (REC_\w+)\s+("[^"]*"|\d+)\s*$', text, re.M):
        v = m.group(2)
        defs[m.group(1)] = v[1:-1] if v.startswith('"') else int(v)
    return defs


REC = read_records_h()
REC_TYPES = {v for k, v in REC.items() if k.startswith("REC_") and
             not k.startswith(("REC_F_", "REC_E_", "REC_OUT_")) and isinstance(v, str)} - \
    {REC["REC_NO_SYNTAX_ERRORS"]}
REC_FIELDS = {v for k, v in REC.items() if k.startswith("REC_F_")}
REC_ERROR_FIELDS = {v for k, v in REC.items() if k.startswith("REC_E_")}
REC_OUTCOMES = {v for k, v in REC.items() if k.startswith("REC_OUT_")}


def dedent(s):
    return textwrap.dedent(s).lstrip("\n")


def run_probe(code, *args, timeout=60):
    """Runs code in a fresh `python3 -B -c`, outside the jail, with the
    bundle as sys.argv[1] (for the code to put on sys.path) and args after
    it; (exit status, stdout, stderr), as text."""
    p = subprocess.run([PYTHON, "-B", "-c", code, RUNNER, *args],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=timeout)
    return p.returncode, p.stdout.decode(), p.stderr.decode()


def line_of(src, needle):
    """1-based number of the only line of src containing needle."""
    hits = [i for i, ln in enumerate(src.splitlines(), 1) if needle in ln]
    assert len(hits) == 1, hits
    return hits[0]


class Run:
    def __init__(self, key, records, stdout, stderr, rc, elapsed):
        self.key, self.records = key, records
        self.stdout, self.stderr, self.rc, self.elapsed = stdout, stderr, rc, elapsed

    def of(self, type_):
        return [r for r in self.records if r["type"] == type_]

    def one(self, type_):
        rs = self.of(type_)
        assert len(rs) == 1, (type_, self.records, self.stderr)
        return rs[0]

    @property
    def plan(self):
        return self.one("plan")["tests"]

    @property
    def results(self):
        """name → result record, planned tests only."""
        return {r["name"]: r for r in self.of("result") if not r.get("extra")}

    @property
    def done(self):
        return bool(self.records) and self.records[-1]["type"] == "done"

    def __repr__(self):
        return "records=%s\nstdout=%r\nstderr=%r" % (
            json.dumps(self.records, indent=1), self.stdout[-2000:], self.stderr[-2000:])


def run_job(job, env_fds=False, timeout=30, runner=None, flags=("-B",),
            quiet_candidate=True, work_files=None):
    """Runs the runner (the bundle, unless runner names another file) on job;
    returns every record it wrote. work_files: name -> text, written into
    the working directory first (a "main" job's main.py)."""
    runner = runner or RUNNER
    job = dict({"tests": None, "entry_point": None, "test_timeout_ms": None,
                "seed": None, "filename": "solution.py"}, **job)
    key = secrets.token_hex(16)
    tmp = tempfile.mkdtemp(prefix="sbx-runner-test-")
    work = os.path.join(tmp, "work")
    os.mkdir(work)
    for name, text in (work_files or {}).items():
        with open(os.path.join(work, name), "w") as f:
            f.write(text)
    job_path = os.path.join(tmp, "job.json")
    with open(job_path, "w") as f:
        json.dump(job, f)
    kr, kw = os.pipe()
    rr, rw = os.pipe()
    os.write(kw, key.encode())
    os.close(kw)
    env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": tmp, "TMPDIR": tmp,
           "LANG": "C.UTF-8", "SBX_RUNNER_JOB": job_path}
    if job.get("seed") is not None:
        env["PYTHONHASHSEED"] = str(job["seed"])
    peer_fds, cand = (), None
    if job.get("isolation") == "process":
        # The candidate process, as the jail's init starts it beside the
        # runner (there under another uid): the socket's other end is its
        # fd 3 (here named by SBX_CANDIDATE_FD), the runner's fd 5 (here
        # SBX_RUNNER_PEER_FD).
        import socket
        ga, ca = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        import fcntl
        # Above every number the wrapper uses.
        gfd = fcntl.fcntl(ga.fileno(), fcntl.F_DUPFD_CLOEXEC, 200)
        cfd = fcntl.fcntl(ca.fileno(), fcntl.F_DUPFD_CLOEXEC, 200)
        ga.close()
        ca.close()
        cenv = dict(env, SBX_CANDIDATE_FD=str(cfd))
        cenv.pop("SBX_RUNNER_JOB")
        cand = subprocess.Popen([PYTHON, *flags, runner, "candidate"], cwd=work,
                                env=cenv, pass_fds=(cfd,), stdin=subprocess.DEVNULL,
                                stdout=subprocess.DEVNULL if quiet_candidate else None,
                                start_new_session=True)
        os.close(cfd)
        env["SBX_RUNNER_PEER_FD"] = str(gfd)
        peer_fds = (gfd,)
    if env_fds:
        argv = [PYTHON, *flags, runner]
        env["SBX_RUNNER_KEY_FD"], env["SBX_RUNNER_RESULT_FD"] = str(kr), str(rw)
    else:
        argv = [PYTHON, "-c", WRAPPER, str(rw), str(kr), PYTHON, *flags, runner]
    t0 = time.monotonic()
    proc = subprocess.Popen(argv, cwd=work, env=env, pass_fds=(kr, rw) + peer_fds,
                            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, start_new_session=True)
    os.close(kr)
    os.close(rw)
    for fd in peer_fds:
        os.close(fd)
    chunks = []

    def reader():
        while True:
            b = os.read(rr, 65536)
            if not b:
                break
            chunks.append(b)

    th = threading.Thread(target=reader, daemon=True)
    th.start()
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.communicate()
        raise AssertionError("the runner did not finish in %d s" % timeout)
    finally:
        th.join(5)
        try:
            os.killpg(proc.pid, signal.SIGKILL)   # stray children, if any
        except OSError:
            pass
        if cand is not None:
            try:
                os.killpg(cand.pid, signal.SIGKILL)
            except OSError:
                pass
            cand.wait()
        os.close(rr)
        shutil.rmtree(tmp, ignore_errors=True)
    elapsed = time.monotonic() - t0
    data = b"".join(chunks).decode("utf-8")
    assert data == "" or data.endswith("\n"), data[-200:]
    records = [json.loads(line) for line in data.splitlines()]
    return Run(key, records, out.decode("utf-8", "replace"),
               err.decode("utf-8", "replace"), proc.returncode, elapsed)


_STDLIB = []


def runner_stdlib():
    """The standard-library directory of the runner's interpreter (PYTHON)."""
    if not _STDLIB:
        _STDLIB.append(subprocess.check_output(
            [PYTHON, "-c", "import sysconfig; print(sysconfig.get_paths()['stdlib'])"],
            text=True).strip())
    return _STDLIB[0]


class RunnerTest(unittest.TestCase):
    maxDiff = None

    def run_job(self, job, **kw):
        r = run_job(job, **kw)
        self.check_protocol(r)
        return r

    def check_protocol(self, r):
        """What the daemon relies on, for every run."""
        self.assertTrue(r.records, r)
        for rec in r.records:
            self.assertEqual(rec.get("key"), r.key, rec)
            # Every name is one of common/records.h.
            self.assertIn(rec["type"], REC_TYPES, rec)
            self.assertLessEqual(set(rec), REC_FIELDS, rec)
            for e in rec.get("errors", []):
                self.assertLessEqual(set(e), REC_ERROR_FIELDS, rec)
        self.assertEqual(r.records[0]["type"], "compile", r)
        types = [rec["type"] for rec in r.records]
        self.assertLessEqual(types.count("done"), 1, r)
        if "done" in types:
            self.assertEqual(types[-1], "done", r)
            self.assertEqual(r.rc, 0, r)
        plan = None
        started, reported = set(), set()
        for rec in r.records[1:]:
            t = rec["type"]
            if t == "plan":
                self.assertIsNone(plan, r)
                plan = rec["tests"]
                self.assertEqual(len(plan), len(set(plan)), r)
            elif t == "start":
                self.assertIsNotNone(plan, r)
                self.assertIn(rec["name"], plan, r)
                self.assertNotIn(rec["name"], started, r)
                started.add(rec["name"])
            elif t == "result":
                self.assertIsNotNone(plan, r)
                self.assertIn(rec["outcome"], REC_OUTCOMES, r)
                self.assertIsInstance(rec["duration_ms"], int)
                for k in ("message", "traceback"):
                    self.assertIsInstance(rec[k], str)
                self.assertLessEqual(len(rec["traceback"]), REC["REC_SEND_TRACEBACK_MAX"])
                self.assertLessEqual(len(rec["message"]), REC["REC_SEND_MESSAGE_MAX"])
                if rec.get("extra"):
                    self.assertNotIn(rec["name"], plan, r)
                    continue
                self.assertIn(rec["name"], started, r)
                self.assertNotIn(rec["name"], reported, r)
                reported.add(rec["name"])
                if rec["outcome"] == "passed":
                    self.assertEqual((rec["message"], rec["traceback"]), ("", ""))
            else:
                self.assertIn(t, ("note", "module_error", "harness_error", "done"), r)

    def assertCleanTraceback(self, tb):
        self.assertNotIn("runner.py", tb)      # also runner.pyz
        self.assertNotIn("sbx_runner", tb)
        self.assertNotIn("unittest/case.py", tb)
        self.assertNotIn(runner_stdlib() + "/", tb)


class _SkipReportingResult(unittest.TextTestResult):
    """Prints every skip as "SKIP: runner/<Class>.<test>: <reason>" on stderr."""

    def addSkip(self, test, reason):
        super().addSkip(test, reason)
        name = "%s.%s" % (type(test).__name__, getattr(test, "_testMethodName", str(test)))
        # On a line of its own: the progress dots share stderr.
        sys.stderr.write("\nSKIP: runner/%s: %s\n" % (name, " ".join(str(reason).split())))
        sys.stderr.flush()

def main():
    """Runs the calling file's tests (its unittest.TestCase classes)."""
    if not os.path.exists(PYTHON):
        sys.exit("%s is missing" % PYTHON)
    if not os.path.exists(RUNNER):
        sys.exit("%s is missing: build it first (make %s)" %
                 (RUNNER, os.path.relpath(RUNNER, REPO)))
    unittest.main(module="__main__",
                  testRunner=unittest.TextTestRunner(resultclass=_SkipReportingResult))

"""One job, from compile to the last result: the compile step, the format's
static plan, the module executed, then each test's life (start, outcome,
result), timed by the watchdog and seeded before it runs."""

import linecache
import os
import sys
import time
import types

from . import fmt_asserts, fmt_humaneval, fmt_unittest, frames, isolate, records, script
from .channel import flush_std
from .compile_step import compile_candidate
from .job import HarnessError
from .seeding import NumpySeeder, reseed
from .text import summarize
from .watchdog import Watchdog

MODULE_NAME = "__test__"
FORMATS = {"unittest": fmt_unittest, "humaneval": fmt_humaneval,
           "asserts": fmt_asserts}


class TestState:
    __slots__ = ("name", "extra", "t0", "outcome", "message", "traceback",
                 "subtest", "firings", "timeout_tb")

    def __init__(self, name, extra):
        self.name, self.extra = name, extra
        self.t0 = time.monotonic()
        self.outcome = None
        self.message = self.traceback = ""
        self.subtest = None
        self.firings = 0
        self.timeout_tb = None


def _detach_runner():
    """The candidate cannot import the runner: sys.path[0] becomes the work
    dir (as for a script run from there) and the runner's modules leave
    sys.modules (everything they need is imported by now)."""
    if sys.path and os.path.abspath(frames.ROOT) == \
            os.path.abspath(sys.path[0] or "."):
        sys.path[0] = os.getcwd()      # not the runner's own directory
    script.detach()


class Runner:
    def __init__(self, chan, job, peer_fd=None):
        self.chan = chan
        self.peer_fd = peer_fd   # isolation "process": the candidate's socket
        self.job = job
        self.filename = job["filename"]
        self.frames = frames.Frames(self.filename)
        self.seed = job.get("seed")
        self.watchdog = Watchdog(job.get("test_timeout_ms"), self.frames)
        self.busy = self.watchdog.busy   # `with runner.busy:` for bookkeeping
        self.cur = None          # TestState of the running test
        self.reported = set()
        self.plan = []
        # partial_mode "convcodeworld": the plan's tests its rule shows.
        self.partial = None

    def emit(self, rec):
        self.chan.emit(rec)

    def reseed(self):
        reseed(self.seed)

    def disarm(self):
        self.watchdog.disarm()

    # -- one test's life

    def begin(self, name, extra=False):
        if not extra:        # the daemon knows only the plan's names
            self.emit(records.start(name))
        st = TestState(name, extra)
        self.reseed()
        self.cur = st
        st.t0 = time.monotonic()
        self.watchdog.arm(st)
        return st

    def record_exc(self, st, outcome, exc, subtest=None):
        """First failure or error wins; it replaces passed/skipped."""
        if st.outcome in records.BAD:
            return
        st.outcome = outcome
        st.message = summarize(exc)
        st.traceback = self.frames.format_exc(exc)
        if subtest is not None:
            st.subtest = subtest

    def finish(self, st, inflight=None):
        self.chan.check_fork()
        self.disarm()
        duration = int(round((time.monotonic() - st.t0) * 1000))
        self.cur = None
        if st.firings:
            outcome = records.TIMEOUT
            message = "TestTimeout: test exceeded %d ms" % \
                self.watchdog.timeout_ms
            tb = st.timeout_tb or message
        elif st.outcome is None:
            if inflight is not None:
                self.record_exc(st, records.ERROR, inflight)
            else:
                st.outcome, st.message = records.ERROR, \
                    "RunnerError: the test finished without an outcome"
            outcome, message, tb = st.outcome, st.message, st.traceback
        else:
            outcome, message, tb = st.outcome, st.message, st.traceback
        if outcome in (records.PASSED, records.SKIPPED) and not st.firings:
            tb = ""
        if outcome == records.PASSED:
            message = ""
        subtest = st.subtest if outcome in records.BAD else None
        flush_std()
        self.emit(records.result(st.name, outcome, message, tb, duration,
                                 extra=st.extra, subtest=subtest))
        if not st.extra:
            self.reported.add(st.name)

    def report_unrun(self, outcome, message, tb=""):
        for name in self.plan:
            if name in self.reported:
                continue
            self.emit(records.start(name))
            self.emit(records.result(name, outcome, message, tb, 0))
            self.reported.add(name)

    def run_callable(self, name, fn):
        """humaneval and asserts: one exec per test."""
        st = self.begin(name)
        try:
            fn()
            st.outcome = records.PASSED
        except BaseException as e:
            self.disarm()
            with self.busy:
                self.record_exc(st, records.FAILED if isinstance(
                    e, AssertionError) else records.ERROR, e)
            del e
        finally:
            self.disarm()
        with self.busy:
            self.finish(st)

    # -- the job

    # Candidate code runs as few of the runner's frames deep as in the
    # single-file runner (the module from run(), each test from run() through
    # run_callable or the format's run()): recursion headroom is a behaviour.
    # (Running from a zip adds runpy's frames below main(): 3 levels.)

    def run(self):
        job = self.job
        fmt, code = job["format"], job["code"]
        cand, rec = compile_candidate(code, self.filename)
        self.emit(rec)
        if cand is None or fmt == "compile":
            return
        form = FORMATS[fmt]
        if job.get("isolation") == "process":
            try:
                isolate.run(self, form, code)
            except HarnessError as e:
                self.emit(records.harness_error(str(e)))
            return
        try:
            src, mod_code, tests = form.prepare(self, code, cand)
        except HarnessError as e:
            self.emit(records.harness_error(str(e)))
            return
        self.emit(records.plan(self.plan, self.partial))
        module = self.new_module(src)
        try:
            exec(mod_code, module.__dict__)
        except BaseException as e:
            self.emit(records.module_error(summarize(e),
                                           self.frames.format_exc(e)))
            return
        finally:
            flush_std()
        if hasattr(form, "run"):
            form.run(self, module, tests)
        else:
            for name, fn in form.callables(module, tests):
                self.run_callable(name, fn)

    def new_module(self, src):
        """The module the tests run in, before it runs: seeding, its source
        for tracebacks, argv, and the runner out of the candidate's reach."""
        fn = self.filename
        if self.seed is not None:
            sys.meta_path.insert(0, NumpySeeder(self.seed))
        module = types.ModuleType(MODULE_NAME)
        module.__file__ = fn
        sys.modules[MODULE_NAME] = module
        linecache.cache[fn] = (len(src), None, src.splitlines(True), fn)
        sys.argv = [fn]
        _detach_runner()
        self.reseed()
        return module

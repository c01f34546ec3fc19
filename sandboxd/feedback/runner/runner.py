"""sandboxd in-jail test runner.

Started by the daemon as `/usr/bin/python3 -B /sandboxd/runner.py`, cwd /work,
unprivileged, no network, under seccomp.  It compiles and runs one job of
untrusted Python and reports what happened as JSON lines on the result channel.

Inputs
  /sandboxd/job.json  {"format": "unittest"|"humaneval"|"asserts"|"compile",
                       "code": str, "tests": str | [str] | null,
                       "entry_point": str|null, "test_timeout_ms": int|null,
                       "seed": int|null, "filename": "solution.py"}
  fd 4                32 hex characters (the key), then EOF
  fd 3                write end of the result pipe
  (SBX_RUNNER_JOB, SBX_RUNNER_KEY_FD, SBX_RUNNER_RESULT_FD override these for
  the runner's own tests; the daemon does not set them.)

Records, one compact JSON object per line, each with "key", in this order:
  compile  {ok, errors: [{type, message, line, column, text}], feedback}
  plan     {tests: [names]}                  (before any candidate code runs)
  start    {name[, extra]}                   per test, then
  result   {name, outcome, message, traceback, duration_ms[, extra][, subtest]}
           outcome: passed | failed | error | timeout | skipped
  note     {message[, traceback]}            e.g. a failing tearDownClass
  module_error  {message, traceback}         executing the module raised
  harness_error {message}                    the job itself is unusable
  done     {}                                nothing follows; exit status 0
A test with a start and no result, or a run without done, did not finish:
the daemon counts it as an error.  Records are written with os.write on a
private CLOEXEC duplicate of fd 3, so stdout and stderr (the candidate's)
never carry them, and a candidate closing fd 3 does not silence the runner.
Candidate code runs in this process and can interfere on purpose (it can
find the key in memory); that is documented, not defended here.
"""

import ast
import fcntl
import io
import keyword
import json
import linecache
import os
import random
import signal
import sys
import sysconfig
import time
import traceback
import types
import unittest

FORMATS = ("unittest", "humaneval", "asserts", "compile")
MODULE_NAME = "__test__"
TRACEBACK_CAP = 4000
MESSAGE_CAP = 1000
REARM_S = 0.1           # after a timeout first fires, fire again every 100 ms
PRIVATE_FD_MIN = 100
JOB_MAX_BYTES = 64 << 20
NAME_MAX_BYTES = 980      # the daemon rejects plan names over 1000 bytes

_RUNNER_FILE = (lambda: None).__code__.co_filename
_random_seed = random.seed          # kept in case the candidate rebinds it


class TestTimeout(Exception):
    """Raised in the main thread when a test exceeds test_timeout_ms."""


class TestTimeoutEscalated(BaseException):
    """Raised on every later firing: `except Exception` cannot swallow it,
    so a candidate that catches TestTimeout in a retry loop still ends."""


class HarnessError(Exception):
    """The job cannot be run as given (not the candidate's fault)."""


# ---------------------------------------------------------------- channel

class Channel:
    def __init__(self, fd, key):
        self.fd = fd
        self.key = key
        self.pid = os.getpid()

    def forked(self):
        """at-fork hook: a child of os.fork() must never write records."""
        fd, self.fd = self.fd, -1
        try:
            os.close(fd)
        except OSError:
            pass

    def check_fork(self):
        if os.getpid() != self.pid or self.fd < 0:
            # A fork made by candidate code fell through into the harness:
            # it must not report (nor flush the parent's buffered output).
            os._exit(0)

    def emit(self, rec):
        self.check_fork()
        rec = _clean(rec)
        rec["key"] = self.key
        line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        data = (line + "\n").encode("utf-8", "replace")  # lone surrogates
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except OSError:
                os._exit(3)      # the daemon is gone: nothing left to tell
            view = view[n:]


def _clean(v):
    """The daemon's JSON parser rejects NUL in strings: show it as \\x00."""
    if isinstance(v, str):
        return v.replace("\0", "\\x00") if "\0" in v else v
    if isinstance(v, dict):
        return {k: _clean(x) for k, x in v.items()}
    if isinstance(v, list):
        return [_clean(x) for x in v]
    return v


def _fatal(msg):
    try:
        os.write(2, ("sandboxd runner: " + msg + "\n").encode())
    finally:
        os._exit(2)


def _env_fd(name, default):
    v = os.environ.get(name)
    if v is None:
        return default
    try:
        return int(v)
    except ValueError:
        _fatal(name + " is not a number")


def _take_key(fd):
    chunks, total = [], 0
    try:
        while total <= 4096:
            b = os.read(fd, 4096)
            if not b:
                break
            chunks.append(b)
            total += len(b)
    finally:
        try:
            os.close(fd)
        except OSError:
            pass
    return b"".join(chunks).strip().decode("ascii", "replace")


def _shadow_fd(fd):
    """Point fd at /dev/null: the candidate may still close or write it, but
    only the private duplicate reaches the daemon."""
    try:
        null = os.open("/dev/null", os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return
    if null != fd:
        os.dup2(null, fd, inheritable=False)
        os.close(null)


def _set_nondumpable():
    # Stops other processes of the same uid from opening /proc/<pid>/fd/N or
    # reading our memory.  Best effort: ctypes may be missing.
    try:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(4, 0, 0, 0, 0)            # PR_SET_DUMPABLE, 0
    except Exception:
        pass


# ---------------------------------------------------------------- text

def _safe_str(obj):
    try:
        return str(obj)
    except BaseException:
        return "<str() failed>"


def _exc_name(exc):
    t = type(exc)
    name, mod = t.__qualname__, t.__module__
    if mod not in ("__main__", "builtins"):
        name = "%s.%s" % (mod, name)
    return name


def summarize(exc):
    """One line, "ExcType: first line of the message" (or just "ExcType")."""
    name = _exc_name(exc)
    if isinstance(exc, SystemExit):
        # sys.exit(0) must read as what it is, not as an empty message.
        return "%s: %s" % (name, _safe_str(exc.code))[:MESSAGE_CAP]
    text = _safe_str(exc)
    line = next((ln.strip() for ln in text.splitlines() if ln.strip()), "")
    msg = "%s: %s" % (name, line) if line else name
    return msg if len(msg) <= MESSAGE_CAP else msg[:MESSAGE_CAP - 3] + "..."


def _short_name(text):
    """Test names travel in the plan, where the daemon takes at most
    NAME_MAX_BYTES bytes of UTF-8 (room is left for a " [n]" suffix)."""
    if len(text.encode("utf-8", "replace")) <= NAME_MAX_BYTES:
        return text
    cut = text.encode("utf-8", "replace")[:NAME_MAX_BYTES - 3]
    return cut.decode("utf-8", "ignore") + "..."


def _cap(text, limit=TRACEBACK_CAP):
    if len(text) <= limit:
        return text
    half = (limit - 5) // 2
    head, tail = text[:half], text[-half:]
    cut = head.rfind("\n")
    head = head[:cut] if cut > half // 2 else head
    cut = tail.find("\n")
    tail = tail[cut + 1:] if 0 <= cut < half // 2 else tail
    return head + "\n...\n" + tail


class Frames:
    """Decides which frames a model sees: its own code and third-party
    libraries, never the runner, unittest or the rest of the stdlib."""

    def __init__(self, filename):
        self.filename = filename
        prefixes = set()
        paths = sysconfig.get_paths()
        for k in ("stdlib", "platstdlib"):
            p = paths.get(k)
            if p:
                prefixes.add(os.path.join(os.path.normpath(p), ""))
                prefixes.add(os.path.join(os.path.realpath(p), ""))
        self.prefixes = tuple(prefixes)
        self.cache = {}

    def is_stdlib(self, fn):
        r = self.cache.get(fn)
        if r is None:
            r = fn.startswith("<frozen ") or (
                fn.startswith(self.prefixes)
                and "site-packages" not in fn and "dist-packages" not in fn)
            self.cache[fn] = r
        return r

    def keep(self, fn):
        if fn == self.filename:
            return True
        return fn != _RUNNER_FILE and not self.is_stdlib(fn)

    def _render(self, frames, exc_text):
        head = ""
        if frames:
            kept = [f for f in frames if self.keep(f.filename)] or [frames[-1]]
            head = ("Traceback (most recent call last):\n" +
                    "".join(traceback.StackSummary.from_list(kept).format()))
        return _cap((head + exc_text).rstrip("\n"))

    def format_exc(self, exc):
        try:
            frames = traceback.extract_tb(exc.__traceback__)
            text = "".join(traceback.format_exception_only(type(exc), exc))
            return self._render(frames, text)
        except BaseException:
            return summarize(exc)

    def format_stack(self, frame, exc_text):
        try:
            return self._render(traceback.extract_stack(frame), exc_text)
        except BaseException:
            return exc_text


def syntax_feedback(exc, filename):
    """compile() failure → (error entry, Python's own traceback-style text)."""
    if isinstance(exc, SyntaxError):
        text = exc.text
        if isinstance(text, str):
            text = text.rstrip("\r\n")
        entry = {"type": type(exc).__name__, "message": _safe_str(exc.msg),
                 "line": exc.lineno, "column": exc.offset, "text": text}
        if exc.filename is None:
            exc.filename = filename
    else:   # ValueError (null bytes), MemoryError, RecursionError
        entry = {"type": type(exc).__name__, "message": _safe_str(exc),
                 "line": None, "column": None, "text": None}
    try:
        fb = "".join(traceback.format_exception_only(type(exc), exc))
    except BaseException:
        fb = summarize(exc)
    return entry, fb.rstrip("\n")


_COMPILE_ERRORS = (SyntaxError, ValueError, MemoryError, RecursionError)


# ---------------------------------------------------------------- numpy seed

class _SeedingLoader:
    def __init__(self, loader, seed):
        self._loader, self._seed = loader, seed

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = self._loader          # hide the wrapper again
        if module.__spec__ is not None:
            module.__spec__.loader = self._loader
        self._loader.exec_module(module)
        module.seed(self._seed % 2**32)

    def __getattr__(self, name):
        return getattr(self._loader, name)


class NumpySeeder:
    """meta_path finder: numpy.random is seeded right after it is imported,
    whoever imports it (the candidate, the tests, pandas, ...)."""

    def __init__(self, seed):
        self.seed = seed

    def find_spec(self, fullname, path, target=None):
        if fullname != "numpy.random":
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(fullname, path, target)
            if spec is not None:
                break
        else:
            return None
        if spec.loader is not None and hasattr(spec.loader, "exec_module"):
            spec.loader = _SeedingLoader(spec.loader, self.seed)
        return spec


# ---------------------------------------------------------------- job

def load_job(path):
    try:
        with open(path, "rb") as f:
            raw = f.read(JOB_MAX_BYTES + 1)
    except OSError as e:
        raise HarnessError("cannot read job: %s" % e)
    if len(raw) > JOB_MAX_BYTES:
        raise HarnessError("job is too large")
    try:
        job = json.loads(raw)
    except ValueError as e:
        raise HarnessError("job is not valid JSON: %s" % e)
    if not isinstance(job, dict):
        raise HarnessError("job is not a JSON object")
    fmt = job.get("format")
    if fmt not in FORMATS:
        raise HarnessError("unknown format %r" % (fmt,))
    if not isinstance(job.get("code"), str):
        raise HarnessError("code must be a string")
    tests = job.get("tests")
    if fmt in ("unittest", "humaneval") and not isinstance(tests, str):
        raise HarnessError("tests must be a string for format %s" % fmt)
    if fmt == "asserts" and not (isinstance(tests, list) and
                                 all(isinstance(t, str) for t in tests)):
        raise HarnessError("tests must be a list of strings for asserts")
    ep = job.get("entry_point")
    if ep is not None and not isinstance(ep, str):
        raise HarnessError("entry_point must be a string or null")
    for k in ("test_timeout_ms", "seed"):
        v = job.get(k)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            raise HarnessError("%s must be an integer or null" % k)
    tmo = job.get("test_timeout_ms")
    if tmo is not None and tmo <= 0:
        raise HarnessError("test_timeout_ms must be positive")
    fn = job.get("filename") or "solution.py"
    if (not isinstance(fn, str) or len(fn) > 255 or
            any(c in fn for c in "\n\r\0\"")):
        raise HarnessError("bad filename")
    job["filename"] = fn
    return job


# ---------------------------------------------------------------- tests

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


class Runner:
    def __init__(self, chan, job):
        self.chan = chan
        self.job = job
        self.filename = job["filename"]
        self.frames = Frames(self.filename)
        self.seed = job.get("seed")
        tmo = job.get("test_timeout_ms")
        self.timeout_ms = tmo
        self.timeout_s = tmo / 1000.0 if tmo else None
        self.cur = None          # TestState of the running test
        self.armed = False
        self.busy = 0            # >0 while harness bookkeeping runs
        self.reported = set()
        self.plan = []

    def emit(self, rec):
        self.chan.emit(rec)

    # -- seeding and the per-test clock

    def reseed(self):
        if self.seed is None:
            return
        _random_seed(self.seed)
        npr = sys.modules.get("numpy.random")
        if npr is not None:
            try:
                npr.seed(self.seed % 2**32)
            except Exception:
                pass

    def _on_alarm(self, signum, frame):
        st = self.cur
        if st is None or not self.armed or self.busy:
            return
        # Raise only inside candidate (or third-party) code: walk out over
        # stdlib frames; reaching the runner first means harness code is
        # running, so wait for the next firing.
        f = frame
        while f is not None:
            fn = f.f_code.co_filename
            if fn == _RUNNER_FILE:
                return
            if not self.frames.is_stdlib(fn):
                break
            f = f.f_back
        if f is None:
            return
        st.firings += 1
        msg = "test exceeded %d ms" % self.timeout_ms
        if st.firings == 1:
            self.busy += 1
            try:
                st.timeout_tb = self.frames.format_stack(
                    frame, "TestTimeout: " + msg)
            finally:
                self.busy -= 1
            raise TestTimeout(msg)
        raise TestTimeoutEscalated(msg)

    def arm(self):
        if self.timeout_s is None:
            return
        signal.signal(signal.SIGALRM, self._on_alarm)
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.timeout_s, REARM_S)

    def disarm(self):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            self.armed = False

    # -- one test's life

    def begin(self, name, extra=False):
        if not extra:        # the daemon knows only the plan's names
            self.emit({"type": "start", "name": name})
        st = TestState(name, extra)
        self.reseed()
        self.cur = st
        st.t0 = time.monotonic()
        self.arm()
        return st

    def record_exc(self, st, outcome, exc, subtest=None):
        """First failure or error wins; it replaces passed/skipped."""
        if st.outcome in ("failed", "error"):
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
            outcome, message = "timeout", "TestTimeout: test exceeded %d ms" % \
                self.timeout_ms
            tb = st.timeout_tb or message
        elif st.outcome is None:
            if inflight is not None:
                self.record_exc(st, "error", inflight)
            else:
                st.outcome, st.message = "error", \
                    "RunnerError: the test finished without an outcome"
            outcome, message, tb = st.outcome, st.message, st.traceback
        else:
            outcome, message, tb = st.outcome, st.message, st.traceback
        if outcome in ("passed", "skipped") and not st.firings:
            tb = ""
        if outcome == "passed":
            message = ""
        rec = {"type": "result", "name": st.name, "outcome": outcome,
               "message": message, "traceback": tb, "duration_ms": duration}
        if st.extra:
            rec["extra"] = True
        if st.subtest is not None and outcome in ("failed", "error"):
            rec["subtest"] = st.subtest
        _flush_std()
        self.emit(rec)
        if not st.extra:
            self.reported.add(st.name)

    def report_unrun(self, outcome, message, tb=""):
        for name in self.plan:
            if name in self.reported:
                continue
            self.emit({"type": "start", "name": name})
            self.emit({"type": "result", "name": name, "outcome": outcome,
                       "message": message, "traceback": tb, "duration_ms": 0})
            self.reported.add(name)

    def run_callable(self, name, fn):
        """humaneval and asserts: one exec per test."""
        st = self.begin(name)
        try:
            fn()
            st.outcome = "passed"
        except BaseException as e:
            self.disarm()
            self.busy += 1
            try:
                self.record_exc(st, "failed" if isinstance(e, AssertionError)
                                else "error", e)
            finally:
                self.busy -= 1
            del e
        finally:
            self.disarm()
        self.busy += 1
        try:
            self.finish(st)
        finally:
            self.busy -= 1

    # -- the job

    def run(self):
        job = self.job
        fmt, code, fn = job["format"], job["code"], self.filename
        try:
            cand = compile(code, fn, "exec", dont_inherit=True)
        except _COMPILE_ERRORS as e:
            entry, fb = syntax_feedback(e, fn)
            self.emit({"type": "compile", "ok": False, "errors": [entry],
                       "feedback": fb})
            return
        self.emit({"type": "compile", "ok": True, "errors": [],
                   "feedback": "No syntax errors"})
        if fmt == "compile":
            return

        try:
            src, mod_code, tests = self.prepare(fmt, code, cand)
        except HarnessError as e:
            self.emit({"type": "harness_error", "message": str(e)})
            return
        self.emit({"type": "plan", "tests": list(self.plan)})

        if self.seed is not None:
            sys.meta_path.insert(0, NumpySeeder(self.seed))
        module = types.ModuleType(MODULE_NAME)
        module.__file__ = fn
        sys.modules[MODULE_NAME] = module
        linecache.cache[fn] = (len(src), None, src.splitlines(True), fn)
        sys.argv = [fn]
        if sys.path and os.path.dirname(os.path.abspath(_RUNNER_FILE)) == \
                os.path.abspath(sys.path[0] or "."):
            sys.path[0] = os.getcwd()      # not the runner's own directory
        self.reseed()
        try:
            exec(mod_code, module.__dict__)
        except BaseException as e:
            self.emit({"type": "module_error", "message": summarize(e),
                       "traceback": self.frames.format_exc(e)})
            return
        finally:
            _flush_std()

        if fmt == "unittest":
            self.run_unittest(module)
        elif fmt == "humaneval":
            driver = tests
            self.run_callable("check", lambda: exec(driver, module.__dict__))
        else:
            for name, code_obj in tests:
                self.run_callable(
                    name, lambda c=code_obj: exec(c, module.__dict__))

    def prepare(self, fmt, code, cand):
        """Static plan; returns (module source, module code object, extra)."""
        fn = self.filename
        if fmt == "asserts":
            names, compiled = [], []
            for i, text in enumerate(self.job["tests"], 1):
                text = text.strip()
                label = "<assert %d>" % i
                if not text:
                    raise HarnessError("assert %d is empty" % i)
                try:
                    c = compile(text, label, "exec", dont_inherit=True)
                except _COMPILE_ERRORS as e:
                    raise HarnessError("assert %d does not compile: %s" %
                                       (i, syntax_feedback(e, label)[1]))
                linecache.cache[label] = (len(text), None,
                                          (text + "\n").splitlines(True), label)
                base = _short_name(text)
                name, n = base, 1
                while name in names:
                    n += 1
                    name = "%s [%d]" % (base, n)
                names.append(name)
                compiled.append((name, c))
            self.plan = names
            return code, cand, compiled

        ep = self.job.get("entry_point")
        if fmt == "humaneval" and not (ep and ep.isidentifier() and
                                       not keyword.iskeyword(ep)):
            raise HarnessError("humaneval job needs an entry_point identifier")
        src = code + "\n" + self.job["tests"]
        try:
            mod_code = compile(src, fn, "exec", dont_inherit=True)
            tree = ast.parse(src, fn)
        except _COMPILE_ERRORS as e:
            raise HarnessError("the tests do not compile: " +
                               syntax_feedback(e, fn)[1])
        if fmt == "humaneval":
            self.plan = ["check"]
            text = "check(%s)" % ep      # the reference harness's last line
            linecache.cache["<check>"] = (len(text), None, [text + "\n"],
                                          "<check>")
            return src, mod_code, compile(text, "<check>", "exec",
                                          dont_inherit=True)
        cls = None
        for node in tree.body:
            if isinstance(node, ast.ClassDef) and node.name == "TestCases":
                cls = node                 # the last definition wins at run time
        names = []
        if cls is not None:
            for node in cls.body:
                if (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
                        and node.name.startswith("test")
                        and node.name not in names):
                    names.append(node.name)
        self.plan = names
        return src, mod_code, None

    def run_unittest(self, module):
        cls = module.__dict__.get("TestCases")
        if not (isinstance(cls, type) and issubclass(cls, unittest.TestCase)):
            self.report_unrun("error", "RunnerError: TestCases is not a "
                              "unittest.TestCase class")
            return
        try:
            tests = list(unittest.TestLoader().loadTestsFromTestCase(cls))
        except BaseException as e:
            self.report_unrun("error", summarize(e), self.frames.format_exc(e))
            return
        result = _Result(self)
        remaining = tests
        while remaining:
            try:
                unittest.TestSuite(remaining).run(result)
                break
            except BaseException as e:
                # KeyboardInterrupt from a test, or SystemExit from a class
                # or module fixture: unittest lets those through.
                self.disarm()
                self.busy += 1
                try:
                    if result.inflight is e:
                        remaining = [t for t in remaining
                                     if id(t) not in result.started]
                        result._testRunEntered = False
                        result.inflight = None
                        continue
                    tb = self.frames.format_exc(e)
                    self.emit({"type": "note", "message": "the test run "
                               "stopped: " + summarize(e), "traceback": tb})
                    self.report_unrun("error", summarize(e), tb)
                    break
                finally:
                    self.busy -= 1
        self.report_unrun("error", "RunnerError: the test did not run (no "
                          "such test method at run time)")


class _Result(unittest.TestResult):
    """Turns unittest's callbacks into records: one result per test method,
    subtests folded in, emitted at stopTest."""

    def __init__(self, runner):
        super().__init__()
        self.r = runner
        self.started = set()
        self.inflight = None

    def startTest(self, test):
        super().startTest(test)
        self.started.add(id(test))
        name = _safe_str(getattr(test, "_testMethodName", test))
        extra = name not in self.r.plan
        self.r.busy += 1
        try:
            self.r.begin(name, extra)
        finally:
            self.r.busy -= 1

    def stopTest(self, test):
        self.r.disarm()
        self.r.busy += 1
        try:
            st = self.r.cur
            if st is not None:
                # unittest re-raises KeyboardInterrupt; stopTest runs in its
                # finally clause, where the escaping exception is visible.
                inflight = sys.exc_info()[1]
                if inflight is not None:
                    self.inflight = inflight
                self.r.finish(st, inflight)
            super().stopTest(test)
        finally:
            self.r.busy -= 1

    def _exc(self, test, outcome, err, subtest=None):
        self.r.busy += 1
        try:
            st = self.r.cur
            if st is not None:
                self.r.record_exc(st, outcome, err[1], subtest)
        finally:
            self.r.busy -= 1

    def _fixture(self, test, outcome, err=None, reason=""):
        """Errors of setUpClass/setUpModule (and their tear-downs) arrive
        on an _ErrorHolder, outside any test."""
        self.r.busy += 1
        try:
            desc = _safe_str(getattr(test, "description", test))
            if desc.startswith("setUp"):
                if err is not None:
                    self.r.report_unrun(outcome, summarize(err[1]),
                                        self.r.frames.format_exc(err[1]))
                else:
                    self.r.report_unrun(outcome, reason)
            else:
                rec = {"type": "note", "message": "%s: %s" % (
                    desc, summarize(err[1]) if err else reason)}
                if err is not None:
                    rec["traceback"] = self.r.frames.format_exc(err[1])
                self.r.emit(rec)
        finally:
            self.r.busy -= 1

    def addError(self, test, err):
        if not isinstance(test, unittest.TestCase):
            self._fixture(test, "error", err)
        else:
            self._exc(test, "error", err)

    def addFailure(self, test, err):
        self._exc(test, "failed", err)

    def addSubTest(self, test, subtest, err):
        if err is None:
            return
        failed = issubclass(err[0], test.failureException)
        self.r.busy += 1
        try:
            try:
                desc = subtest._subDescription()
            except BaseException:
                desc = "(<subtest>)"
        finally:
            self.r.busy -= 1
        self._exc(test, "failed" if failed else "error", err, desc)

    def addSkip(self, test, reason):
        if not isinstance(test, unittest.TestCase):
            self._fixture(test, "skipped", reason=_safe_str(reason))
            return
        st = self.r.cur
        if st is None or test is not getattr(test, "test_case", test) or \
                st.outcome is not None:
            return       # a skipped subtest does not skip the test
        st.outcome, st.message = "skipped", _safe_str(reason)

    def addSuccess(self, test):
        st = self.r.cur
        if st is not None and st.outcome is None:
            st.outcome = "passed"

    def addExpectedFailure(self, test, err):
        self.addSuccess(test)

    def addUnexpectedSuccess(self, test):
        st = self.r.cur
        if st is not None and st.outcome not in ("failed", "error"):
            st.outcome = "failed"
            st.message = ("UnexpectedSuccess: the test is marked "
                          "@expectedFailure but passed")
            st.traceback = st.message


def _flush_std():
    """Flush what the candidate printed, so stdout is complete up to here even
    if the process dies next.  Only real files: a replacement sys.stdout is
    the candidate's object, and its flush() could do anything."""
    for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if isinstance(s, io.IOBase):
            try:
                s.flush()
            except BaseException:
                pass


def main():
    # The key first: read it and close its fd before anything else happens.
    key_fd = _env_fd("SBX_RUNNER_KEY_FD", 4)
    res_fd = _env_fd("SBX_RUNNER_RESULT_FD", 3)
    try:
        key = _take_key(key_fd)
    except OSError as e:
        _fatal("cannot read the key: %s" % e)
    if len(key) != 32 or any(c not in "0123456789abcdefABCDEF" for c in key):
        _fatal("the key is not 32 hex characters")
    try:
        out_fd = fcntl.fcntl(res_fd, fcntl.F_DUPFD_CLOEXEC, PRIVATE_FD_MIN)
    except OSError as e:
        _fatal("no result channel: %s" % e)
    _shadow_fd(res_fd)
    _set_nondumpable()
    chan = Channel(out_fd, key)
    os.register_at_fork(after_in_child=chan.forked)
    job_path = os.environ.get("SBX_RUNNER_JOB", "/sandboxd/job.json")
    for k in ("SBX_RUNNER_JOB", "SBX_RUNNER_KEY_FD", "SBX_RUNNER_RESULT_FD"):
        os.environ.pop(k, None)
    runner = None
    try:
        runner = Runner(chan, load_job(job_path))
        runner.run()
    except HarnessError as e:
        chan.emit({"type": "harness_error", "message": str(e)})
    except BaseException as e:       # a runner bug; say so, do not hide it
        if runner is not None:
            runner.disarm()
        chan.emit({"type": "harness_error", "message": "runner internal "
                   "error: " + "".join(traceback.format_exception(e))[-3000:]})
    chan.emit({"type": "done"})
    _flush_std()
    os._exit(0)


if __name__ == "__main__":
    main()

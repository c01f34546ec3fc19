"""The per-test timeout: SIGALRM after test_timeout_ms, then every 100 ms,
raising only inside candidate (or third-party) code and never while the
harness is busy with its own bookkeeping."""

import signal

from .frames import is_runner_file

REARM_S = 0.1           # after a timeout first fires, fire again every 100 ms


class TestTimeout(Exception):
    """Raised in the main thread when a test exceeds test_timeout_ms."""
    __module__ = "__main__"     # shown as plain "TestTimeout" in tracebacks


class TestTimeoutEscalated(BaseException):
    """Raised on every later firing: `except Exception` cannot swallow it,
    so a candidate that catches TestTimeout in a retry loop still ends."""
    __module__ = "__main__"


class Busy:
    """`with busy:` around harness bookkeeping: while any such block runs
    (they nest), the alarm never raises; it fires again 100 ms later."""
    __slots__ = ("depth",)

    def __init__(self):
        self.depth = 0

    def __enter__(self):
        self.depth += 1
        return self

    def __exit__(self, *exc):
        self.depth -= 1
        return False

    def __bool__(self):
        return self.depth > 0


class Watchdog:
    def __init__(self, timeout_ms, frames):
        self.timeout_ms = timeout_ms
        self.timeout_s = timeout_ms / 1000.0 if timeout_ms else None
        self.frames = frames
        self.busy = Busy()
        # isolation "process": the grader blocks waiting for the candidate
        # inside its own (runner) code; while it does, the alarm raises.
        self.peer_wait = Busy()
        self.armed = False
        self.test = None        # the TestState being timed

    def _on_alarm(self, signum, frame):
        st = self.test
        if st is None or not self.armed or self.busy:
            return
        if self.peer_wait:
            f = frame
        else:
            f = self._candidate_frame(frame)
        if f is None:
            return
        st.firings += 1
        msg = "test exceeded %d ms" % self.timeout_ms
        if st.firings == 1:
            with self.busy:
                st.timeout_tb = self.frames.format_stack(
                    frame, "TestTimeout: " + msg)
            raise TestTimeout(msg)
        raise TestTimeoutEscalated(msg)

    def _candidate_frame(self, frame):
        # Raise only inside candidate (or third-party) code: walk out over
        # stdlib frames; reaching the runner first means harness code is
        # running, so wait for the next firing.
        f = frame
        while f is not None:
            fn = f.f_code.co_filename
            if is_runner_file(fn):
                return
            if not self.frames.is_stdlib(fn):
                break
            f = f.f_back
        return f

    def arm(self, st):
        if self.timeout_s is None:
            return
        self.test = st
        signal.signal(signal.SIGALRM, self._on_alarm)
        self.armed = True
        signal.setitimer(signal.ITIMER_REAL, self.timeout_s, REARM_S)

    def disarm(self):
        if self.armed:
            signal.setitimer(signal.ITIMER_REAL, 0, 0)
            self.armed = False

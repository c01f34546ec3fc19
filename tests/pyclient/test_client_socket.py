"""The Python client over the Unix socket, against real daemons: typed
results, errors, run_many streaming, busy retry, fail-over between
endpoints, liveness, asyncio."""
import asyncio
import os
import signal
import time
import unittest

from pyclient_support import Daemon

import sandboxd
from sandboxd import Client, SandboxdError

D = None


def setUpModule():
    global D
    D = Daemon(workers=2)


def tearDownModule():
    D.cleanup()


class within:
    """Fails the test (instead of hanging it) when the block takes longer."""

    def __init__(self, seconds, what):
        self.seconds, self.what = seconds, what

    def _fire(self, *_):
        raise AssertionError("%s: still waiting after %d s" % (self.what, self.seconds))

    def __enter__(self):
        self.old = signal.signal(signal.SIGALRM, self._fire)
        signal.alarm(self.seconds)

    def __exit__(self, *exc):
        signal.alarm(0)
        signal.signal(signal.SIGALRM, self.old)


def jobs(n, tag="j"):
    return [{"id": "%s%d" % (tag, i), "code": "print(%d * 7)" % i} for i in range(n)]


def check_once(tc, results, n):
    """Exactly one result per request index, each the right one."""
    idx = sorted(r.index for r in results)
    tc.assertEqual(idx, list(range(n)), "a result missing or delivered twice")
    for r in results:
        tc.assertTrue(r.ok, "%s: %s" % (r.request_id, r.error))
        tc.assertEqual(r.stdout, "%d\n" % (r.index * 7), r.request_id)
        tc.assertEqual(r.request_id, "j%d" % r.index)


class Typed(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.c = Client(socket=D.sock)

    @classmethod
    def tearDownClass(cls):
        cls.c.close()

    def test_plain_run(self):
        r = self.c.run("import sys\nprint('hi')\nprint('e', file=sys.stderr)", timing=True)
        self.assertEqual((r.verdict, r.stdout, r.stderr, r.exit_code), ("pass", "hi\n", "e\n", 0))
        self.assertIsInstance(r.usage, sandboxd.Usage)
        # A warm job can end within a millisecond, and usage counts whole
        # milliseconds (truncated), so 0 is a true answer; it can never
        # exceed the request's own span, which timing measures in µs.
        self.assertIsInstance(r.usage.wall_ms, int)
        self.assertGreaterEqual(r.usage.wall_ms, 0)
        self.assertGreater(r.limits.cpu_ms, 0)
        self.assertIn(r.path, ("warm", "cold"))
        self.assertIsInstance(r.timing, sandboxd.Timing)
        self.assertGreater(r.timing.total_us, 0)
        self.assertLessEqual(r.usage.wall_ms * 1000, r.timing.total_us)
        self.assertEqual(r.endpoint, "unix:" + D.sock)

    def test_limit_hit_and_stdin_files(self):
        r = self.c.run("while True: pass", limits=sandboxd.Limits(cpu_ms=300))
        self.assertEqual((r.verdict, r.limit_hit), ("timeout", "cpu"))
        r = self.c.run("print(input() + open('d/x.txt').read())", stdin="a\n",
                       files={"d/x.txt": "b"})
        self.assertEqual(r.stdout, "ab\n")

    def test_test_request(self):
        code = "def add(a, b):\n    return a + b\n"
        tests = ("import unittest\nclass TestCases(unittest.TestCase):\n"
                 "    def test_ok(self):\n        self.assertEqual(add(1, 2), 3)\n"
                 "    def test_bad(self):\n        self.assertEqual(add(1, 1), 3)\n")
        r = self.c.run(code, tests=tests, format="unittest", seed=7)
        self.assertEqual(r.verdict, "fail")
        self.assertEqual((r.summary.total, r.summary.passed, r.summary.failed), (2, 1, 1))
        self.assertEqual({t.name: t.outcome for t in r.tests},
                         {"test_ok": "passed", "test_bad": "failed"})
        self.assertIn("test_bad", r.feedback.execution)
        self.assertTrue(r.compile.ok)
        self.assertEqual(r.integrity.bad_records, 0)
        r = self.c.run("def f(:\n", tests=["assert f()"], format="asserts")
        self.assertEqual(r.verdict, "compile_error")
        self.assertFalse(r.compile.ok)
        self.assertEqual(r.compile.errors[0].type, "SyntaxError")
        r = self.c.run("print(int(input()) * 2)", tests=[("2\n", "4\n"), ("3\n", "7\n")],
                       format="stdio")
        self.assertEqual([t.outcome for t in r.tests], ["passed", "failed"])

    def test_errors_raise(self):
        with self.assertRaises(SandboxdError) as cm:
            self.c.run("pass", limits={"nonsense_ms": 1})
        self.assertEqual(cm.exception.code, "bad_limits")
        with self.assertRaises(SandboxdError) as cm:
            self.c.run("pass", policy="no-such-profile")
        self.assertEqual(cm.exception.code, "unknown_policy")
        # run_many yields errors instead of raising.
        rs = list(self.c.run_many([{"code": "pass", "limits": {"x": 1}}, {"code": "pass"}]))
        self.assertEqual(sorted((r.index, r.ok) for r in rs), [(0, False), (1, True)])

    def test_run_many_streams_every_result_once(self):
        rs = list(self.c.run_many(jobs(10), concurrency=6))
        check_once(self, rs, 10)
        # The control: a lost or doubled result is caught.
        with self.assertRaises(AssertionError):
            check_once(self, rs[1:] + rs[:2], 10)

    def test_run_many_streams_as_they_finish(self):
        reqs = [{"id": "slow", "code": "import time; time.sleep(0.6)"},
                {"id": "fast", "code": "pass"}]
        first = next(iter(self.c.run_many(reqs, concurrency=2)))
        self.assertEqual(first.request_id, "fast")

    def test_ids_may_repeat(self):
        rs = list(self.c.run_many([{"id": "same", "code": "print(%d)" % i} for i in range(5)]))
        self.assertEqual(sorted(r.stdout for r in rs), ["%d\n" % i for i in range(5)])

    def test_asyncio(self):
        async def main():
            async with sandboxd.AsyncClient(socket=D.sock) as ac:
                r = await ac.run("print(5)")
                got = [x async for x in ac.run_many(jobs(8), concurrency=4)]
                return r, got
        r, got = asyncio.run(main())
        self.assertEqual(r.stdout, "5\n")
        check_once(self, got, 8)


class Offline(unittest.TestCase):
    """The request builder and the result parser alone."""

    def test_build_request(self):
        req = sandboxd.build_request("x", tests=[("1\n", "2\n")], format="stdio",
                                     limits=sandboxd.Limits(cpu_ms=5), files={"a": "t",
                                                                              "b": b"\x00\xff"},
                                     fetch_files=["out.bin"], seed=0, coverage=None)
        self.assertEqual(req, {"code": "x", "format": "stdio", "limits": {"cpu_ms": 5},
                               "tests": [{"input": "1\n", "output": "2\n"}], "seed": 0,
                               "files": {"a": "t", "b": {"base64": "AP8="}},
                               "fetch_files": ["out.bin"]})

    def test_result_keeps_unknown_keys_and_fetched_files(self):
        r = sandboxd.Result.from_dict({"id": "w", "verdict": "pass", "future_key": 1,
                                       "files": {"o": {"base64": "AP8="},
                                                 "p": {"error": "not found"}},
                                       "usage": {"cpu_ms": 3, "new": 2}}, "mine")
        self.assertEqual((r.request_id, r.verdict, r.usage.cpu_ms), ("mine", "pass", 3))
        self.assertEqual((r.files, r.file_errors), ({"o": b"\x00\xff"}, {"p": "not found"}))
        self.assertEqual(r.raw["future_key"], 1)
        e = sandboxd.Result.from_dict({"id": None, "error": {"code": "busy", "message": "m"}})
        self.assertEqual((e.ok, e.error.code, e.verdict), (False, "busy", None))


class Busy(unittest.TestCase):
    def test_busy_is_retried(self):
        d = Daemon("--queue", "1", "--max-queued-per-peer", "1", workers=1)
        try:
            c = Client(socket=d.sock, backoff_base=0.01, backoff_max=0.1)
            rs = list(c.run_many(jobs(8), concurrency=6))
            check_once(self, rs, 8)
            self.assertTrue(any(r.attempts > 1 for r in rs), "no busy answer to retry")
            # The control: without time to retry, the same load shows busy.
            c2 = Client(socket=d.sock, busy_timeout=0)
            rs = list(c2.run_many(jobs(8), concurrency=6))
            self.assertTrue(any(r.error and r.error.code == "busy" for r in rs))
            c.close()
            c2.close()
        finally:
            d.cleanup()

    def test_backoff_grows_with_jitter(self):
        c = Client(socket=D.sock, backoff_base=0.1, backoff_max=1.0)
        d1 = [c._backoff(1, None) for _ in range(50)]
        d4 = [c._backoff(4, None) for _ in range(50)]
        self.assertTrue(all(0.1 <= x <= 0.2 for x in d1))
        self.assertTrue(all(0.5 <= x <= 1.0 for x in d4))
        self.assertGreater(len(set(d4)), 10)
        self.assertGreaterEqual(c._backoff(1, 3.0), 3.0)  # Retry-After is a floor
        c.close()


class Unmatched(unittest.TestCase):
    def test_line_past_max_request_gets_its_error(self):
        """The daemon answers a line past --max-request without an id: the
        longest line waiting gets it, the others their own answers."""
        d = Daemon("--max-request", "4096", workers=1)
        try:
            with Client(socket=d.sock, max_request_bytes=1 << 20) as c:
                reqs = jobs(6)
                reqs.insert(3, {"id": "big", "code": "x = '%s'" % ("a" * 8000)})
                with within(20, "a request past --max-request"):
                    rs = list(c.run_many(reqs, concurrency=7))
            self.assertEqual(sorted(r.index for r in rs), list(range(7)))
            big = [r for r in rs if r.request_id == "big"][0]
            self.assertEqual(big.error.code, "too_large")
            self.assertTrue(all(r.ok for r in rs if r is not big))
            # Without a limit of its own, the client refuses it before sending.
            with Client(socket=d.sock, max_request_bytes=4096) as c:
                self.assertEqual(c.execute(reqs[3]).error.code, "too_large")
        finally:
            d.cleanup()


class Failover(unittest.TestCase):
    def test_kill_one_of_two_mid_run(self):
        a, b = Daemon(workers=1), Daemon(workers=1)
        try:
            c = Client(sockets=[a.sock, b.sock], retry_down=0.2, unavailable_timeout=5)
            reqs = [{"id": "j%d" % i, "code": "import time; time.sleep(0.05); print(%d * 7)" % i}
                    for i in range(16)]
            rs, killed = [], False
            for r in c.run_many(reqs, concurrency=8):
                rs.append(r)
                if len(rs) == 4 and not killed:
                    a.kill()
                    killed = True
            check_once(self, rs, 16)
            resent = [r for r in rs if r.attempts > 1]
            self.assertTrue(resent, "the kill hit no request in flight")
            self.assertTrue(all(r.endpoint == "unix:" + b.sock for r in resent))
            c.close()
        finally:
            a.cleanup()
            b.cleanup()

    def test_no_endpoint_is_unavailable(self):
        c = Client(socket="/nonexistent/sock", unavailable_timeout=0.5, retry_down=0.1)
        r = c.execute({"code": "pass", "id": "x"})
        self.assertEqual(r.error.code, "unavailable")
        self.assertIn("/nonexistent/sock", r.error.message)
        with self.assertRaises(SandboxdError):
            c.run("pass")
        c.close()

    def test_stopped_daemon_is_detected(self):
        """A daemon that stops answering (SIGSTOP) keeps its socket open: only
        the liveness ping notices, and its requests move on."""
        a, b = Daemon(workers=1), Daemon(workers=1)
        try:
            c = Client(sockets=[a.sock, b.sock], liveness=0.5, ping_timeout=1,
                       retry_down=5)
            os.kill(a.pid, signal.SIGSTOP)
            t0 = time.monotonic()
            with within(20, "requests to the stopped daemon"):
                rs = list(c.run_many(jobs(6), concurrency=4))
            os.kill(a.pid, signal.SIGCONT)
            check_once(self, rs, 6)
            self.assertTrue(all(r.endpoint == "unix:" + b.sock for r in rs))
            self.assertLess(time.monotonic() - t0, 15)
            c.close()
        finally:
            os.kill(a.pid, signal.SIGCONT)
            a.cleanup()
            b.cleanup()


if __name__ == "__main__":
    unittest.main()

"""The Python client's HTTP transport, against a real daemon behind a test
double of the sandboxd-http front (fake_front.py): the socket protocol's
JSON through POST /v1/run, keep-alive, the bearer token, 504 + Retry-After
as busy, GET /v1/ping, and fail-over between URLs."""
import os
import signal
import unittest

from pyclient_support import Daemon
from fake_front import FakeFront

from sandboxd import Client, SandboxdError

D = None


def setUpModule():
    global D
    D = Daemon(workers=2)


def tearDownModule():
    D.cleanup()


def jobs(n):
    return [{"id": "h%d" % i, "code": "print(%d + 1)" % i} for i in range(n)]


class Http(unittest.TestCase):
    def setUp(self):
        self.front = FakeFront(D.sock, token="s3cret")

    def tearDown(self):
        self.front.close()

    def test_run_typed_over_http(self):
        with Client(url=self.front.url, token="s3cret") as c:
            r = c.run("def f(x):\n    return x\n", tests="def check(c):\n    assert c(1) == 1\n",
                      format="humaneval", entry_point="f")
            self.assertEqual((r.verdict, r.summary.passed), ("pass", 1))
            self.assertEqual(r.endpoint, self.front.url)
            p = c.ping()
            self.assertEqual(len(p), 1)
            self.assertGreater(p[0].workers, 0)
            with self.assertRaises(SandboxdError) as cm:
                c.run("pass", limits={"bogus": 1})
            self.assertEqual(cm.exception.code, "bad_limits")

    def test_keep_alive(self):
        with Client(url=self.front.url, token="s3cret") as c:
            for i in range(5):
                self.assertEqual(c.run("print(%d)" % i).stdout, "%d\n" % i)
        self.assertEqual(self.front.httpd.connections, 1, "a connection per request")

    def test_token(self):
        with Client(url=self.front.url, token="wrong") as c:
            r = c.execute({"code": "pass"})
            self.assertEqual(r.error.code, "unauthorized")
        with Client(url=self.front.url) as c:
            self.assertEqual(c.execute({"code": "pass"}).error.code, "unauthorized")
        self.assertEqual(self.front.httpd.requests, 0)

    def test_504_is_retried(self):
        d = Daemon("--queue", "1", "--max-queued-per-peer", "1", workers=1)
        front = FakeFront(d.sock)
        try:
            with Client(url=front.url, backoff_base=0.01, backoff_max=0.1) as c:
                rs = list(c.run_many(jobs(10), concurrency=5))
            self.assertEqual(sorted(r.index for r in rs), list(range(10)))
            self.assertTrue(all(r.stdout == "%d\n" % (r.index + 1) for r in rs))
            self.assertGreater(front.httpd.busy, 0, "the front never answered 504")
            # The control: without time to retry, the same load shows busy.
            with Client(url=front.url, busy_timeout=0) as c:
                rs = list(c.run_many(jobs(10), concurrency=5))
            self.assertTrue(any(r.error and r.error.code == "busy" for r in rs))
        finally:
            front.close()
            d.cleanup()

    def test_failover_between_urls(self):
        dead = FakeFront(D.sock)
        dead.close()  # a port nobody listens on any more
        with Client(urls=[dead.url, self.front.url], token="s3cret", retry_down=5) as c:
            rs = list(c.run_many(jobs(8), concurrency=4))
        self.assertEqual(sorted(r.index for r in rs), list(range(8)))
        self.assertTrue(all(r.ok and r.endpoint == self.front.url for r in rs))

    def test_front_losing_the_daemon_fails_over(self):
        """502 from a front whose daemon is gone is an endpoint failure."""
        gone = Daemon(workers=1)
        bad = FakeFront(gone.sock)
        gone.cleanup()
        try:
            with Client(urls=[bad.url, self.front.url], token="s3cret", retry_down=5) as c:
                rs = list(c.run_many(jobs(6), concurrency=3))
            self.assertTrue(all(r.ok and r.endpoint == self.front.url for r in rs))
            self.assertEqual(sorted(r.index for r in rs), list(range(6)))
        finally:
            bad.close()

    def test_stalled_front_fails_over(self):
        """A front whose requests hang (its daemon stopped) still accepts
        connections: the liveness ping (GET /v1/ping) times out, the client
        breaks the connections and sends the requests to the other URL."""
        stuck = Daemon(workers=1)
        front = FakeFront(stuck.sock)
        try:
            with Client(urls=[front.url, self.front.url], token="s3cret", liveness=0.5,
                        ping_timeout=1, retry_down=5) as c:
                c.ping()
                os.kill(stuck.pid, signal.SIGSTOP)
                old = signal.signal(signal.SIGALRM, self._hung)
                signal.alarm(20)
                try:
                    rs = list(c.run_many(jobs(6), concurrency=4))
                finally:
                    signal.alarm(0)
                    signal.signal(signal.SIGALRM, old)
            self.assertEqual(sorted(r.index for r in rs), list(range(6)))
            self.assertTrue(all(r.ok and r.endpoint == self.front.url for r in rs))
        finally:
            os.kill(stuck.pid, signal.SIGCONT)
            front.close()
            stuck.cleanup()

    @staticmethod
    def _hung(*_):
        raise AssertionError("requests to the stalled front never moved on")


if __name__ == "__main__":
    unittest.main()

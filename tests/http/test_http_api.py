"""sandboxd-http against a real daemon: SandboxFusion's /run_code as its
documentation shows it and as verl reads it, the native endpoints, bearer
tokens, and hostile HTTP (bad JSON, huge and endless bodies, slow and
vanishing clients). Fast: make http, and the first part of make check-http.
Run as root."""
import sys

sys.dont_write_bytecode = True  # noqa: E402

import base64  # noqa: E402
import concurrent.futures as cf  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import socket  # noqa: E402
import time  # noqa: E402
import unittest  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from http_support import FRONT_SANITIZED, Stack, new_token, raw_http  # noqa: E402

try:
    import requests
except ImportError:  # Debian's python3-requests (make deps installs it)
    requests = None

TOKEN, TOKEN_NOTENANT = new_token(), new_token()


def need():
    if os.geteuid() != 0:
        raise unittest.SkipTest("needs root (sandboxd runs as root)")
    if requests is None:
        raise unittest.SkipTest("python3-requests is not installed")


class Api(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        need()
        cls.st = Stack(tokens=[(TOKEN, "alice"), (TOKEN_NOTENANT, None)],
                       front_args=["--max-body-mb", "1", "--timeout-s", "2"])
        cls.s = requests.Session()
        cls.s.headers["Authorization"] = "Bearer " + TOKEN

    @classmethod
    def tearDownClass(cls):
        if hasattr(cls, "st"):
            bad = cls.st.close()
            if bad:
                raise AssertionError(bad)

    def tearDown(self):
        self.assertTrue(self.st.front_alive(), "the front died: " + self.st.front_text())

    def post(self, path, body, **kw):
        data = body if isinstance(body, (bytes, str)) else json.dumps(body)
        return self.s.post(self.st.url + path, data=data, timeout=60, **kw)

    def run_code(self, **req):
        r = self.post("/run_code", req)
        self.assertEqual(r.status_code, 200, r.text)
        return r.json()

    def assert_shape(self, out):
        """The fields verl reads, with SandboxFusion's types; stdout and
        stderr never null."""
        # SandboxFusion's RunCodeResponse: these keys (plus "sandboxd")
        self.assertEqual(set(out) - {"sandboxd"}, {"status", "message", "compile_result",
                                                   "run_result", "executor_pod_name", "files"})
        self.assertEqual(set(out["run_result"]), {"status", "execution_time", "return_code",
                                                  "stdout", "stderr"})
        if out["status"] != "SandboxError":
            self.assertEqual(out["message"], "")
        else:
            self.assertEqual(out["run_result"]["status"], "Error")
        self.assertIn(out["status"], ("Success", "Failed", "SandboxError"))
        rr = out["run_result"]
        self.assertIsInstance(rr, dict)
        self.assertIn(rr["status"], ("Finished", "Error", "TimeLimitExceeded"))
        self.assertIsInstance(rr["stdout"], str)
        self.assertIsInstance(rr["stderr"], str)
        self.assertIsInstance(out["files"], dict)
        if out["status"] != "SandboxError":
            self.assertIsInstance(rr["execution_time"], float)
            self.assertIsInstance(out["sandboxd"], dict)

    # --- SandboxFusion's published examples, field by field --------------
    def test_fusion_doc_example_hello(self):
        # The API reference's /run_code example: request and response.
        out = self.run_code(code="print('hello')", language="python", compile_timeout=10,
                            run_timeout=10, memory_limit_MB=-1, stdin="", files={},
                            fetch_files=[])
        self.assert_shape(out)
        self.assertEqual(out["status"], "Success")
        self.assertIsNone(out["compile_result"])
        rr = out["run_result"]
        self.assertEqual(rr["status"], "Finished")
        self.assertEqual(rr["return_code"], 0)
        self.assertEqual(rr["stdout"], "hello\n")
        self.assertEqual(rr["stderr"], "")
        # Seconds from the native usage.wall_ms, which counts whole
        # milliseconds: a warm print('hello') can take less than one, so
        # 0.0 is a true answer (the timeout test checks a long run's).
        self.assertEqual(rr["execution_time"], out["sandboxd"]["usage"]["wall_ms"] / 1000.0)
        self.assertGreaterEqual(rr["execution_time"], 0)
        self.assertEqual(out["files"], {})
        self.assertEqual(out["sandboxd"]["verdict"], "pass")

    def test_fusion_readme_example_minimal(self):
        # The README's curl: only code and language.
        out = self.run_code(code='print("Hello, world!")', language="python")
        self.assert_shape(out)
        self.assertEqual(out["status"], "Success")
        self.assertEqual(out["run_result"]["stdout"], "Hello, world!\n")

    def test_fusion_files_and_fetch(self):
        blob = bytes(range(256))
        code = ("data = open('in.bin', 'rb').read()\n"
                "open('out.bin', 'wb').write(data[::-1])\nprint(len(data))\n")
        out = self.run_code(code=code, language="python",
                            files={"in.bin": base64.b64encode(blob).decode()},
                            fetch_files=["out.bin", "missing.txt"])
        self.assert_shape(out)
        self.assertEqual(out["status"], "Success", out)
        self.assertEqual(base64.b64decode(out["files"]["out.bin"]), blob[::-1])
        self.assertNotIn("missing.txt", out["files"])
        self.assertIn("error", out["sandboxd"]["files"]["missing.txt"])

    def test_fusion_stdin_and_defaults(self):
        out = self.run_code(code="print(input()[::-1])", stdin="abc\n", unknown_field=1,
                            another={"x": [1]})
        self.assertEqual(out["status"], "Success", out)
        self.assertEqual(out["run_result"]["stdout"], "cba\n")

    # --- the verdict mapping (docs/http.md) --------------------------------
    def test_fusion_runtime_error(self):
        out = self.run_code(code="import sys\nprint('x')\nsys.exit(3)")
        self.assert_shape(out)
        self.assertEqual(out["status"], "Failed")
        self.assertEqual(out["run_result"]["status"], "Finished")
        self.assertEqual(out["run_result"]["return_code"], 3)
        self.assertEqual(out["run_result"]["stdout"], "x\n")
        out = self.run_code(code="raise ValueError('boom')")
        self.assertEqual(out["run_result"]["return_code"], 1)
        self.assertIn("ValueError: boom", out["run_result"]["stderr"])

    def test_fusion_timeout(self):
        out = self.run_code(code="while True: pass", run_timeout=1)
        self.assert_shape(out)
        self.assertEqual(out["status"], "Failed")
        self.assertEqual(out["run_result"]["status"], "TimeLimitExceeded")
        self.assertIsNone(out["run_result"]["return_code"])
        self.assertEqual(out["sandboxd"]["verdict"], "timeout")
        self.assertLess(out["run_result"]["execution_time"], 5)
        self.assertGreaterEqual(out["run_result"]["execution_time"], 0.9)

    def test_fusion_memory_violation_output(self):
        cases = [
            ("memory_limit", dict(code="x = bytearray(400 << 20)\nprint(len(x))",
                                  memory_limit_MB=64)),
            ("violation", dict(code="import ctypes\nctypes.CDLL(None).syscall(165, 0, 0, 0, 0, 0)")),
            ("output_limit", dict(code="import sys\nwhile True: sys.stdout.write('x' * 65536)",
                                  run_timeout=10)),
        ]
        for verdict, req in cases:
            out = self.run_code(**req)
            self.assert_shape(out)
            got = out["sandboxd"]["verdict"]
            if verdict == "memory_limit" and "cgroup" not in out["sandboxd"]["enforcement"]["memory_mb"]:
                continue  # without a memory cgroup there is no OOM evidence
            self.assertEqual(got, verdict, out["sandboxd"])
            # as SandboxFusion reports a killed process: Finished, non-zero
            self.assertEqual(out["status"], "Failed")
            self.assertEqual(out["run_result"]["status"], "Finished")
            self.assertIsInstance(out["run_result"]["return_code"], int)
            self.assertNotEqual(out["run_result"]["return_code"], 0)

    def test_fusion_other_language_is_sandbox_error(self):
        out = self.run_code(code="int main(){}", language="cpp")
        self.assert_shape(out)
        self.assertEqual(out["status"], "SandboxError")
        self.assertIn("cpp", out["message"])

    def test_fusion_bad_input_is_400(self):
        for body in ('{"code": 5}', '{"language": "python"}', '[1]', '{"code":"x","files":[]}',
                     '{"code":"x","files":{"a":5}}', '{"code":"x","fetch_files":"a"}'):
            r = self.post("/run_code", body)
            self.assertEqual(r.status_code, 400, body)
            self.assertEqual(r.json()["status"], "SandboxError")
        # refused by the daemon: a path out of /work, a file that is not base64
        for req in ({"code": "1", "files": {"../x": "eA=="}}, {"code": "1", "files": {"a": "!!"}},
                    {"code": "1", "fetch_files": ["/etc/passwd"]}):
            r = self.post("/run_code", req)
            self.assertEqual(r.status_code, 400, r.text)
            self.assertEqual(r.json()["status"], "SandboxError")

    # --- native endpoints -------------------------------------------------
    def test_v1_run_native_in_and_out(self):
        r = self.post("/v1/run", {"id": "mine-1", "code": "print(6*7)", "limits": {"cpu_ms": 2000}})
        self.assertEqual(r.status_code, 200)
        o = r.json()
        self.assertEqual(o["id"], "mine-1")
        self.assertEqual(o["verdict"], "pass")
        self.assertEqual(o["stdout"], "42\n")
        self.assertEqual(o["limits"]["cpu_ms"], 2000)
        # a test request, unchanged
        r = self.post("/v1/run", {"id": "t", "code": "def f(x):\n    return x + 1\n",
                                  "format": "asserts", "tests": ["assert f(1) == 2",
                                                                 "assert f(2) == 4"]})
        o = r.json()
        self.assertEqual(o["verdict"], "fail")
        self.assertEqual(o["summary"]["passed"], 1)
        # a daemon error is the daemon's JSON, with the client's id, and a 400
        r = self.post("/v1/run", {"id": "e", "code": "1", "limits": {"cpu_ms": -1}})
        self.assertEqual(r.status_code, 400)
        self.assertEqual(r.json()["id"], "e")
        self.assertEqual(r.json()["error"]["code"], "bad_limits")
        # the socket's id rule holds, though the daemon sees the front's id
        for bad in ({"code": "1"}, {"id": 5, "code": "1"}, {"id": "", "code": "1"},
                    {"id": "x" * 257, "code": "1"}):
            r = self.post("/v1/run", bad)
            self.assertEqual(r.status_code, 400, bad)
            self.assertEqual(r.json()["error"]["code"], "bad_request")

    def test_v1_run_same_id_concurrently_never_mixed(self):
        def one(i):
            o = self.post("/v1/run", {"id": "same", "code": "print(%d)" % i}).json()
            return i, o
        with cf.ThreadPoolExecutor(8) as ex:
            for i, o in ex.map(one, range(16)):
                self.assertEqual(o["id"], "same")
                self.assertEqual(o["stdout"], "%d\n" % i)

    def test_v1_batch_array_and_lines(self):
        reqs = [{"id": "b%d" % i, "code": "print(%d)" % i} for i in range(6)]
        reqs.append({"id": "bad", "code": "1", "limits": {"nope": 1}})
        for body in (json.dumps(reqs), "\n".join(json.dumps(r) for r in reqs) + "\n"):
            r = self.s.post(self.st.url + "/v1/batch", data=body, stream=True, timeout=60)
            self.assertEqual(r.status_code, 200)
            lines = [json.loads(x) for x in r.iter_lines() if x]
            self.assertEqual(sorted(o["id"] for o in lines), sorted(q["id"] for q in reqs))
            for o in lines:
                if o["id"] == "bad":
                    self.assertEqual(o["error"]["code"], "bad_limits")
                else:
                    self.assertEqual(o["stdout"], o["id"][1:] + "\n")
        r = self.post("/v1/batch", "[1, 2]")
        self.assertEqual(r.status_code, 400)
        r = self.post("/v1/batch", "{\"id\": \"x\"\nnot json\n")
        self.assertEqual(r.status_code, 400)

    def test_ping_healthz_metrics(self):
        o = self.s.get(self.st.url + "/v1/ping", timeout=10).json()
        self.assertIn("workers", o)
        r = requests.get(self.st.url + "/healthz", timeout=10)  # no token needed
        self.assertEqual((r.status_code, r.text), (200, "ok\n"))
        self.run_code(code="print(1)")
        m = self.s.get(self.st.url + "/metrics", timeout=10).text
        for name in ("sandboxd_http_requests_total{", 'sandboxd_http_jobs_total{verdict="pass"}',
                     "sandboxd_http_busy_total", "sandboxd_http_job_seconds_bucket{le=",
                     "sandboxd_queue_depth", "sandboxd_running",
                     'sandboxd_http_phase_seconds_sum{phase="run"}'):
            self.assertIn(name, m)
        self.assertEqual(self.s.get(self.st.url + "/nope", timeout=10).status_code, 404)
        self.assertEqual(self.s.get(self.st.url + "/run_code", timeout=10).status_code, 405)

    # --- tokens -------------------------------------------------------------
    def test_token_required(self):
        for hdr in ({}, {"Authorization": "Bearer wrong"}, {"Authorization": TOKEN},
                    {"Authorization": "Bearer " + TOKEN + "x"},
                    {"Authorization": "Bearer " + TOKEN[:-1]}):
            r = requests.post(self.st.url + "/run_code", json={"code": "print(1)"}, headers=hdr,
                              timeout=10)
            self.assertEqual(r.status_code, 401, hdr)
            self.assertEqual(r.headers.get("WWW-Authenticate"), "Bearer")
            self.assertEqual(requests.get(self.st.url + "/metrics", headers=hdr,
                                          timeout=10).status_code, 401)
        r = requests.post(self.st.url + "/run_code", json={"code": "print(1)"},
                          headers={"Authorization": "Bearer " + TOKEN_NOTENANT}, timeout=30)
        self.assertEqual(r.json()["status"], "Success")

    # --- hostile HTTP ---------------------------------------------------------
    def test_bad_json_400(self):
        for path in ("/run_code", "/v1/run"):
            r = self.post(path, "{not json")
            self.assertEqual(r.status_code, 400)
            self.assertIsInstance(r.json(), dict)
            r = self.post(path, b"\xff\xfe{}")
            self.assertEqual(r.status_code, 400)

    def test_amplified_json_400(self):
        # Just under the 1 MiB body limit, 349,000 empty objects: jansson
        # builds about 60 bytes for each 3 of text, so parsing it whole took
        # the front 64 MiB (an outside attack: 1.3 GB for 16 MiB). Refused
        # once the parse has spent 8 bytes a byte plus 8 MiB.
        def hwm_kib():
            with open("/proc/%d/status" % self.st.front.pid) as f:
                return int(next(ln for ln in f if ln.startswith("VmHWM:")).split()[1])
        objs = b"{}," * 349000 + b"{}"
        bodies = {"/v1/run": b'{"id": "a", "code": "pass", "junk": [' + objs + b"]}",
                  "/run_code": b'{"code": "pass", "junk": [' + objs + b"]}",
                  "/v1/batch": b"[" + objs + b"]"}
        before = hwm_kib()
        for path, body in bodies.items():
            self.assertLess(len(body), 1 << 20)
            r = self.post(path, body)
            self.assertEqual(r.status_code, 400, path + ": " + r.text[:200])
            self.assertIn("bytes of memory a byte", r.text, path)
        grew = hwm_kib() - before
        if not FRONT_SANITIZED:
            self.assertLess(grew, 40 * 1024, "the front's peak memory grew by %d KiB" % grew)

    def test_huge_body_413(self):
        big = json.dumps({"code": "x = '" + "a" * (2 << 20) + "'"})
        r = self.post("/run_code", big)
        self.assertEqual(r.status_code, 413)
        # chunked, no Content-Length: counted as it arrives
        def gen():  # 1.5 MiB: past the limit, within twice it
            for _ in range(24):
                yield b"a" * 65536
        r = self.s.post(self.st.url + "/v1/run", data=gen(), timeout=30)
        self.assertEqual(r.status_code, 413)
        # an endless chunked body is cut off (the connection closed)
        def endless():
            while True:
                yield b"a" * 65536
        t0 = time.time()
        with self.assertRaises(requests.exceptions.ConnectionError):
            self.s.post(self.st.url + "/v1/run", data=endless(), timeout=30)
        self.assertLess(time.time() - t0, 20)
        # a Content-Length far past the limit is refused before the body
        out = raw_http(self.st.port, b"POST /v1/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                       + TOKEN.encode() + b"\r\nContent-Length: 999999999999\r\n\r\n", timeout=5)
        self.assertIn(b" 413 ", out.split(b"\r\n")[0])

    def test_slow_client_dropped(self):
        # Half a request line, then silence: dropped after --timeout-s (2 s).
        s = socket.create_connection(("127.0.0.1", self.st.port), timeout=10)
        s.sendall(b"POST /run_code HTTP/1.1\r\nHost: x\r\nContent-Le")
        t0 = time.time()
        self.assertEqual(s.recv(100), b"")
        self.assertLess(time.time() - t0, 8)
        s.close()
        # a body that stops half-way
        s = socket.create_connection(("127.0.0.1", self.st.port), timeout=10)
        s.sendall(b"POST /v1/run HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode()
                  + b"\r\nContent-Length: 100\r\n\r\n{\"id\":")
        t0 = time.time()
        self.assertEqual(s.recv(100), b"")
        self.assertLess(time.time() - t0, 8)
        s.close()
        self.assertEqual(self.run_code(code="print(1)")["status"], "Success")
        # a job longer than --timeout-s is not a silent client
        out = self.run_code(code="import time\ntime.sleep(3)\nprint('late')", run_timeout=10)
        self.assertEqual(out["run_result"]["stdout"], "late\n")

    def test_disconnects(self):
        req = json.dumps({"code": "import time\ntime.sleep(1)\nprint(1)"}).encode()
        head = (b"POST /run_code HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode()
                + b"\r\nContent-Length: %d\r\n\r\n" % len(req))
        for data in (head, head + req[:10], head + req):
            for _ in range(5):
                raw_http(self.st.port, data, read=False)
        batch = json.dumps([{"id": str(i), "code": "import time; time.sleep(1)"}
                            for i in range(10)]).encode()
        raw_http(self.st.port, b"POST /v1/batch HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                 + TOKEN.encode() + b"\r\nContent-Length: %d\r\n\r\n" % len(batch) + batch,
                 read=False)
        self.assertEqual(self.run_code(code="print(2)")["run_result"]["stdout"], "2\n")

    def test_disconnect_cancels_job(self):
        # A client that hangs up while its job runs frees the worker at once:
        # the front drops its daemon connection, which cancels the job.
        req = json.dumps({"code": "import time\ntime.sleep(8)"}).encode()
        data = (b"POST /run_code HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode()
                + b"\r\nContent-Length: %d\r\n\r\n" % len(req) + req)
        socks = []
        for _ in range(2):
            s = socket.create_connection(("127.0.0.1", self.st.port), timeout=10)
            s.sendall(data)
            socks.append(s)
        ping = lambda: self.s.get(self.st.url + "/v1/ping", timeout=10).json()  # noqa: E731
        deadline = time.time() + 5
        while ping()["running"] < 2 and time.time() < deadline:
            time.sleep(0.1)
        self.assertEqual(ping()["running"], 2, "the jobs never started")
        for s in socks:
            s.close()
        t0 = time.time()
        while ping()["running"] and time.time() - t0 < 5:
            time.sleep(0.1)
        self.assertEqual(ping()["running"], 0)
        self.assertLess(time.time() - t0, 3, "the abandoned jobs kept their workers")

    def test_batch_disconnect_cancels_jobs(self):
        # The same for a batch: it waits in slices and asks whether its
        # client is still there; its jobs ran to their end before (an
        # outside attack: 28 s of workers after the hang-up).
        batch = json.dumps([{"id": str(i), "code": "import time\ntime.sleep(8)"}
                            for i in range(2)]).encode()
        s = socket.create_connection(("127.0.0.1", self.st.port), timeout=10)
        s.sendall(b"POST /v1/batch HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer "
                  + TOKEN.encode() + b"\r\nContent-Length: %d\r\n\r\n" % len(batch) + batch)
        ping = lambda: self.s.get(self.st.url + "/v1/ping", timeout=10).json()  # noqa: E731
        deadline = time.time() + 5
        while ping()["running"] < 2 and time.time() < deadline:
            time.sleep(0.1)
        self.assertEqual(ping()["running"], 2, "the batch's jobs never started")
        s.close()
        t0 = time.time()
        while ping()["running"] and time.time() - t0 < 6:
            time.sleep(0.1)
        self.assertEqual(ping()["running"], 0)
        self.assertLess(time.time() - t0, 3, "the abandoned batch kept its workers")

    def test_keep_alive(self):
        one = json.dumps({"code": "print(1)"}).encode()
        req = (b"POST /run_code HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer " + TOKEN.encode()
               + b"\r\nContent-Length: %d\r\n\r\n" % len(one) + one)
        s = socket.create_connection(("127.0.0.1", self.st.port), timeout=30)
        buf = b""
        for i in range(3):
            s.sendall(req)
            while b"\r\n\r\n" not in buf:
                chunk = s.recv(65536)
                self.assertTrue(chunk, "closed after %d responses" % i)
                buf += chunk
            head, _, rest = buf.partition(b"\r\n\r\n")
            self.assertTrue(head.startswith(b"HTTP/1.1 200"), head)
            n = int([h.split(b":")[1] for h in head.split(b"\r\n")
                     if h.lower().startswith(b"content-length:")][0])
            while len(rest) < n:
                chunk = s.recv(65536)
                self.assertTrue(chunk)
                rest += chunk
            self.assertEqual(json.loads(rest[:n])["status"], "Success")
            buf = rest[n:]
        s.close()



class JobTimeout(unittest.TestCase):
    def test_job_timeout_flag(self):
        # The front waits --job-timeout-s for an answer (default 1300 s, past
        # the stock profile's longest wall_ms; it was a fixed 700 s), then
        # answers 502 and the job is cancelled.
        need()
        st = Stack(tokens=[(TOKEN, "alice")], front_args=["--job-timeout-s", "2"])
        try:
            t0 = time.time()
            r = requests.post(st.url + "/v1/run", timeout=30,
                              data=json.dumps({"id": "s", "code": "import time\ntime.sleep(6)"}),
                              headers={"Authorization": "Bearer " + TOKEN})
            self.assertEqual(r.status_code, 502, r.text)
            self.assertIn("timed out", r.text)
            self.assertLess(time.time() - t0, 5)
        finally:
            self.assertEqual(st.close(), "")


class PerIp(unittest.TestCase):
    def trickle_then_ask(self, front_args):
        """8 connections from 127.0.0.2 that send half a request's headers
        and no token, then a whole request from 127.0.0.1: its status, or
        None when it got no answer."""
        need()
        st = Stack(tokens=[(TOKEN, "alice")], front_args=["--max-connections", "8"] + front_args)
        held = []
        try:
            for _ in range(8):
                s = socket.socket()
                s.bind(("127.0.0.2", 0))
                s.connect(("127.0.0.1", st.port))
                s.sendall(b"POST /v1/run HTTP/1.1\r\nHost: x\r\n")
                held.append(s)
            time.sleep(0.5)
            try:
                r = requests.post(st.url + "/v1/run", timeout=5,
                                  data=json.dumps({"id": "a", "code": "print(1)"}),
                                  headers={"Authorization": "Bearer " + TOKEN})
                return r.status_code
            except requests.exceptions.RequestException:
                return None
        finally:
            for s in held:
                s.close()
            self.assertEqual(st.close(), "")

    def test_one_address_cannot_hold_every_connection(self):
        # Connections that trickle headers, with no token, held every one of
        # the front's (an outside attack: 260 against 256). Control first:
        # without --max-conn-per-ip, 8 of them shut a client out of 8
        # connections; with it, that address gets 4 and the client is served.
        self.assertIsNone(self.trickle_then_ask([]), "the control: the front was not full")
        self.assertEqual(self.trickle_then_ask(["--max-conn-per-ip", "4"]), 200)


class FakeDaemon(unittest.TestCase):
    """The front against a daemon that answers what the real one does only
    under load (a busy without an id is for a line it dropped unread:
    buffers full), or that is gone."""

    def stack(self, answer):
        need()
        st = Stack(tokens=[(TOKEN, "alice")], fake=answer)
        self.addCleanup(lambda: self.assertEqual(st.close(), ""))
        return st

    def batch(self, st, n):
        body = "\n".join(json.dumps({"id": "r%d" % i, "code": "c%d" % i}) for i in range(n))
        r = requests.post(st.url + "/v1/batch", data=body, timeout=30,
                          headers={"Authorization": "Bearer " + TOKEN})
        self.assertEqual(r.status_code, 200, r.text)
        return [json.loads(ln) for ln in r.text.splitlines()]

    @staticmethod
    def busy_first(seen):
        """Answers the first request busy without an id, the rest pass;
        seen gets every request's id."""
        def answer(req):
            seen.append(req["id"])
            if len(seen) == 1:
                return [{"error": {"code": "busy", "message": "buffers full"}}]
            return [{"id": req["id"], "verdict": "pass"}]
        return answer

    def test_busy_without_id_is_no_line(self):
        # Three in flight, the first answered busy without an id: which
        # request it was is unknown. It was a line of its own, and one
        # request was never answered (an outside attack); now every request
        # gets exactly one line, none of them busy.
        lines = self.batch(self.stack(self.busy_first([])), 3)
        self.assertEqual(sorted(str(ln.get("id")) for ln in lines), ["r0", "r1", "r2"], lines)
        for ln in lines:
            self.assertNotEqual((ln.get("error") or {}).get("code"), "busy", lines)

    def test_busy_without_id_one_in_flight_is_retried(self):
        # With one request in flight, such a busy can only be its own.
        seen = []
        lines = self.batch(self.stack(self.busy_first(seen)), 1)
        self.assertEqual(lines, [{"id": "r0", "verdict": "pass"}])
        self.assertEqual(len(seen), 2)

    def test_502_names_no_host_path(self):
        # The daemon gone: the client learns that, not where its socket is
        # on this host (an outside attack read the path in a 502).
        st = self.stack(lambda req: [])
        st.fake.close()
        os.unlink(st.sock)
        auth = {"Authorization": "Bearer " + TOKEN}
        for path, body in (("/v1/run", {"id": "a", "code": "pass"}),
                           ("/run_code", {"code": "pass"}), ("/v1/batch", [{"code": "pass"}])):
            r = requests.post(st.url + path, data=json.dumps(body), headers=auth, timeout=30)
            self.assertEqual(r.status_code, 502, path)
            self.assertIn("cannot reach sandboxd", r.text, path)
            self.assertNotIn(st.dir, r.text, path)
        r = requests.get(st.url + "/v1/ping", headers=auth, timeout=30)
        self.assertEqual(r.status_code, 502)
        self.assertNotIn(st.dir, r.text)
        self.assertIn(st.sock, st.front_text(), "the front's log names the socket")


if __name__ == "__main__":
    unittest.main(verbosity=1)

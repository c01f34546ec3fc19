"""sandboxd-http under load (make check-http): a verl-style client (Python
requests, one POST /run_code per test case, 64 at once, retrying on 504 as
verl's sandbox_fusion utility does) through HumanEval's canonical solutions
and mutants, and floods that draw busy replies without losing or mixing a
result. Run as root."""
import sys

sys.dont_write_bytecode = True  # noqa: E402

import concurrent.futures as cf  # noqa: E402
import json  # noqa: E402
import os  # noqa: E402
import resource  # noqa: E402
import subprocess  # noqa: E402
import threading  # noqa: E402
import time  # noqa: E402
import unittest  # noqa: E402

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import http_support  # noqa: E402
from http_support import Stack, humaneval, new_token  # noqa: E402

try:
    import requests
except ImportError:
    requests = None


def need():
    if os.geteuid() != 0:
        raise unittest.SkipTest("needs root (sandboxd runs as root)")
    if requests is None:
        raise unittest.SkipTest("python3-requests is not installed")


class Verl:
    """verl's call_sandbox_api, with more patience: the same payload and
    headers, a retry on 504 only, a linear back-off."""

    def __init__(self, url, retries=60):
        self.url = url + "/run_code"
        self.retries = retries
        self.lock = threading.Lock()
        self.busy = 0

    def call(self, code, stdin="", timeout=10):
        payload = json.dumps({"compile_timeout": timeout, "run_timeout": timeout, "code": code,
                              "stdin": stdin, "language": "python", "files": {},
                              "fetch_files": []})
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        for attempt in range(self.retries):
            r = requests.post(self.url, headers=headers, data=payload, timeout=timeout * 2 + 10)
            if r.status_code == 504:
                with self.lock:
                    self.busy += 1
                time.sleep(min(0.05 * (attempt + 1), 1.0))
                continue
            r.raise_for_status()
            return r.json()
        raise AssertionError("still busy after %d attempts" % self.retries)


def he_program(task, body):
    return "%s%s\n%s\ncheck(%s)\n" % (task["prompt"], body, task["test"], task["entry_point"])


class HumanEvalVerl(unittest.TestCase):
    def test_canonical_and_mutants_64_concurrent(self):
        need()
        tasks = humaneval()
        if not tasks:
            raise unittest.SkipTest("HumanEval.jsonl.gz not found (SBX_DATASETS)")
        st = Stack()
        try:
            v = Verl(st.url)
            jobs = []
            for t in tasks:
                jobs.append((t["task_id"], "canonical", he_program(t, t["canonical_solution"])))
                jobs.append((t["task_id"], "stub", he_program(t, "    return None\n")))
                jobs.append((t["task_id"], "raise", he_program(t, "    raise ValueError('m')\n")))
            t0 = time.time()
            with cf.ThreadPoolExecutor(64) as ex:
                outs = list(ex.map(lambda j: (j, v.call(j[2])), jobs))
            took = time.time() - t0
            bad = []
            for (tid, kind, _), out in outs:
                rr = out["run_result"]
                self.assertIsInstance(rr["stdout"], str)
                self.assertIsInstance(rr["stderr"], str)
                if kind == "canonical":
                    ok = out["status"] == "Success" and rr["return_code"] == 0
                elif kind == "raise":
                    ok = (out["status"] == "Failed" and rr["status"] == "Finished"
                          and rr["return_code"] == 1 and "ValueError: m" in rr["stderr"])
                else:
                    ok = out["status"] == "Failed" and rr["return_code"] != 0
                if not ok:
                    bad.append("%s %s: %s %s" % (tid, kind, out["status"],
                                                 out.get("sandboxd", {}).get("message")))
            print("INFO: %d requests in %.1f s (%.1f/s), %d busy retries"
                  % (len(jobs), took, len(jobs) / took, v.busy), file=sys.stderr)
            self.assertEqual(bad, [])
        finally:
            rest = st.close()
        self.assertEqual(rest, "")


class Flood(unittest.TestCase):
    def test_flood_504_no_lost_or_mixed(self):
        need()
        st = Stack(daemon_args=["--queue", "4", "--max-queued-per-peer", "4"])
        try:
            n = 200
            got = {}
            busy = [0]
            lock = threading.Lock()

            def one(i):
                body = {"code": "print('marker-%d')" % i}
                for attempt in range(400):
                    r = requests.post(st.url + "/run_code", json=body, timeout=60)
                    if r.status_code == 504:
                        self.assertEqual(r.headers.get("Retry-After"), "1")
                        with lock:
                            busy[0] += 1
                        time.sleep(0.1 * (1 + attempt % 5))
                        continue
                    self.assertEqual(r.status_code, 200, r.text)
                    return i, r.json()
                return i, None

            with cf.ThreadPoolExecutor(128) as ex:
                for i, out in ex.map(one, range(n)):
                    self.assertIsNotNone(out, "request %d never got through" % i)
                    self.assertNotIn(i, got)
                    got[i] = out["run_result"]["stdout"]
            self.assertEqual(len(got), n)
            for i, out in got.items():
                self.assertEqual(out, "marker-%d\n" % i)
            self.assertGreater(busy[0], 0, "the flood drew no busy reply")
            print("INFO: flood of %d: %d busy replies (504)" % (n, busy[0]), file=sys.stderr)
            m = requests.get(st.url + "/metrics", timeout=10).text
            line = [x for x in m.splitlines() if x.startswith("sandboxd_http_busy_total ")][0]
            self.assertEqual(int(line.split()[1]), busy[0])
            # The same flood as one batch: the front retries busy itself.
            reqs = [{"id": "f%d" % i, "code": "print('m%d')" % i} for i in range(n)]
            r = requests.post(st.url + "/v1/batch", data=json.dumps(reqs), stream=True,
                              timeout=300)
            lines = [json.loads(x) for x in r.iter_lines() if x]
            self.assertEqual(sorted(o["id"] for o in lines), sorted(q["id"] for q in reqs))
            for o in lines:
                self.assertEqual(o.get("stdout"), "m%s\n" % o["id"][1:], o)
        finally:
            rest = st.close()
        self.assertEqual(rest, "")


class Busy(unittest.TestCase):
    """The daemon's busy is HTTP 504 with Retry-After, which verl retries."""

    def test_busy_is_504_retry_after(self):
        need()
        st = Stack(daemon_args=["--queue", "2", "--max-queued-per-peer", "1"], workers=1)
        try:
            def one(i):
                return requests.post(st.url + "/run_code", timeout=60,
                                     json={"code": "import time; time.sleep(0.5); print(%d)" % i})
            with cf.ThreadPoolExecutor(8) as ex:
                rs = list(ex.map(one, range(8)))
            codes = [r.status_code for r in rs]
            self.assertIn(504, codes)
            self.assertIn(200, codes)
            for i, r in enumerate(rs):
                if r.status_code == 504:
                    self.assertEqual(r.headers.get("Retry-After"), "1")
                    self.assertEqual(r.json()["status"], "SandboxError")
                    self.assertEqual(r.json()["sandboxd"]["error"]["code"], "busy")
                else:
                    self.assertEqual(r.json()["run_result"]["stdout"], "%d\n" % i)
            r = requests.post(st.url + "/v1/run", json={"id": "x", "code": "print(1)"}, timeout=60)
            self.assertEqual(r.status_code, 200)
        finally:
            bad = st.close()
        self.assertEqual(bad, "")


    def test_tenant_per_token_not_per_client(self):
        # Fairness counts per tenant (--max-queued-per-peer 1 here): the
        # token's tenant is what the daemon sees, never one the client names
        # (the front is --trust-uid, so the daemon would believe it).
        need()
        alice, bob = new_token(), new_token()
        st = Stack(daemon_args=["--max-queued-per-peer", "1"], workers=1,
                   tokens=[(alice, "alice"), (bob, "bob")])
        try:
            def post(tok, body):
                return requests.post(st.url + "/v1/run", json=body, timeout=60,
                                     headers={"Authorization": "Bearer " + tok})
            slow = "import time; time.sleep(2)"
            with cf.ThreadPoolExecutor(4) as ex:
                running = ex.submit(post, alice, {"id": "r", "code": slow})
                time.sleep(0.7)
                queued = ex.submit(post, alice, {"id": "q", "code": slow})
                time.sleep(0.5)
                as_bob = post(alice, {"id": "x", "code": "print(1)", "tenant": "bob"})
                self.assertEqual(as_bob.status_code, 504, as_bob.text)
                self.assertEqual(as_bob.json()["error"]["code"], "busy")
                real_bob = ex.submit(post, bob, {"id": "b", "code": "print(1)"})
                self.assertEqual(real_bob.result().status_code, 200)
                self.assertEqual(real_bob.result().json()["verdict"], "pass")
                self.assertEqual(running.result().json()["verdict"], "pass")
                self.assertEqual(queued.result().json()["verdict"], "pass")
        finally:
            bad = st.close()
        self.assertEqual(bad, "")


class BusyForever(unittest.TestCase):
    def test_batch_busy_for_long_keeps_the_front(self):
        # A client keeps its own queue full, so its batch is answered busy
        # round after round. Each round took a stack frame (a recursion) and
        # the front crashed, every client's connection with it (an outside
        # attack: 38 min on an 8 MiB stack). A fake daemon answers busy for
        # 20 s to a front started with a 64 KiB stack, where the recursion
        # crashed after 15 s; the batch must end with its answer.
        need()
        token = new_token()
        until = time.time() + 20

        def answer(req):
            if time.time() < until:
                return [{"id": req["id"], "error": {"code": "busy", "message": "full"}}]
            return [{"id": req["id"], "verdict": "pass"}]
        popen = subprocess.Popen

        def small_stack(args, **kw):
            if args[0] == http_support.FRONT:
                kw["preexec_fn"] = lambda: resource.setrlimit(resource.RLIMIT_STACK,
                                                              (64 << 10, 64 << 10))
            return popen(args, **kw)
        http_support.subprocess.Popen = small_stack
        try:
            st = Stack(tokens=[(token, "alice")], fake=answer)
        finally:
            http_support.subprocess.Popen = popen
        try:
            r = requests.post(st.url + "/v1/batch", data=json.dumps({"id": "a", "code": "x"}),
                              headers={"Authorization": "Bearer " + token}, timeout=60)
            self.assertEqual(r.status_code, 200)
            self.assertEqual([json.loads(ln) for ln in r.text.splitlines()],
                             [{"id": "a", "verdict": "pass"}])
            self.assertTrue(st.front_alive())
        finally:
            self.assertEqual(st.close(), "")


if __name__ == "__main__":
    unittest.main(verbosity=1)

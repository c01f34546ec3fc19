#!/usr/bin/env python3
"""examples/kubernetes/, offline.

- The manifests against the Kubernetes schemas (npm's kubernetes-models,
  compiled from the published OpenAPI spec; installed into build/k8s-schemas
  by `make k8s-schemas`, so no network is needed here) with unknown fields
  refused, and broken variants of them (a misspelt field, a wrong type, a
  value outside an enum, a missing required field, an unknown apiVersion,
  bad YAML) rejected, each for its own reason.
- What the schemas cannot say: the DaemonSet's daemon is privileged and its
  front is not, they share the socket through an emptyDir, the Service
  reaches the front, every container has requests and limits, the indexed
  Job's shard count is its completions, and the merge Job agrees.
- The eval Job's path to the daemon: `sbx eval` through sbx-http-bridge.py
  to an HTTP front's POST /v1/run gives the scores of a run on the socket,
  with the real sandboxd-http when it is built here (else that test skips),
  and with a stand-in front that follows the same contract and answers
  every third job `busy` (504), which sbx retries; a wrong token or a front
  that does not answer stops the run, never a quiet empty result.
"""
import glob
import http.server
import json
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import threading
import time
import unittest

from cluster_support import BUILD, REPO, main, run, tail

K8S_DIR = os.path.join(REPO, "examples", "kubernetes")
VALIDATE = os.path.join(REPO, "tests", "cluster", "k8s_validate.mjs")
NODE_MODULES = os.path.join(BUILD, "k8s-schemas", "node_modules")
BRIDGE = os.path.join(K8S_DIR, "sbx-http-bridge.py")
TASKS = os.path.join(REPO, "examples", "tasks", "bigcodebench.jsonl")
ATTEMPTS = os.path.join(REPO, "examples", "tasks", "attempts.json")
REPLAY = os.path.join(REPO, "examples", "generators", "replay.py")


def validate(*files):
    return run(["node", VALIDATE, NODE_MODULES] + list(files), check=False, timeout=120)


class TestManifestSchemas(unittest.TestCase):
    def setUp(self):
        if not shutil.which("node"):
            self.skipTest("node is not installed (make k8s-schemas installs nodejs and npm)")
        if not os.path.exists(os.path.join(NODE_MODULES, ".installed")):
            self.skipTest("the Kubernetes schemas are not in %s: make k8s-schemas "
                          "(npm ci) did not run or failed" % NODE_MODULES)

    def test_examples_are_valid(self):
        files = sorted(glob.glob(os.path.join(K8S_DIR, "*.yaml")))
        p = validate(*files)
        self.assertEqual(p.returncode, 0, p.stdout + p.stderr)
        ok = sorted(line.split(": ", 1)[1] for line in p.stdout.splitlines())
        self.assertEqual(ok, sorted([
            "DaemonSet/sandboxd ok", "Job/sbx-eval ok", "Job/sbx-merge ok",
            "Namespace/sandboxd ok", "PersistentVolumeClaim/sbx-eval-data ok",
            "Service/sandboxd ok"]))

    # (file, text replaced, replacement, what the validator must say)
    BROKEN = [
        ("eval-job.yaml", "completionMode: Indexed", "completionMod: Indexed",
         '/spec: unknown field "completionMod"'),
        ("sandboxd.yaml", "        - name: http\n", "        - nme: http\n",
         '/spec/template/spec/containers/1/ports/0: unknown field "nme"'),
        ("eval-job.yaml", "completions: 4", "completions: four",
         "/spec/completions: must be integer"),
        ("sandboxd.yaml", "            seccompProfile:\n              type: Unconfined",
         "            seccompProfile:\n              type: Off",
         "/spec/template/spec/containers/0/securityContext/seccompProfile/type: "
         "must be equal to one of the allowed values"),
        ("sandboxd.yaml", "  selector:\n    matchLabels:\n      app.kubernetes.io/name: sandboxd\n",
         "", "/spec: must have required property selector"),
        ("merge-job.yaml", "apiVersion: batch/v1", "apiVersion: batch/v9",
         "no schema for apiVersion batch/v9, kind Job"),
        ("sandboxd.yaml", "    matchLabels:\n", "    matchLabels: [\n", "YAML:"),
    ]

    def test_broken_manifests_are_rejected(self):
        with tempfile.TemporaryDirectory() as d:
            for i, (name, old, new, want) in enumerate(self.BROKEN):
                with self.subTest(case=i, want=want):
                    with open(os.path.join(K8S_DIR, name)) as f:
                        text = f.read()
                    self.assertIn(old, text)  # the mutation applies
                    path = os.path.join(d, "%d-%s" % (i, name))
                    with open(path, "w") as f:
                        f.write(text.replace(old, new, 1))
                    p = validate(path)
                    self.assertEqual(p.returncode, 1, p.stdout + p.stderr)
                    self.assertIn(want, p.stdout)


def load_docs():
    import yaml  # python3-yaml (make check-cluster installs it)
    docs = {}
    for f in glob.glob(os.path.join(K8S_DIR, "*.yaml")):
        with open(f) as fh:
            for doc in yaml.safe_load_all(fh):
                if doc:
                    docs[(doc["kind"], doc["metadata"]["name"])] = doc
    return docs


def arg_after(args, flag):
    return args[args.index(flag) + 1]


class TestManifestDesign(unittest.TestCase):
    def setUp(self):
        try:
            import yaml  # noqa: F401
        except ImportError:
            self.skipTest("python3-yaml is not installed (make check-cluster installs it)")
        self.docs = load_docs()

    def containers(self, kind, name):
        spec = self.docs[(kind, name)]["spec"]["template"]["spec"]
        return spec, {c["name"]: c for c in spec["containers"]}

    def test_daemonset(self):
        pod, c = self.containers("DaemonSet", "sandboxd")
        d, front = c["sandboxd"], c["sandboxd-http"]
        self.assertTrue(d["securityContext"]["privileged"])
        self.assertEqual(d["securityContext"]["seccompProfile"]["type"], "Unconfined")
        fs = front["securityContext"]
        self.assertNotIn("privileged", fs)
        self.assertTrue(fs["runAsNonRoot"])
        self.assertNotEqual(fs["runAsUser"], 0)
        self.assertFalse(fs["allowPrivilegeEscalation"])
        self.assertEqual(fs["capabilities"]["drop"], ["ALL"])
        # The socket: the daemon's --socket is where the front looks, in a
        # volume both mount, and that volume is an emptyDir.
        sock = arg_after(d["args"], "--socket")
        self.assertEqual(arg_after(front["args"], "--socket"), sock)
        mounts = [{m["mountPath"]: m["name"] for m in x["volumeMounts"]} for x in (d, front)]
        vol = mounts[0][os.path.dirname(sock)]
        self.assertEqual(mounts[1][os.path.dirname(sock)], vol)
        self.assertIn("emptyDir", {v["name"]: v for v in pod["volumes"]}[vol])
        # The front's group may use the socket; its uid may name tenants.
        self.assertEqual(arg_after(d["args"], "--allow-gid"), str(fs["runAsGroup"]))
        self.assertEqual(arg_after(d["args"], "--trust-uid"), str(fs["runAsUser"]))
        self.assertEqual(pod["securityContext"]["fsGroup"], fs["runAsGroup"])
        for flag in ("--listen", "--token-file"):
            self.assertIn(flag, front["args"])
        # Only the front listens on the network.
        self.assertNotIn("ports", d)
        self.assertFalse(pod.get("hostNetwork", False))

    def test_service_reaches_the_front(self):
        svc = self.docs[("Service", "sandboxd")]["spec"]
        ds = self.docs[("DaemonSet", "sandboxd")]["spec"]["template"]
        for k, v in svc["selector"].items():
            self.assertEqual(ds["metadata"]["labels"].get(k), v)
        _, c = self.containers("DaemonSet", "sandboxd")
        ports = {p["name"]: p["containerPort"] for p in c["sandboxd-http"]["ports"]}
        self.assertIn(svc["ports"][0]["targetPort"], ports)
        port = ports[svc["ports"][0]["targetPort"]]
        self.assertTrue(arg_after(c["sandboxd-http"]["args"], "--listen").endswith(":%d" % port))

    def test_every_container_has_requests_and_limits(self):
        for (kind, name), doc in self.docs.items():
            if kind not in ("DaemonSet", "Job"):
                continue
            for c in doc["spec"]["template"]["spec"]["containers"]:
                with self.subTest(kind=kind, name=name, container=c["name"]):
                    for k in ("requests", "limits"):
                        self.assertEqual(set(c["resources"][k]), {"cpu", "memory"})

    def test_indexed_job_and_merge_agree(self):
        job = self.docs[("Job", "sbx-eval")]["spec"]
        merge = self.docs[("Job", "sbx-merge")]["spec"]
        self.assertEqual(job["completionMode"], "Indexed")
        env = {e["name"]: e.get("value") for e in job["template"]["spec"]["containers"][0]["env"]}
        menv = {e["name"]: e.get("value") for e in merge["template"]["spec"]["containers"][0]["env"]}
        self.assertEqual(int(env["SBX_SHARDS"]), job["completions"])
        self.assertEqual(menv["SBX_SHARDS"], env["SBX_SHARDS"])
        self.assertEqual(menv["SBX_OUT"], env["SBX_OUT"])
        script = job["template"]["spec"]["containers"][0]["args"][0]
        self.assertIn('--shard "$i/$SBX_SHARDS"', script)
        self.assertIn("i=$JOB_COMPLETION_INDEX", script)
        self.assertIn("http://sandboxd.sandboxd.svc:8080", script)
        # The eval pods run unprivileged.
        sc = job["template"]["spec"]["securityContext"]
        self.assertTrue(sc["runAsNonRoot"])


# --- the eval Job's path: sbx -> bridge -> HTTP front -> daemon ---------------

class StandInFront(http.server.ThreadingHTTPServer):
    """The contract of sandboxd-http's POST /v1/run that the bridge relies on
    (docs of issue 12 §1): the body is one socket-protocol request, the
    answer the daemon's JSON, 504 when it is `busy`, 401 without the token."""
    daemon_threads = True

    def __init__(self, daemon_socket, token, busy_every=0):
        self.daemon_socket, self.token = daemon_socket, token
        # Every busy_every-th job request is answered `busy` (504) without
        # reaching the daemon, as a full queue would be.
        self.busy_every, self.count, self.busy_sent = busy_every, 0, 0
        self.lock = threading.Lock()
        super().__init__(("127.0.0.1", 0), StandInHandler)


class StandInHandler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *a):
        pass

    def send(self, status, body, ctype="application/json"):
        self.send_response(status)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.headers.get("Authorization") != "Bearer " + self.server.token:
            return self.send(401, b"unauthorized\n", "text/plain")
        if self.path != "/v1/run":
            return self.send(404, b'{"id":null,"error":{"code":"bad_request","message":"?"}}')
        req = json.loads(body)
        with self.server.lock:
            self.server.count += 1
            busy = (req.get("op") != "ping" and self.server.busy_every and
                    self.server.count % self.server.busy_every == 0)
            self.server.busy_sent += bool(busy)
        if busy:
            return self.send(504, json.dumps({"id": req.get("id"), "error": {
                "code": "busy", "message": "simulated full queue"}}).encode())
        with socket.socket(socket.AF_UNIX) as s:
            s.connect(self.server.daemon_socket)
            s.sendall(body.strip() + b"\n")
            f = s.makefile("rb")
            line = f.readline()
        resp = json.loads(line)
        busy = resp.get("error", {}).get("code") == "busy"
        self.send(504 if busy else 200, line.strip())


class TestBridge(unittest.TestCase):
    """sbx eval through examples/kubernetes/sbx-http-bridge.py."""

    @classmethod
    def setUpClass(cls):
        for b in ("sandboxd", "sbx", "sandboxd-init", "runner.pyz"):
            if not os.path.exists(os.path.join(BUILD, b)):
                raise RuntimeError("%s/%s is missing: make all first" % (BUILD, b))
        cls.tmp = tempfile.mkdtemp(prefix="sbx-k8s.", dir="/tmp")
        os.chmod(cls.tmp, 0o755)
        cls.procs = []
        cls.nobody = pwd.getpwnam("nobody")
        cls.socket = os.path.join(cls.tmp, "sandboxd.sock")
        uid_base = 200000 + (os.getpid() % 50000) * 1024
        # The front runs as nobody (sandboxd-http refuses root): the daemon
        # serves nobody's group and lets it name tenants.
        cls.start([os.path.join(BUILD, "sandboxd"), "--socket", cls.socket, "--state-dir",
                   os.path.join(cls.tmp, "state"), "--uid-base", str(uid_base),
                   "--allow-gid", str(cls.nobody.pw_gid), "--trust-uid", str(cls.nobody.pw_uid)],
                  "daemon")
        cls.wait_for(lambda: run([cls.sbx(), "--socket", cls.socket, "ping"],
                                 check=False).returncode == 0, "sandboxd")
        cls.token = os.urandom(16).hex()
        cls.direct = cls.score(cls.eval(cls.socket, "direct"))

    @classmethod
    def tearDownClass(cls):
        for p, log in reversed(cls.procs):
            p.terminate()
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            log.close()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    @classmethod
    def start(cls, argv, name, **kw):
        log = open(os.path.join(cls.tmp, name + ".log"), "w")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT,
                             stdin=subprocess.DEVNULL, **kw)
        cls.procs.append((p, log))
        return p

    @staticmethod
    def wait_for(ok, what, timeout=30):
        deadline = time.monotonic() + timeout
        while not ok():
            if time.monotonic() > deadline:
                raise RuntimeError("%s did not come up in %d s" % (what, timeout))
            time.sleep(0.1)

    @staticmethod
    def sbx():
        return os.path.join(BUILD, "sbx")

    @classmethod
    def eval(cls, sock, name, check=True):
        out = os.path.join(cls.tmp, "out-" + name)
        p = run([cls.sbx(), "--socket", sock, "eval", "--dataset", TASKS, "--format",
                 "bigcodebench", "--generator", "python3 %s %s" % (REPLAY, ATTEMPTS),
                 "--setting", "CF", "--setting", "CF_EF_FULL", "--turns", "3", "--jobs", "4",
                 "--no-progress", "--out", out], timeout=600, check=check)
        return out if check else p

    @classmethod
    def score(cls, out):
        return json.loads(run([cls.sbx(), "score", "--json", out]).stdout)

    def bridge(self, url, token, name):
        tf = os.path.join(self.tmp, name + ".token")
        with open(tf, "w") as f:
            f.write(token + "\n")
        sock = os.path.join(self.tmp, name + ".sock")
        self.start(["/usr/bin/python3", BRIDGE, "--socket", sock, "--url", url,
                    "--token-file", tf, "--retry-s", "5"], name)
        self.wait_for(lambda: os.path.exists(sock), "the bridge")
        return sock

    def check_front(self, url, name, refusal):
        sock = self.bridge(url, self.token, name)
        scores = self.score(self.eval(sock, name))
        self.assertEqual(scores, self.direct)
        # Not a trivial table: the demo attempts solve some tasks late.
        s = scores["settings"]["CF_EF_FULL"]["pass_at_1"]
        self.assertTrue(0 < s[0] < s[-1], scores)
        # A wrong token: the run stops with the front's refusal.
        bad = self.bridge(url, "0" * 32, name + "-badtoken")
        p = self.eval(bad, name + "-badtoken", check=False)
        self.assertNotEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn(refusal, p.stderr)

    def test_standin_front(self):
        front = StandInFront(self.socket, self.token, busy_every=3)
        threading.Thread(target=front.serve_forever, daemon=True).start()
        try:
            # A plain-text 401: the bridge turns it into an error naming it.
            self.check_front("http://127.0.0.1:%d" % front.server_address[1], "standin",
                             "HTTP 401 from the front")
            # The 504s reached sbx as `busy` and were retried: same scores.
            self.assertGreater(front.busy_sent, 5)
        finally:
            front.shutdown()
            front.server_close()

    def test_unreachable_front(self):
        """A front that does not answer: the bridge retries for --retry-s,
        then the run stops naming it (and resumes when rerun)."""
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]  # closed again: nothing listens there
        sock = self.bridge("http://127.0.0.1:%d" % port, self.token, "nowhere")
        t0 = time.monotonic()
        p = self.eval(sock, "nowhere", check=False)
        self.assertNotEqual(p.returncode, 0, p.stdout + p.stderr)
        self.assertIn("unreachable", p.stderr)
        self.assertGreater(time.monotonic() - t0, 4)  # --retry-s 5 was waited out

    def test_sandboxd_http(self):
        exe = os.environ.get("SBX_HTTP_FRONT") or os.path.join(BUILD, "sandboxd-http")
        if not os.path.exists(exe):
            self.skipTest("%s is not built on this branch (issue 12 §1's front)" % exe)
        tokens = os.path.join(self.tmp, "front.tokens")
        with open(tokens, "w") as f:
            f.write("%s eval\n" % self.token)
        os.chmod(tokens, 0o644)
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        p = self.start([exe, "--listen", "127.0.0.1:%d" % port, "--socket", self.socket,
                        "--token-file", tokens, "--user", "nobody"], "front")

        def up():
            if p.poll() is not None:
                raise RuntimeError("sandboxd-http exited:\n" +
                                   tail(os.path.join(self.tmp, "front.log")))
            with socket.socket() as s:
                return s.connect_ex(("127.0.0.1", port)) == 0
        self.wait_for(up, "sandboxd-http")
        # sandboxd-http answers 401 with a JSON `forbidden` error, passed on.
        self.check_front("http://127.0.0.1:%d" % port, "front", "forbidden")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""examples/slurm/ on a real Slurm cluster of one node that this test starts:
munged with a fresh key, slurmctld and slurmd on this host (Debian's
slurm-wlm and munge; proctrack/linuxproc and task/none, so no cgroup plugin
is needed), all in a temporary directory with their own ports and socket.

A 4-task array runs `sbx eval --shard I/4` over a HumanEval sample, the merge
step queued with --dependency=afterok runs `sbx score`, and its scores must
equal an unsharded run's exactly. Both daemon modes of sbx-eval.sbatch are
run: a daemon already serving the node ("service", as the systemd unit
would) and a private daemon started by each task ("job", --exclusive).
Controls show the comparison and the merge step can fail: three shards of
four score differently, the merge step refuses a missing shard, and a failing
shard keeps the merge step from running at all.

Without the packages, or when the daemons cannot start here, every test is
skipped with the reason (never passed). Everything started is stopped and the
directory removed at the end.

  SBX_SLURM_SAMPLE=all   every HumanEval task instead of every 8th
"""
import gzip
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import unittest

from cluster_support import BUILD, DATASETS, REPO, main, run, tail

SLURM_DIR = os.path.join(REPO, "examples", "slurm")
GEN = os.path.join(REPO, "tests", "cluster", "mixed_gen.py")
SHARDS = 4
TOOLS = ["munged", "slurmctld", "slurmd", "sbatch", "squeue", "scontrol", "sinfo"]


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def pid_alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except ProcessLookupError:
        return False


class Cluster:
    """munged + slurmctld + slurmd in self.dir. start() returns None, or why
    the cluster could not be started (the caller skips with it)."""

    def __init__(self, root):
        self.dir = root
        self.munge = os.path.join(root, "munge")
        self.conf = os.path.join(root, "slurm.conf")
        self.env = dict(os.environ, SLURM_CONF=self.conf)
        self.pidfiles = [os.path.join(root, f) for f in
                         ("slurmd.pid", "slurmctld.pid", "munge/munged.pid")]

    def start(self):
        if os.geteuid() != 0:
            return "needs root (munged, slurmd and sandboxd run as root here)"
        os.makedirs(self.munge, mode=0o700)
        for d in ("ctld", "spool", "log"):
            os.makedirs(os.path.join(self.dir, d))
        key = os.path.join(self.munge, "munge.key")
        with open(key, "wb") as f:
            f.write(os.urandom(1024))
        os.chmod(key, 0o600)
        sock = os.path.join(self.munge, "munge.sock")
        p = run(["munged", "--force", "--key-file", key, "--socket", sock,
                 "--pid-file", os.path.join(self.munge, "munged.pid"),
                 "--log-file", os.path.join(self.munge, "munged.log"),
                 "--seed-file", os.path.join(self.munge, "seed")], check=False)
        if p.returncode != 0:
            return "munged did not start: %s %s" % (p.stderr.strip(), tail(
                os.path.join(self.munge, "munged.log"), 5))
        host = socket.gethostname().split(".")[0]
        # CPUs as slurmd counts them: a mismatch would drain the node.
        ncpu = len(os.sched_getaffinity(0))
        conf = f"""\
ClusterName=sbxtest
SlurmctldHost={host}(127.0.0.1)
SlurmctldPort={free_port()}
SlurmdPort={free_port()}
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
AuthInfo=socket={sock}
CredType=cred/munge
StateSaveLocation={self.dir}/ctld
SlurmdSpoolDir={self.dir}/spool
SlurmctldPidFile={self.dir}/slurmctld.pid
SlurmdPidFile={self.dir}/slurmd.pid
SlurmctldLogFile={self.dir}/log/slurmctld.log
SlurmdLogFile={self.dir}/log/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SwitchType=switch/none
MpiDefault=none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
ReturnToService=2
MinJobAge=600
SchedulerParameters=sched_interval=1
NodeName={host} NodeAddr=127.0.0.1 CPUs={ncpu} State=UNKNOWN
PartitionName=sbx Nodes=ALL Default=YES MaxTime=INFINITE State=UP
"""
        with open(self.conf, "w") as f:
            f.write(conf)
        for daemon in ("slurmctld", "slurmd"):
            p = run([daemon, "-f", self.conf], check=False, env=self.env)
            if p.returncode != 0:
                return "%s did not start: %s\n%s" % (daemon, p.stderr.strip(), tail(
                    os.path.join(self.dir, "log", daemon + ".log"), 10))
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            p = run(["sinfo", "-h", "-N", "-o", "%T"], check=False, env=self.env)
            if p.returncode == 0 and p.stdout.strip() in ("idle", "mixed", "allocated"):
                return None
            time.sleep(0.5)
        return "the node did not come up within 60 s (sinfo: %r)\nslurmctld:\n%s\nslurmd:\n%s" % (
            p.stdout.strip() or p.stderr.strip(),
            tail(os.path.join(self.dir, "log", "slurmctld.log"), 10),
            tail(os.path.join(self.dir, "log", "slurmd.log"), 10))

    def stop(self):
        """SIGTERM to slurmd, slurmctld and munged (by their pid files),
        SIGKILL to any still there after 10 s; then the directory goes."""
        pids = []
        for pf in self.pidfiles:
            try:
                with open(pf) as f:
                    pid = int(f.read().strip())
            except (OSError, ValueError):
                continue
            try:
                os.kill(pid, signal.SIGTERM)
                pids.append(pid)
            except ProcessLookupError:
                pass
        deadline = time.monotonic() + 10
        while pids and time.monotonic() < deadline:
            pids = [p for p in pids if pid_alive(p)]
            time.sleep(0.1)
        for pid in pids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        shutil.rmtree(self.dir, ignore_errors=True)

    def job_states(self, job):
        """{job id or array task: state} for a job (all tasks of an array)."""
        p = run(["scontrol", "-o", "show", "job", str(job)], check=False, env=self.env)
        states = {}
        for line in p.stdout.splitlines():
            f = dict(kv.split("=", 1) for kv in line.split() if "=" in kv)
            key = f.get("JobId", "?")
            if "ArrayTaskId" in f:
                key = "%s_%s" % (f.get("ArrayJobId"), f["ArrayTaskId"])
            states[key] = f.get("JobState", "?")
        return states

    def wait(self, job, timeout):
        """Waits until every task of the job has ended; returns the states."""
        done = {"COMPLETED", "FAILED", "CANCELLED", "TIMEOUT", "NODE_FAIL", "OUT_OF_MEMORY",
                "BOOT_FAIL", "DEADLINE", "PREEMPTED"}
        deadline = time.monotonic() + timeout
        while True:
            states = self.job_states(job)
            if states and all(s in done for s in states.values()):
                return states
            if time.monotonic() > deadline:
                raise AssertionError("job %s not done after %d s: %s\nslurmctld:\n%s" % (
                    job, timeout, states, tail(os.path.join(self.dir, "log", "slurmctld.log"))))
            time.sleep(0.5)


def load_sample():
    """Every 8th HumanEval task id (21), or all with SBX_SLURM_SAMPLE=all."""
    with gzip.open(os.path.join(DATASETS, "HumanEval.jsonl.gz"), "rt") as f:
        ids = [json.loads(line)["task_id"] for line in f]
    return ids if os.environ.get("SBX_SLURM_SAMPLE") == "all" else ids[::8]


class TestSlurm(unittest.TestCase):
    skip_reason = None
    cluster = None
    daemon = None

    @classmethod
    def setUpClass(cls):
        missing = [t for t in TOOLS if not shutil.which(t)]
        if missing:
            cls.skip_reason = ("Slurm/munge not installed (missing %s): apt-get install "
                               "slurmctld slurmd slurm-client munge (make check-cluster "
                               "tries)" % ", ".join(missing))
            return
        if not os.path.exists(os.path.join(DATASETS, "HumanEval.jsonl.gz")):
            cls.skip_reason = "no HumanEval.jsonl.gz in %s" % DATASETS
            return
        for b in ("sandboxd", "sbx", "sandboxd-init", "runner.pyz"):
            if not os.path.exists(os.path.join(BUILD, b)):
                raise RuntimeError("%s/%s is missing: make all first" % (BUILD, b))
        cls.tmp = tempfile.mkdtemp(prefix="sbx-slurm.", dir="/tmp")
        os.chmod(cls.tmp, 0o755)
        cls.cluster = Cluster(os.path.join(cls.tmp, "c"))
        try:
            why = cls.cluster.start()
        except Exception:
            cls.tearDownClass()
            raise
        if why:
            cls.skip_reason = "the Slurm cluster could not start here: " + why
            cls.tearDownClass()
            return
        cls.dataset = os.path.join(DATASETS, "HumanEval.jsonl.gz")
        cls.tasks = load_sample()
        cls.start_daemon()
        # The reference: one unsharded run against the same daemon.
        cls.full = os.path.join(cls.tmp, "full")
        run([os.path.join(BUILD, "sbx"), "--socket", cls.socket, "eval"] + cls.eval_args() +
            ["--out", cls.full], timeout=900)
        cls.full_scores = cls.score([cls.full])

    @classmethod
    def start_daemon(cls):
        """The node's "system service": one sandboxd serving cls.socket."""
        d = os.path.join(cls.tmp, "svc")
        os.makedirs(d)
        cls.socket = os.path.join(d, "sandboxd.sock")
        cls.daemon_log = open(os.path.join(d, "log"), "w")
        cls.daemon = subprocess.Popen(
            [os.path.join(BUILD, "sandboxd"), "--socket", cls.socket,
             "--state-dir", os.path.join(d, "state"), "--uid-base", str(cls.uid_base(0))],
            stdout=cls.daemon_log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        deadline = time.monotonic() + 30
        while run([os.path.join(BUILD, "sbx"), "--socket", cls.socket, "ping"],
                  check=False).returncode != 0:
            if cls.daemon.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError("sandboxd did not start:\n" + tail(cls.daemon_log.name))
            time.sleep(0.1)

    @staticmethod
    def uid_base(k):
        """A uid range of our own (as tests/helpers/daemon.c picks them), so
        that no other daemon on this machine shares it: 512 uids for k=0
        (the service daemon), the next 512 for k=1 (the private ones)."""
        return 200000 + (os.getpid() % 50000) * 1024 + 512 * k

    @classmethod
    def tearDownClass(cls):
        if cls.daemon:
            cls.daemon.terminate()
            try:
                cls.daemon.wait(15)
            except subprocess.TimeoutExpired:
                cls.daemon.kill()
                cls.daemon.wait()
            cls.daemon_log.close()
            cls.daemon = None
        if cls.cluster:
            cls.cluster.stop()
            cls.cluster = None
        if getattr(cls, "tmp", None):
            shutil.rmtree(cls.tmp, ignore_errors=True)
            cls.tmp = None

    def setUp(self):
        if self.skip_reason:
            self.skipTest(self.skip_reason)

    @classmethod
    def eval_args(cls):
        return ["--dataset", cls.dataset, "--format", "humaneval",
                "--generator", "python3 %s %s" % (GEN, cls.dataset),
                "--setting", "CF_EF_FULL", "--setting", "CF_EF_UNIT", "--turns", "2",
                "--tasks", ",".join(cls.tasks), "--no-progress"]

    @staticmethod
    def score(dirs):
        p = run([os.path.join(BUILD, "sbx"), "score", "--json"] + dirs)
        return json.loads(p.stdout)

    def submit(self, out, mode, extra_env=None, sbatch_args=()):
        """submit.sh over SHARDS tasks; returns (array id, merge id)."""
        env = dict(self.cluster.env, SBX_OUT=out, SBX_DATASET=self.dataset,
                   SBX_FORMAT="humaneval", SBX_GENERATOR="python3 %s %s" % (GEN, self.dataset),
                   SBX_SETTINGS="CF_EF_FULL CF_EF_UNIT", SBX_TURNS="2",
                   SBX_EVAL_ARGS="--tasks " + ",".join(self.tasks), SBX_BIN=BUILD,
                   SBX_DAEMON=mode, SBX_SOCKET=self.socket,
                   SBX_DAEMON_ARGS="--uid-base %d" % self.uid_base(1))
        env.update(extra_env or {})
        p = run([os.path.join(SLURM_DIR, "submit.sh"), str(SHARDS)] + list(sbatch_args), env=env)
        array, merge = p.stdout.split()
        return array, merge

    def logs(self, out):
        return "\n".join("== %s\n%s" % (f, tail(os.path.join(out, f), 15))
                         for f in sorted(os.listdir(out)) if f.endswith(".out"))

    def run_and_compare(self, mode, sbatch_args=()):
        out = os.path.join(self.tmp, "run-" + mode)
        array, merge = self.submit(out, mode, sbatch_args=sbatch_args)
        states = self.cluster.wait(array, 900)
        self.assertEqual(len(states), SHARDS, states)
        self.assertTrue(all(s == "COMPLETED" for s in states.values()),
                        "%s\n%s" % (states, self.logs(out)))
        mstate = self.cluster.wait(merge, 120)
        self.assertEqual(list(mstate.values()), ["COMPLETED"], "%s\n%s" % (mstate, self.logs(out)))
        # Every shard ran its own part: task index i mod 4.
        for i in range(SHARDS):
            with open(os.path.join(out, "shard-%d-of-%d" % (i, SHARDS), "turns.jsonl")) as f:
                got = {json.loads(line)["task_id"] for line in f}
            self.assertEqual(got, set(self.tasks[i::SHARDS]), "shard %d" % i)
        with open(os.path.join(out, "scores.json")) as f:
            merged = json.load(f)
        self.assertEqual(merged, self.full_scores)
        return out

    def test_service_daemon(self):
        """Each task uses the daemon already serving the node."""
        self.run_and_compare("service")

    def test_job_daemon(self):
        """Each task starts (and stops) a daemon of its own, node exclusive."""
        out = self.run_and_compare("job", sbatch_args=["--exclusive"])
        for f in os.listdir(out):
            if f.startswith("sbx-eval-") and f.endswith(".out"):
                with open(os.path.join(out, f)) as fh:
                    self.assertIn("daemon: job", fh.read())
        # Each task stopped its daemon: none with the private uid range left.
        mark = b"\0--uid-base\0%d\0" % self.uid_base(1)
        left = []
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                with open("/proc/%s/cmdline" % pid, "rb") as fh:
                    if mark in fh.read() + b"\0":
                        left.append(pid)
            except OSError:
                pass
        self.assertEqual(left, [], "private daemons still running")

    def test_scores_differ_without_a_shard(self):
        """Control: the reference tells a partial merge from a whole one, and
        the merge step refuses to merge with a shard missing."""
        # Outcomes differ by task (mixed_gen.py): no subset scores the same
        # by chance.
        for name, s in self.full_scores["settings"].items():
            self.assertEqual(s["tasks"], len(self.tasks), name)
            self.assertTrue(0 < s["pass_at_1"][0] < s["pass_at_1"][-1] < 1, s)
        out = os.path.join(self.tmp, "partial")
        for i in range(SHARDS - 1):
            run([os.path.join(BUILD, "sbx"), "--socket", self.socket, "eval"] + self.eval_args() +
                ["--shard", "%d/%d" % (i, SHARDS), "--out",
                 os.path.join(out, "shard-%d-of-%d" % (i, SHARDS))], timeout=900)
        three = self.score([os.path.join(out, "shard-%d-of-%d" % (i, SHARDS))
                            for i in range(SHARDS - 1)])
        self.assertNotEqual(three, self.full_scores)
        p = run([os.path.join(SLURM_DIR, "sbx-merge.sbatch")], check=False,
                env=dict(os.environ, SBX_OUT=out, SBX_SHARDS=str(SHARDS), SBX_BIN=BUILD))
        self.assertEqual(p.returncode, 2, p.stdout + p.stderr)
        self.assertIn("shard 3/4 has no results", p.stderr)
        self.assertFalse(os.path.exists(os.path.join(out, "scores.json")))

    def test_failed_shard_cancels_merge(self):
        """Control: a shard that fails (here: a dataset that is not there)
        keeps the afterok merge step from ever running."""
        out = os.path.join(self.tmp, "broken")
        array, merge = self.submit(out, "service", extra_env={"SBX_DATASET": "/nonexistent.jsonl"})
        states = self.cluster.wait(array, 300)
        self.assertTrue(all(s == "FAILED" for s in states.values()), states)
        mstate = self.cluster.wait(merge, 60)
        self.assertEqual(list(mstate.values()), ["CANCELLED"], mstate)
        self.assertFalse(os.path.exists(os.path.join(out, "scores.json")))


if __name__ == "__main__":
    main()

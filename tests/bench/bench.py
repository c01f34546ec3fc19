#!/usr/bin/env python3
"""Start-up cost of a sandboxd job against baselines run side by side.

Prints medians and ratios; never pass/fail. Baselines: bare python3 on the
same program (no isolation at all) and, when installed, bubblewrap with every
namespace unshared (a common minimal sandbox)."""
import gzip, json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
N = int(os.environ.get("BENCH_N", "40"))
PY = "/usr/bin/python3"
PROGRAMS = {"pass": "pass\n", "import json,re": "import json, re\n"}
DATASETS = os.environ.get("SBX_DATASETS", os.path.join(os.path.dirname(__file__), "..", "..", "..",
                                                      "shared", "datasets"))
WINDOW = 24  # requests in flight on one connection (below the per-peer queue cap)


def humaneval_rate(sock, tasks, isolation):
    """Tasks/s for every canonical HumanEval solution with this isolation,
    pipelined on one connection; also the CPU each task took in the jail."""
    s = socket.socket(socket.AF_UNIX)
    s.connect(sock)
    f = s.makefile("rb")
    reqs = [json.dumps({"id": t["task_id"], "code": t["prompt"] + t["canonical_solution"],
                        "format": "humaneval", "tests": t["test"],
                        "entry_point": t["entry_point"], "isolation": isolation}).encode()
            + b"\n" for t in tasks]
    t0 = time.perf_counter()
    sent = done = 0
    passed, cpu = 0, []
    while done < len(reqs):
        while sent < len(reqs) and sent - done < WINDOW:
            s.sendall(reqs[sent])
            sent += 1
        r = json.loads(f.readline())
        done += 1
        passed += r.get("verdict") == "pass"
        cpu.append((r.get("usage") or {}).get("cpu_ms", 0))
    rate = len(reqs) / (time.perf_counter() - t0)
    s.close()
    return rate, passed, statistics.median(cpu)


def median_ms(fn, n=N):
    fn()  # warm the page cache
    times = []
    for _ in range(n):
        t = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times)


class Client:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX)
        self.s.connect(path)
        self.f = self.s.makefile("rb")
        self.n = 0

    def run(self, code):
        self.n += 1
        req = {"id": str(self.n), "code": code}
        self.s.sendall(json.dumps(req).encode() + b"\n")
        r = json.loads(self.f.readline())
        assert r.get("verdict") == "pass", r
        return r


def main():
    tmp = tempfile.mkdtemp(prefix="sbx-bench-")
    sock = os.path.join(tmp, "sock")
    daemon = subprocess.Popen([os.path.join(BUILD, "sandboxd"), "--socket", sock,
                               "--state-dir", os.path.join(tmp, "state")],
                              stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            if os.path.exists(sock):
                break
            time.sleep(0.02)
        c = Client(sock)
        bwrap = shutil.which("bwrap")
        print(f"{'program':16} {'bare python3':>13} {'bubblewrap':>11} {'sandboxd':>9} "
              f"{'vs bare':>8} {'vs bwrap':>9}")
        for name, code in PROGRAMS.items():
            path = os.path.join(tmp, "main.py")
            with open(path, "w") as f:
                f.write(code)
            bare = median_ms(lambda: subprocess.run([PY, "-B", path], check=True))
            bw = None
            if bwrap:
                cmd = [bwrap, "--ro-bind", "/usr", "/usr", "--symlink", "usr/lib", "/lib",
                       "--symlink", "usr/lib64", "/lib64", "--symlink", "usr/bin", "/bin",
                       "--proc", "/proc", "--dev", "/dev", "--tmpfs", "/tmp",
                       "--ro-bind", path, "/main.py", "--unshare-all", "--die-with-parent",
                       "--new-session", PY, "-B", "/main.py"]
                bw = median_ms(lambda: subprocess.run(cmd, check=True))
            sbx = median_ms(lambda: c.run(code))
            print(f"{name:16} {bare:11.1f}ms {(f'{bw:9.1f}ms' if bw else '        -  ')} "
                  f"{sbx:7.1f}ms {sbx / bare:7.2f}x {(f'{sbx / bw:8.2f}x' if bw else '       -')}")
        # Throughput with every worker busy, against bare python3 at the same parallelism.
        c.s.sendall(b'{"id":"p","op":"ping"}\n')
        workers = json.loads(c.f.readline())["workers"]
        jobs = N * 2

        def par(fn):
            t = time.perf_counter()
            ths = [threading.Thread(target=lambda: [fn() for _ in range(jobs // workers)])
                   for _ in range(workers)]
            [th.start() for th in ths]
            [th.join() for th in ths]
            return jobs / (time.perf_counter() - t)

        path = os.path.join(tmp, "main.py")
        with open(path, "w") as f:
            f.write("pass\n")
        bare_tp = par(lambda: subprocess.run([PY, "-B", path], check=True))
        clients = threading.local()

        def one():
            if not hasattr(clients, "c"):
                clients.c = Client(sock)
            clients.c.run("pass")

        sbx_tp = par(one)
        print(f"\nthroughput, {workers} at a time: bare python3 {bare_tp:.1f} runs/s, "
              f"sandboxd {sbx_tp:.1f} jobs/s ({sbx_tp / bare_tp:.2f}x of bare)")
        # The cost of isolation "process" (issue 10): the same 164 tasks,
        # in-process and with the candidate in its own process, interleaved.
        he = os.path.join(DATASETS, "HumanEval.jsonl.gz")
        if os.path.exists(he):
            with gzip.open(he, "rt") as fh:
                tasks = [json.loads(line) for line in fh if line.strip()]
            rounds = int(os.environ.get("BENCH_HE_ROUNDS", "2"))
            res = {"none": [], "process": []}
            for _ in range(rounds):
                for iso in ("none", "process"):
                    res[iso].append(humaneval_rate(sock, tasks, iso))
            print(f"\nHumanEval {len(tasks)} canonical, {workers} workers, median of {rounds}:")
            for iso, rs in res.items():
                rate = statistics.median(r[0] for r in rs)
                print(f"  isolation {iso:8} {rate:6.1f} tasks/s, {min(r[1] for r in rs)} passed, "
                      f"CPU per task {statistics.median(r[2] for r in rs):.0f} ms")
            ratio = (statistics.median(r[0] for r in res["process"]) /
                     statistics.median(r[0] for r in res["none"]))
            print(f"  process / in-process throughput: {ratio:.2f}x")
        else:
            print(f"\n(no {he}: HumanEval isolation cost not measured)")
    finally:
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

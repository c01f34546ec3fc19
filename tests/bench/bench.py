#!/usr/bin/env python3
"""Start-up cost of a sandboxd job against baselines run side by side.

Prints medians and ratios; never pass/fail. Baselines: bare python3 on the
same program (no isolation at all) and, when installed, bubblewrap with every
namespace unshared (a common minimal sandbox)."""
import json, os, shutil, socket, statistics, subprocess, sys, tempfile, threading, time

BUILD = sys.argv[1] if len(sys.argv) > 1 else "build"
N = int(os.environ.get("BENCH_N", "40"))
PY = "/usr/bin/python3"
PROGRAMS = {"pass": "pass\n", "import json,re": "import json, re\n"}


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
    finally:
        daemon.terminate()
        daemon.wait()
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""CalibrateTests: the fork server's calibration child (sbx_runner/warm.py,
_calibrating). It takes a job's path on a built-in job in a child of the
server (returning from serve() there as a job does) and reports, at that
job's end, the pages it wrote. What must hold: the child really runs the
path a job runs (the runner's main() through to its end for a
test-request server, run_main for a plain one), its report
reaches the server only when it ended well (a child still running after
_CAL_SECONDS is killed, and its report is not taken), it holds none of the server's
descriptors but its report's pipe (not the daemon's socket), it writes
nothing to the server's output, and the server is left as it was (its
modules, environment, descriptors and exit functions).

The library's two calls are stood in for by Python functions: the child's
"report" says what it saw at its end.

Each case runs in a fresh python3 with the bundle on sys.path, outside the
jail.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_calibrate.py)
"""
import json
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

import unittest

from runner_support import dedent, main, run_probe

PROBE = dedent('''
    import json, os, sys
    sys.path.insert(0, sys.argv[1])
    runner, fail, hang = sys.argv[2] == "runner", sys.argv[3] == "fail", sys.argv[3] == "hang"
    from sbx_runner import script, warm
    if hang:
        warm._CAL_SECONDS = 0.5
    if runner:
        from sbx_runner import main, core  # noqa: F401  (a test-request server's)
    script.remember_modules()
    import socket
    SOCK, _peer = socket.socketpair()   # stands for the daemon's socket (fd 3)
    SOCK = SOCK.detach()
    ORIG_MAIN = sys.modules["__main__"]
    SOCK_ID = (os.fstat(SOCK).st_dev, os.fstat(SOCK).st_ino)

    class Lib:
        got = None

        def warmfork_learn(self, fd):
            """In the child, at the job's end: what it saw."""
            main = sys.modules.get("__main__")
            seen = {
                "runner_left": sorted(n for n in sys.modules if n.startswith("sbx_runner")),
                "main_replaced": main is not ORIG_MAIN and type(main) is type(sys),
                "sock_open": any(_is_sock(int(f)) for f in os.listdir("/proc/self/fd")),
                "fds": sorted(int(f) for f in os.listdir("/proc/self/fd")),
                "fd": fd,
            }
            os.write(fd, json.dumps(seen).encode())
            if hang:
                import time
                time.sleep(60)
            return -1 if fail else 0

        def warmfork_waiting(self):
            return 0

        def warmfork_calibrated(self, fd):
            Lib.got = json.loads(os.read(fd, 65536) or b"null")
            return 1

    def _is_sock(fd):
        try:
            st = os.fstat(fd)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == SOCK_ID

    def state():
        return {"modules": sorted(sys.modules), "env": sorted(os.environ),
                "fds": sorted(os.listdir("/proc/self/fd")),
                "exits": [os._exit is EXIT, script._exit is EXIT]}
    EXIT = os._exit
    before = state()
    if warm._calibrating(Lib(), runner):
        # The child: what follows serve() for a job (runner.pyz's
        # __main__, or the plain server's bootstrap).
        if runner:
            from sbx_runner.main import main
            main()
        else:
            warm.run_main()
    after = state()
    print(json.dumps({"before": before, "after": after, "got": Lib.got}))
''')


class CalibrateTests(unittest.TestCase):
    def check(self, kind, how="ok"):
        rc, out, err = run_probe(PROBE, kind, how)
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")
        lines = out.splitlines()
        self.assertEqual(len(lines), 1, out)     # the child wrote nothing here
        got = json.loads(lines[0])
        for k in got["before"]:
            self.assertEqual(got["after"][k], got["before"][k], k)
        self.assertEqual(got["after"]["exits"], [True, True])
        return got["got"]

    def test_runner_server_runs_the_runner_to_its_end(self):
        seen = self.check("runner")
        self.assertIsNotNone(seen, "no report")
        # main() ran through the test: its modules were taken out before the
        # candidate ran, and it reached its own end.
        self.assertEqual(seen["runner_left"], [])
        self.assertFalse(seen["sock_open"])

    def test_plain_server_runs_a_program(self):
        seen = self.check("plain")
        self.assertIsNotNone(seen, "no report")
        self.assertTrue(seen["main_replaced"], seen)  # script.run made its __main__
        self.assertFalse(seen["sock_open"])

    def test_a_failed_report_is_not_taken(self):
        self.assertIsNone(self.check("runner", "fail"))

    def test_a_child_that_hangs_is_killed(self):
        import time
        t = time.monotonic()
        self.assertIsNone(self.check("runner", "hang"))
        self.assertLess(time.monotonic() - t, 30)


if __name__ == "__main__":
    main()

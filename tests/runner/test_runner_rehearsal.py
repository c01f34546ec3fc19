#!/usr/bin/env python3
"""RehearsalTests: what a job forked ahead runs before its job comes
(sbx_runner/warm.py, _rehearse and _rehearse_records) leaves nothing a job
could see: no module imported or removed, no source remembered in
linecache, no descriptor left open, no output, no argv or sys.path changed,
and nothing thrown. In a server that imported the runner it exercises a
test request's own steps (a candidate compiled, its records encoded and
written to /dev/null); in one that did not, it imports nothing to do so.
A rehearsal asked to stop at once does nothing.

Each case runs in a fresh python3 with the bundle on sys.path, outside the
jail (no fork server is needed to call these functions).

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_rehearsal.py)
"""
import json
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

import unittest

from runner_support import dedent, main, run_probe

PROBE = dedent('''
    import gc, json, linecache, os, sys
    sys.path.insert(0, sys.argv[1])
    runner = sys.argv[2] == "runner"
    stop = sys.argv[3] == "stop"
    from sbx_runner import warm
    if runner:
        from sbx_runner import main, core, compile_step, channel, records  # noqa: F401
    import ast  # what the rehearsal needs besides the runner (json is imported)
    calls = []
    def waiting():
        calls.append(1)
        return stop
    def state():
        return {"modules": sorted(sys.modules), "linecache": sorted(linecache.cache),
                "fds": sorted(os.listdir("/proc/self/fd")), "argv": list(sys.argv),
                "path": list(sys.path), "garbage": len(gc.garbage),
                "main": id(sys.modules.get("__main__"))}
    before = state()
    warm._rehearse(waiting)
    warm._rehearse_records()
    after = state()
    print(json.dumps({"before": before, "after": after, "asked": len(calls)}))
''')


def probe(runner, stop=False):
    return run_probe(PROBE, "runner" if runner else "plain", "stop" if stop else "go")


class RehearsalTests(unittest.TestCase):
    def check(self, runner, stop=False):
        rc, out, err = probe(runner, stop)
        self.assertEqual(rc, 0, err)
        self.assertEqual(err, "")
        lines = out.splitlines()
        # Only the probe's own line: the rehearsal printed nothing.
        self.assertEqual(len(lines), 1, out)
        got = json.loads(lines[0])
        for k in got["before"]:
            self.assertEqual(got["after"][k], got["before"][k], k)
        return got

    def test_runner_server_leaves_nothing(self):
        got = self.check(runner=True)
        self.assertGreater(got["asked"], 3)     # it went through every step

    def test_plain_server_imports_nothing(self):
        got = self.check(runner=False)
        self.assertNotIn("sbx_runner.channel", got["after"]["modules"])
        self.assertNotIn("sbx_runner.compile_step", got["after"]["modules"])

    def test_stops_when_the_job_came(self):
        got = self.check(runner=True, stop=True)
        self.assertEqual(got["asked"], 1)

    def test_records_reach_the_channel_encoder(self):
        """The control: the same steps with a channel that is not /dev/null
        write the records a test request writes (so the rehearsal does
        exercise them)."""
        code = dedent('''
            import os, sys
            sys.path.insert(0, sys.argv[1])
            from sbx_runner import channel, compile_step, records, warm
            r, w = os.pipe()
            real_open = os.open
            os.open = lambda path, flags, *a: os.dup(w) if path == os.devnull else real_open(path, flags, *a)
            warm._rehearse_records()
            os.close(w)
            sys.stdout.write(os.read(r, 65536).decode())
        ''')
        rc, out, err = run_probe(code)
        self.assertEqual(rc, 0, err)
        recs = [json.loads(line) for line in out.splitlines()]
        self.assertEqual([r["type"] for r in recs],
                         ["compile", "plan", "start", "result", "done"])
        self.assertTrue(recs[0]["ok"])


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""The demo of `make run` (examples/demo.sh): it runs a daemon of its own,
and the evaluation it shows leaves its outputs where it says it does, under
the build directory, after it ends (it used to write them into a temporary
directory it then removed, while saying it wrote a plot). Runs as root
(the daemon does). Environment: SBX_BUILD (default build)."""
import json
import os
import shutil
import tempfile
import unittest

from ops_support import BUILD, run, skip


class Demo(unittest.TestCase):
    def test_outputs_kept_and_named(self):
        if os.geteuid() != 0:
            skip(self, "needs root (the demo starts sandboxd)")
        # A build dir of its own holding links to the built programs, so the
        # test never removes the outputs of a `make run` in the real one.
        b = tempfile.mkdtemp(prefix="sbx-demo-")
        try:
            for name in os.listdir(BUILD):
                src = os.path.abspath(os.path.join(BUILD, name))
                if os.path.isfile(src):
                    os.symlink(src, os.path.join(b, name))
            r = run(["examples/demo.sh", b], timeout=300)
            self.assertEqual(r.returncode, 0, r.stdout[-2000:] + r.stderr[-2000:])
            out = os.path.join(b, "demo", "eval")
            self.assertIn(out + "/", r.stdout)
            self.assertIn("pass_at_1.svg", r.stdout)
            self.assertIn("report.html", r.stdout)
            for f in ("turns.jsonl", "traces.jsonl", "summary.json", "pass_at_1.svg", "report.html"):
                p = os.path.join(out, f)
                self.assertTrue(os.path.isfile(p) and os.path.getsize(p) > 0, p)
            with open(os.path.join(out, "turns.jsonl")) as f:
                n = sum(1 for line in f if json.loads(line))
            self.assertIn("turns.jsonl (%d records)" % n, r.stdout)
            with open(os.path.join(out, "pass_at_1.svg")) as f:
                self.assertIn("<polyline", f.read())
            with open(os.path.join(out, "report.html")) as f:
                self.assertIn('id="report-data"', f.read())
        finally:
            shutil.rmtree(b, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()

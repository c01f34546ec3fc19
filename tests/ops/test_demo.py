#!/usr/bin/env python3
"""The demo of `make run` (examples/demo.sh): it runs a daemon of its own,
and the evaluation it shows leaves its outputs where it says it does, under
the build directory, after it ends (it used to write them into a temporary
directory it then removed, while saying it wrote a plot), and it shows the
reference check leaving out a task whose reference cannot run. Runs as root
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
            for f in ("turns.jsonl", "traces.jsonl", "summary.json", "pass_at_1.svg", "report.html",
                      "reference.jsonl"):
                p = os.path.join(out, f)
                self.assertTrue(os.path.isfile(p) and os.path.getsize(p) > 0, p)
            with open(os.path.join(out, "turns.jsonl")) as f:
                n = sum(1 for line in f if json.loads(line))
            self.assertIn("turns.jsonl (%d records)" % n, r.stdout)
            # The reference check: the task whose reference imports a
            # module no machine has is left out, named with the module, and
            # the eight others are scored (docs/eval.md, "Reference check").
            self.assertIn("Tasks scored: 8;", r.stdout)
            self.assertIn("excluded sbx/slugify_web: missing module sbx_demo_webframework",
                          r.stdout)
            with open(os.path.join(out, "reference.jsonl")) as f:
                refs = {j["task_id"]: j for j in map(json.loads, f)}
            self.assertEqual(len(refs), 9)
            self.assertEqual(refs["sbx/slugify_web"]["missing_module"],
                             "sbx_demo_webframework")
            self.assertEqual(sum(j["verdict"] == "pass" for j in refs.values()), 8)
            with open(os.path.join(out, "summary.json")) as f:
                self.assertEqual(json.load(f)["tasks_scored"], 8)
            with open(os.path.join(out, "pass_at_1.svg")) as f:
                self.assertIn("<polyline", f.read())
            with open(os.path.join(out, "report.html")) as f:
                self.assertIn('id="report-data"', f.read())
        finally:
            shutil.rmtree(b, ignore_errors=True)


if __name__ == "__main__":
    unittest.main()

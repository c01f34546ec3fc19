#!/usr/bin/env python3
"""make deps-bigcodebench (examples/datasets/bigcodebench_deps.py), dry run
on a small dataset of its own: the standard library is skipped (but for
turtle, which Debian ships apart), import names map to Debian's package
names, and a library Debian has no package for is listed with its task
count. Needs apt's package lists (make deps runs apt-get update when it
installs; without lists the test skips, saying so)."""
import json
import os
import subprocess
import tempfile
import unittest

from ops_support import run, skip

SCRIPT = "examples/datasets/bigcodebench_deps.py"


class Deps(unittest.TestCase):
    def test_dry_run_plan(self):
        tasks = [{"task_id": "t/0", "libs": "['os', 'numpy', 'sklearn', 'cv2']"},
                 {"task_id": "t/1", "libs": ["turtle", "nosuchlib_sbx_xyz", "re"]},
                 {"task_id": "t/2", "libs": ["nosuchlib_sbx_xyz", "numpy"]}]
        with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
            f.write("".join(json.dumps(t) + "\n" for t in tasks))
        try:
            r = run(["/usr/bin/python3", SCRIPT, "--dry-run", f.name])
        finally:
            os.unlink(f.name)
        if r.returncode != 0 and "apt knows no packages" in r.stderr:
            skip(self, "apt has no package lists here")
        self.assertEqual(r.returncode, 0, r.stderr)
        out = r.stdout
        lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.startswith("  ")}
        self.assertIn("sklearn", lines.get("python3-sklearn", ""))
        self.assertIn("cv2", lines.get("python3-opencv", ""))
        self.assertIn("turtle", lines.get("python3-tk", ""))
        self.assertIn("numpy", lines.get("python3-numpy", ""))
        self.assertNotIn("python3-os", out)
        self.assertNotIn("python3-re ", out)
        missing = out.split("No Debian package")[1]
        self.assertRegex(missing, r"nosuchlib_sbx_xyz\s+2\n")
        self.assertNotIn("numpy", missing)

    def test_no_dataset_is_an_error(self):
        r = run(["/usr/bin/python3", SCRIPT, "--dry-run", "/nonexistent/bcb.jsonl"])
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("no dataset", r.stderr)


if __name__ == "__main__":
    unittest.main()

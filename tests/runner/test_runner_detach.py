#!/usr/bin/env python3
"""DetachTests: the runner's modules leave sys.modules before a candidate
runs (sbx_runner/script.py, detach), so the candidate cannot import them.
In a fork server their names are taken once, before its jobs
(remember_modules): going through sys.modules in every job touched the
reference count of every name in it, a page of the server's copied for
every few. What must hold either way: after detach no runner module is
left in sys.modules, one imported after the names were taken included, and
the modules taken out are still referenced (freeing them would write to
the server's pages).

Each case runs in a fresh python3 with the bundle on sys.path, outside the
jail.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_detach.py)
"""
import json
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

import unittest

from runner_support import dedent, main, run_probe

PROBE = dedent('''
    import gc, json, sys, weakref, zipfile
    sys.path.insert(0, sys.argv[1])
    remember = sys.argv[2] == "remember"
    from sbx_runner import main, script  # noqa: F401  (a runner server's imports)
    bundled = sorted("sbx_runner." + n[len("sbx_runner/"):-3]
                     for n in zipfile.ZipFile(sys.argv[1]).namelist()
                     if n.startswith("sbx_runner/") and n.endswith(".py")
                     and not n.endswith("__init__.py"))
    later = [n for n in bundled if n not in sys.modules][0]
    if remember:
        script.remember_modules()
    __import__(later)                     # imported after the names were taken
    alive = weakref.ref(sys.modules["sbx_runner.text"])
    script.detach()
    gc.collect()
    left = [n for n in sys.modules if n == "sbx_runner" or n.startswith("sbx_runner.")]
    print(json.dumps({"later": later, "left": left, "alive": alive() is not None,
                      "kept": len(script._DETACHED)}))
''')


class DetachTests(unittest.TestCase):
    def check(self, mode):
        rc, out, err = run_probe(PROBE, mode)
        self.assertEqual(rc, 0, err)
        got = json.loads(out)
        self.assertTrue(got["later"].startswith("sbx_runner."), got)
        self.assertEqual(got["left"], [])
        self.assertTrue(got["alive"], "a detached module was freed")
        self.assertGreater(got["kept"], 5)
        return got

    def test_names_taken_ahead(self):
        self.check("remember")

    def test_names_taken_at_once(self):
        self.check("now")


if __name__ == "__main__":
    main()

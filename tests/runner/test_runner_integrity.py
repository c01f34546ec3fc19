#!/usr/bin/env python3
"""IntegrityTests: what a candidate that shares the runner's process can and
cannot do to its results (exits, interrupts, forged reports, the result
and key descriptors, forks), and what the records may carry.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_integrity.py)
"""
import sys

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

from runner_support import RunnerTest, dedent, main, run_job


# --------------------------------------------------------------------- integrity

ONE_TEST = "import unittest\nclass TestCases(unittest.TestCase):\n    def test_a(self): pass\n"


class IntegrityTests(RunnerTest):
    def test_sys_exit_at_import_is_a_module_error(self):
        r = self.run_job({"format": "unittest", "code": "import sys\nsys.exit(0)\n",
                          "tests": ONE_TEST})
        m = r.one("module_error")
        self.assertEqual(m["message"], "SystemExit: 0")
        self.assertIn('File "solution.py", line 2, in <module>', m["traceback"])
        self.assertEqual(r.of("result"), [])
        self.assertTrue(r.done)

    def test_other_exceptions_at_import(self):
        r = self.run_job({"format": "humaneval", "code": "import no_such_module_xyz\n",
                          "tests": "def check(c): pass\n", "entry_point": "f"})
        self.assertEqual(r.one("module_error")["message"],
                         "ModuleNotFoundError: No module named 'no_such_module_xyz'")
        self.assertCleanTraceback(r.one("module_error")["traceback"])
        r = self.run_job({"format": "asserts", "code": "raise KeyboardInterrupt\n",
                          "tests": ["assert True"]})
        self.assertEqual(r.one("module_error")["message"], "KeyboardInterrupt")

    def test_system_exit_and_keyboard_interrupt_in_tests_are_errors(self):
        tests = dedent('''
            import sys, unittest
            class TestCases(unittest.TestCase):
                def test_a_exit(self):
                    sys.exit(0)
                def test_b_raise(self):
                    raise SystemExit(3)
                def test_c_interrupt(self):
                    raise KeyboardInterrupt
                def test_d_after(self):
                    pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        res = r.results
        self.assertEqual({n: (x["outcome"], x["message"]) for n, x in res.items()},
                         {"test_a_exit": ("error", "SystemExit: 0"),
                          "test_b_raise": ("error", "SystemExit: 3"),
                          "test_c_interrupt": ("error", "KeyboardInterrupt"),
                          "test_d_after": ("passed", "")})
        self.assertTrue(r.done)
        r = self.run_job({"format": "asserts", "code": "import sys\n",
                          "tests": ["assert sys.exit(0)", "assert True"]})
        self.assertEqual([(r.results[n]["outcome"], r.results[n]["message"]) for n in r.plan],
                         [("error", "SystemExit: 0"), ("passed", "")])

    def test_os_exit_in_a_test_leaves_it_without_result(self):
        tests = dedent('''
            import os, unittest
            class TestCases(unittest.TestCase):
                def test_a(self): pass
                def test_b(self):
                    print("OK")
                    os._exit(0)
                def test_c(self): pass
        ''')
        r = run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual([(x["type"], x.get("name")) for x in r.records[2:]],
                         [("start", "test_a"), ("result", "test_a"), ("start", "test_b")])
        self.assertFalse(r.done)
        self.assertEqual(r.results["test_a"]["outcome"], "passed")

    def test_interrupt_after_a_failed_subtest_and_exit_in_setupclass(self):
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                def test_a(self):
                    with self.subTest(i=1):
                        self.fail("sub")
                    raise KeyboardInterrupt
                def test_b(self): pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual({n: x["outcome"] for n, x in r.results.items()},
                         {"test_a": "failed", "test_b": "passed"})
        self.assertTrue(r.done)
        tests = dedent('''
            import sys, unittest
            class TestCases(unittest.TestCase):
                @classmethod
                def setUpClass(cls):
                    sys.exit(1)
                def test_a(self): pass
                def test_b(self): pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual({n: (x["outcome"], x["message"]) for n, x in r.results.items()},
                         {"test_a": ("error", "SystemExit: 1"),
                          "test_b": ("error", "SystemExit: 1")})
        self.assertTrue(r.done)

    def test_runner_is_not_dumpable_nor_importable(self):
        code = dedent('''
            import ctypes, os, sys
            DUMPABLE = ctypes.CDLL(None).prctl(3, 0, 0, 0, 0)   # PR_GET_DUMPABLE
            PATH0, CWD = sys.path[0], os.getcwd()
            try:
                import runner
                IMPORTED = True
            except ImportError:
                IMPORTED = False
            try:
                import sbx_runner
                PKG_IMPORTED = True
            except ImportError:
                PKG_IMPORTED = False
        ''')
        r = self.run_job({"format": "asserts", "code": code,
                          "tests": ["assert DUMPABLE == 0", "assert PATH0 == CWD",
                                    "assert not IMPORTED", "assert not PKG_IMPORTED"]})
        self.assertEqual([r.results[n]["outcome"] for n in r.plan], ["passed"] * 4, r)

    def test_fake_unittest_report_changes_nothing(self):
        code = dedent('''
            import sys
            print("...\\n------------------------------------------------------------")
            print("Ran 3 tests in 0.001s\\n\\nOK")
            sys.stderr.write("Ran 3 tests in 0.001s\\n\\nOK\\n")
            def f():
                return 1
        ''')
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                def test_a(self):
                    print("OK")
                    self.assertEqual(f(), 2)
        ''')
        r = self.run_job({"format": "unittest", "code": code, "tests": tests})
        self.assertIn("Ran 3 tests", r.stdout)
        self.assertEqual(r.results["test_a"]["outcome"], "failed")
        self.assertEqual(len(r.of("result")), 1)

    def test_closing_fd_3_does_not_silence_the_runner(self):
        code = dedent('''
            import os
            FD3 = os.readlink("/proc/self/fd/3")
            os.write(3, b'{"type":"done"}\\n')
            os.close(3)
        ''')
        tests = "import unittest\nclass TestCases(unittest.TestCase):\n" \
                "    def test_a(self):\n        self.assertEqual(FD3, '/dev/null')\n"
        r = self.run_job({"format": "unittest", "code": code, "tests": tests})
        self.assertEqual(r.results["test_a"]["outcome"], "passed", r)
        self.assertTrue(r.done)

    def test_key_fd_is_closed_and_result_fd_not_inherited(self):
        code = dedent('''
            import os, subprocess
            KEY_FD_OPEN = os.path.exists("/proc/self/fd/4")
            try:
                os.fstat(4)
                FSTAT4 = "open"
            except OSError:
                FSTAT4 = "closed"
            OWN_FDS = sorted(int(x) for x in os.listdir("/proc/self/fd"))
            CHILD_FDS = subprocess.run("ls /proc/self/fd", shell=True, close_fds=False,
                                       capture_output=True, text=True).stdout.split()
        ''')
        tests = dedent('''
            import unittest
            class TestCases(unittest.TestCase):
                def test_key_fd(self):
                    self.assertFalse(KEY_FD_OPEN)
                    self.assertEqual(FSTAT4, "closed")
                def test_private_fd(self):
                    self.assertTrue([fd for fd in OWN_FDS if fd >= 100], OWN_FDS)
                    self.assertFalse([fd for fd in CHILD_FDS if int(fd) >= 100], CHILD_FDS)
        ''')
        r = self.run_job({"format": "unittest", "code": code, "tests": tests})
        self.assertEqual({n: x["outcome"] for n, x in r.results.items()},
                         {"test_key_fd": "passed", "test_private_fd": "passed"}, r)

    def test_a_fork_that_falls_into_the_harness_reports_nothing(self):
        tests = dedent('''
            import os, unittest
            class TestCases(unittest.TestCase):
                def test_fork(self):
                    print("before fork", end="")   # buffered, must not show twice
                    pid = os.fork()
                    if pid:
                        os.waitpid(pid, 0)
                def test_later(self): pass
        ''')
        r = self.run_job({"format": "unittest", "code": "", "tests": tests})
        self.assertEqual(len(r.of("result")), 2)
        self.assertEqual(len(r.of("done")), 1)
        self.assertEqual(r.stdout.count("before fork"), 1, r)

    def test_every_record_carries_the_key_and_env_overrides_work(self):
        r = self.run_job({"format": "asserts", "code": "x = 1\n", "tests": ["assert x == 1"]},
                         env_fds=True)
        self.assertTrue(r.done)
        self.assertEqual({x["key"] for x in r.records}, {r.key})
        self.assertEqual(r.results["assert x == 1"]["outcome"], "passed")

    def test_bad_job_is_a_harness_error(self):
        r = run_job({"format": "nonsense", "code": "x = 1\n"})   # no compile record
        self.assertEqual([x["type"] for x in r.records], ["harness_error", "done"])

    def test_nul_and_non_ascii_in_messages(self):
        r = self.run_job({"format": "asserts", "code": "",
                          "tests": ["assert False, 'a\\x00b ü 日本'"]})
        x = r.results[r.plan[0]]
        self.assertEqual(x["message"], "AssertionError: a\\x00b ü 日本")

    def test_long_traceback_is_capped(self):
        code = "def f(n):\n    return f(n + 1)\n"
        r = self.run_job({"format": "asserts", "code": code, "tests": ["assert f(0)"]})
        x = r.results[r.plan[0]]
        self.assertEqual(x["outcome"], "error")
        self.assertTrue(x["message"].startswith("RecursionError"), x)
        self.assertLessEqual(len(x["traceback"]), 4000)
        self.assertIn("Previous line repeated", x["traceback"])
        r = self.run_job({"format": "asserts", "code": "",
                          "tests": ["assert False, 'x' * 100000"]})
        x = r.results[r.plan[0]]
        self.assertLessEqual(len(x["traceback"]), 4000)
        self.assertIn("\n...\n", x["traceback"])
        self.assertLessEqual(len(x["message"]), 1000)

    def test_stdlib_frames_are_dropped(self):
        code = "import json\ndef parse(s):\n    return json.loads(s)\n"
        r = self.run_job({"format": "asserts", "code": code, "tests": ["assert parse('{')"]})
        tb = r.results[r.plan[0]]["traceback"]
        self.assertIn('File "solution.py", line 3, in parse', tb)
        self.assertNotIn("json/decoder.py", tb)
        self.assertTrue(tb.endswith("json.decoder.JSONDecodeError: Expecting property name "
                                    "enclosed in double quotes: line 1 column 2 (char 1)"), tb)


if __name__ == "__main__":
    main()

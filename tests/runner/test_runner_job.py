#!/usr/bin/env python3
"""JobFileTests: the runner's reading of its job description
(sbx_runner/job.py, load_job). It is read by its size, not into a buffer of
the largest size allowed: under an RLIMIT_AS a little above what the
interpreter maps (a memory limit without cgroups) a 64 MB buffer could not
be had, and the job failed as a harness error. A file past the bound is
still refused, and one that grew after its size was read is read whole.

Each case runs in a fresh python3 with the bundle on sys.path, outside the
jail.

Part of the in-jail test runner's suite; tests/runner/runner_support.py
says how the runner is run. Run from the repository root:  make runner-tests
  (or: make build/runner.pyz && python3 tests/runner/test_runner_job.py)
"""
import json
import os
import sys
import tempfile

sys.dont_write_bytecode = True  # runner_support stays uncompiled in the source tree

import unittest

from runner_support import dedent, main, run_probe

PROBE = dedent('''
    import json, resource, sys
    sys.path.insert(0, sys.argv[1])
    from sbx_runner import job
    path, mode = sys.argv[2], sys.argv[3]
    if mode == "small":
        job.JOB_MAX_BYTES = 100
    elif mode == "grow":
        import os
        real = os.fstat
        def fstat(fd):        # the size as it was before the file grew
            st = real(fd)
            return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink,
                                   st.st_uid, st.st_gid, 10, st.st_atime,
                                   st.st_mtime, st.st_ctime))
        os.fstat = fstat
    elif mode == "rlimit":
        # What the interpreter maps now, plus 32 MB: less than the bound.
        with open("/proc/self/statm") as f:
            vm = int(f.read().split()[0]) * resource.getpagesize()
        resource.setrlimit(resource.RLIMIT_AS, (vm + (32 << 20),) * 2)
    try:
        j = job.load_job(path)
        print(json.dumps({"ok": j["format"], "code": len(j["code"])}))
    except job.HarnessError as e:
        print(json.dumps({"error": str(e)}))
''')


class JobFileTests(unittest.TestCase):
    def load(self, content, mode="plain"):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write(content)
        try:
            rc, out, err = run_probe(PROBE, f.name, mode, timeout=30)
        finally:
            os.unlink(f.name)
        self.assertEqual(rc, 0, err)
        return json.loads(out)

    def job(self, n):
        return json.dumps({"format": "asserts", "code": "x" * n, "tests": []})

    def test_read_whole(self):
        self.assertEqual(self.load(self.job(5000)), {"ok": "asserts", "code": 5000})

    def test_under_an_address_space_limit(self):
        # The control: the same limit refuses the old way's buffer.
        _, out, _ = run_probe(dedent('''
                import resource
                with open("/proc/self/statm") as f:
                    vm = int(f.read().split()[0]) * resource.getpagesize()
                resource.setrlimit(resource.RLIMIT_AS, (vm + (32 << 20),) * 2)
                try:
                    with open("/dev/null", "rb") as f:
                        f.read((64 << 20) + 1)
                    print("read")
                except MemoryError:
                    print("MemoryError")
            '''), timeout=30)
        self.assertEqual(out.strip(), "MemoryError")
        self.assertEqual(self.load(self.job(5000), "rlimit"), {"ok": "asserts", "code": 5000})

    def test_past_the_bound_is_refused(self):
        self.assertEqual(self.load(self.job(200), "small"), {"error": "job is too large"})
        self.assertEqual(self.load(self.job(10), "small"), {"ok": "asserts", "code": 10})

    def test_a_file_that_grew_is_read_on(self):
        self.assertEqual(self.load(self.job(3000), "grow"), {"ok": "asserts", "code": 3000})


if __name__ == "__main__":
    main()

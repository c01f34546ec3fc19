#!/usr/bin/env python3
"""`make install` and `make uninstall` (and the systemd units they install):

- into a DESTDIR staging tree with PREFIX=/opt/sbx: exactly the expected
  files, sandboxd-init and sandboxd-reaper root's and writable by root alone
  (the daemon refuses them otherwise), the units with the binaries' path
  substituted; the installed daemon answers --help, and runs a job finding
  its policies, runner and job init through its default paths (relative to
  its own binary) alone, then a warm job whose pid 1 is sandboxd-reaper;
  without sandboxd-reaper it says so and its warm jobs' pid 1 is
  sandboxd-init's copy of the reaper;
- `make uninstall` then leaves no file of ours, and nothing else removed;
- `systemd-analyze verify` on the units installed under a real PREFIX, with
  their man: references resolved against the installed pages (skipped with
  the reason when systemd-analyze is missing).
Each check has a control that can fail. Run as root from the tree's root,
after `make all` (make check builds it). Environment: SBX_BUILD.
"""
import glob
import json
import os
import sys
import shutil
import socket
import stat
import subprocess
import tempfile
import time
import unittest

from ops_support import BUILD, make, run, skip

PREFIX = "/opt/sbx"
UNITS = ["sandboxd.socket", "sandboxd.service", "sandboxd-http.service"]


def expected(prefix):
    """Every file make install writes under prefix (relative to DESTDIR)."""
    bins = ["sandboxd", "sandboxd-init", "sandboxd-reaper", "sbx"]
    if os.access(BUILD + "/sandboxd-http", os.X_OK):
        bins.append("sandboxd-http")
    files = ["bin/" + b for b in bins] + ["lib/libsbx.a", "include/sbx.h",
                                          "share/sandboxd/runner.pyz",
                                          "share/sandboxd/libsbxwarm.so",
                                          "lib/sysusers.d/sandboxd.conf"]
    files += ["share/sandboxd/policies/" + os.path.basename(p) for p in glob.glob("policies/*.json")]
    files += ["share/doc/sandboxd/" + os.path.basename(p)
              for p in ["README.md", "SECURITY.md"] + glob.glob("docs/*.md")]
    files += ["share/man/man%s/%s" % (p[-1], os.path.basename(p)) for p in glob.glob("docs/man/*.[1-8]")]
    files += ["lib/systemd/system/" + u for u in UNITS]
    # The Python client, into this interpreter's dist-packages (make install-python).
    site = "lib/python%d.%d/dist-packages/sandboxd/" % sys.version_info[:2]
    files += [site + os.path.basename(p) for p in glob.glob("client/python/sandboxd/*.py")]
    return sorted(prefix.lstrip("/") + "/" + f for f in files)


def tree(root):
    """Every non-directory under root, relative."""
    out = []
    for d, _, fs in os.walk(root):
        out += [os.path.relpath(os.path.join(d, f), root) for f in fs]
    return sorted(out)


def install(dest, prefix, target="install"):
    env = {"PREFIX": prefix}
    args = [target, "PREFIX=" + prefix]
    if dest:
        args.append("DESTDIR=" + dest)
    r = make("BUILD=" + BUILD, *args, env=env)
    return r


class Install(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.mkdtemp(prefix="sbx-install.")
        os.chmod(cls.tmp, 0o755)

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_install_tree_then_uninstall(self):
        dest = os.path.join(self.tmp, "dest")
        r = install(dest, PREFIX)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(tree(dest), expected(PREFIX))
        bindir = dest + PREFIX + "/bin"
        for b in ("sandboxd-init", "sandboxd-reaper"):
            st = os.stat(bindir + "/" + b)
            if os.geteuid() == 0:
                self.assertEqual(st.st_uid, 0, b)
            self.assertEqual(stat.S_IMODE(st.st_mode), 0o755, b)
        unitdir = dest + PREFIX + "/lib/systemd/system"
        for u in UNITS:
            with open(os.path.join(unitdir, u)) as f:
                text = f.read()
            self.assertNotIn("/usr/local/", text, u)
        with open(os.path.join(unitdir, "sandboxd.service")) as f:
            self.assertIn("exec %s/bin/sandboxd --socket" % PREFIX, f.read())
        r = run([bindir + "/sandboxd", "--help"])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("--socket", r.stdout)
        self.run_installed_job(bindir)
        # Without sandboxd-reaper the fork servers run sandboxd-init's copy
        # of it (the control: the same check found sandboxd-reaper above).
        os.rename(bindir + "/sandboxd-reaper", self.tmp + "/reaper-aside")
        self.run_installed_job(bindir, reaper="sandboxd-init")
        os.rename(self.tmp + "/reaper-aside", bindir + "/sandboxd-reaper")
        # Uninstall removes ours and nothing else.
        foreign = dest + PREFIX + "/bin/not-ours"
        with open(foreign, "w") as f:
            f.write("x")
        r = install(dest, PREFIX, "uninstall")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(tree(dest), [PREFIX.lstrip("/") + "/bin/not-ours"])
        for d in ["share/sandboxd", "share/doc/sandboxd"]:
            self.assertFalse(os.path.exists(dest + PREFIX + "/" + d), d)

    def run_installed_job(self, bindir, reaper="sandboxd-reaper"):
        """The installed daemon with no path flags: policies, runner and init
        are found from its own binary's directory; then, once its fork
        servers are ready, a job on the warm path, whose pid 1 is the reaper
        found beside it (or, where there is none, the init's copy, which
        the log names)."""
        if os.geteuid() != 0:
            skip(self, "the daemon needs root")
        d = tempfile.mkdtemp(prefix="sbx-inst-run.", dir=self.tmp)
        sock, log = d + "/sock", d + "/log"
        uid_base = str(200000 + (os.getpid() % 100000) * 512 + 256)
        with open(log, "w") as lf:
            p = subprocess.Popen([bindir + "/sandboxd", "--socket", sock, "--state-dir",
                                  d + "/state", "--workers", "1", "--uid-base", uid_base],
                                 stdout=lf, stderr=subprocess.STDOUT)

        def call(req):
            c = socket.socket(socket.AF_UNIX)
            try:
                c.connect(sock)
                c.settimeout(30)
                c.sendall(json.dumps(req).encode() + b"\n")
                return json.loads(c.makefile().readline())
            finally:
                c.close()
        try:
            resp = None
            for _ in range(200):
                if p.poll() is not None:
                    break
                try:
                    resp = call({"id": "i1", "code": "print(6 * 7)"})
                    break
                except OSError:
                    time.sleep(0.05)
            with open(log) as f:
                text = f.read()
            self.assertIsNotNone(resp, "the installed daemon did not serve:\n" + text)
            self.assertEqual((resp.get("verdict"), resp.get("stdout")), ("pass", "42\n"),
                             json.dumps(resp))
            self.assertIn("policies %s/../share/sandboxd/policies" % bindir, text)
            for _ in range(600):
                ping = call({"id": "p", "op": "ping"})
                if ping.get("warm_ready", 0) >= max(ping.get("warm_servers", 0), 2):
                    break
                time.sleep(0.1)
            resp = call({"id": "i2", "code": "print(6 * 9)"})
            self.assertEqual((resp.get("verdict"), resp.get("stdout"), resp.get("path")),
                             ("pass", "54\n", "warm"), json.dumps(resp))
            with open(log) as f:
                text = f.read()
            said = "fork servers start each job's reaper from sandboxd-init" in text
            self.assertEqual(said, reaper == "sandboxd-init", text)
        finally:
            p.terminate()
            p.wait(10)

    def test_control_extra_file_is_seen(self):
        d = os.path.join(self.tmp, "ctl")
        os.makedirs(d + "/a")
        open(d + "/a/f", "w").close()
        self.assertNotEqual(tree(d), [])


class Units(unittest.TestCase):
    def setUp(self):
        if not shutil.which("systemd-analyze"):
            skip(self, "systemd-analyze is not installed (Debian: systemd)")
        self.tmp = tempfile.mkdtemp(prefix="sbx-units.")
        os.chmod(self.tmp, 0o755)

    def tearDown(self):
        shutil.rmtree(self.tmp, ignore_errors=True)

    def verify(self, *units, man_dir=None):
        env = dict(os.environ)
        if man_dir:
            env["MANPATH"] = man_dir
        r = run(["systemd-analyze", "verify", "--man=%s" % ("yes" if man_dir else "no")]
                + list(units), env=env)
        return r.returncode, r.stderr + r.stdout

    def installed(self):
        prefix = os.path.join(self.tmp, "prefix")
        r = install(None, prefix)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        return prefix + "/lib/systemd/system", prefix + "/share/man"

    def test_daemon_units_verify_clean(self):
        unitdir, man = self.installed()
        rc, out = self.verify(unitdir + "/sandboxd.socket", unitdir + "/sandboxd.service",
                              man_dir=man)
        self.assertEqual((rc, out), (0, ""))

    def test_http_unit_verifies_clean(self):
        unitdir, man = self.installed()
        rc, out = self.verify(unitdir + "/sandboxd-http.service", man_dir=man)
        if not os.access(BUILD + "/sandboxd-http", os.X_OK):
            lines = [l for l in out.splitlines() if "sandboxd-http is not executable" not in l]
            self.assertEqual(lines, [])
            skip(self, "sandboxd-http is not built: its unit verified except its ExecStart "
                       "binary")
        self.assertEqual((rc, out), (0, ""))

    def test_control_a_broken_unit_is_reported(self):
        bad = os.path.join(self.tmp, "sandboxd.service")
        with open("examples/systemd/sandboxd.service") as f:
            text = f.read().replace("Delegate=yes", "Delegat=yes")
        with open(bad, "w") as f:
            f.write(text)
        shutil.copy("examples/systemd/sandboxd.socket", self.tmp)
        _, out = self.verify(bad)
        self.assertIn("Unknown key", out)


if __name__ == "__main__":
    unittest.main(verbosity=1)

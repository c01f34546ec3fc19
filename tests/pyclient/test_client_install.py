"""The package installs without a network into a venv of Debian's Python,
with the build backend Debian provides (python3-setuptools), exactly as the
README says:

    /usr/bin/python3 -m venv --system-site-packages V
    V/bin/pip install --no-index --no-build-isolation ./client/python

and `make install-python` puts it where Debian's python3 imports it. Run by
make check-cluster-local (a venv and a build take several seconds)."""
import os
import shutil
import subprocess
import tempfile
import unittest

from pyclient_support import ROOT, Daemon


def sh(*cmd, **kw):
    p = subprocess.run(list(cmd), capture_output=True, text=True, timeout=300, **kw)
    if p.returncode != 0:
        raise AssertionError("%s: exit %d\n%s%s" % (" ".join(cmd), p.returncode, p.stdout,
                                                    p.stderr))
    return p.stdout


class Install(unittest.TestCase):
    def test_venv_install_offline(self):
        with tempfile.TemporaryDirectory() as t:
            # A copy, so the in-tree build leaves nothing in the checkout.
            src = os.path.join(t, "python")
            shutil.copytree(os.path.join(ROOT, "client", "python"), src,
                            ignore=shutil.ignore_patterns("__pycache__", "build", "*.egg-info"))
            v = os.path.join(t, "V")
            sh("/usr/bin/python3", "-m", "venv", "--system-site-packages", v)
            env = dict(os.environ, PIP_NO_INDEX="1", PIP_CONFIG_FILE=os.devnull)
            sh(os.path.join(v, "bin", "pip"), "install", "--no-index", "--no-build-isolation",
               src, env=env)
            d = Daemon(workers=1)
            try:
                out = sh(os.path.join(v, "bin", "python"), "-c",
                         "import sandboxd, sys; c = sandboxd.Client(socket=sys.argv[1]); "
                         "r = c.run('print(6 * 7)'); print(sandboxd.__file__); "
                         "print(r.verdict, r.stdout.strip())", d.sock, cwd=t)
            finally:
                d.cleanup()
            self.assertIn(os.path.join(v, "lib"), out)
            self.assertIn("pass 42", out)

    def test_make_install_python(self):
        with tempfile.TemporaryDirectory() as t:
            sh("make", "--no-print-directory", "-C", ROOT, "install-python", "DESTDIR=" + t)
            found = [os.path.join(dp, f) for dp, _, fs in os.walk(t) for f in fs]
            init = [f for f in found if f.endswith(os.path.join("sandboxd", "__init__.py"))]
            self.assertEqual(len(init), 1, found)
            site = os.path.dirname(os.path.dirname(init[0]))
            out = sh("/usr/bin/python3", "-c", "import sandboxd; print(sandboxd.__file__)",
                     env=dict(os.environ, PYTHONPATH=site), cwd=t)
            self.assertTrue(out.startswith(site), out)
            # The installed path is one Debian's python3 searches (with DESTDIR removed).
            path = sh("/usr/bin/python3", "-c", "import sys; print('\\n'.join(sys.path))")
            self.assertIn(site[len(t):], path.split("\n"))
            sh("make", "--no-print-directory", "-C", ROOT, "uninstall-python", "DESTDIR=" + t)
            self.assertFalse(os.path.exists(init[0]))


if __name__ == "__main__":
    unittest.main()

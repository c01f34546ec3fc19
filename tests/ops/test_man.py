#!/usr/bin/env python3
"""The man pages (docs/man/): each renders with man(1) without a single
warning, and every flag of `sandboxd --help`, every `sbx` subcommand and
flag (of `sbx --help`, `sbx eval --help`, `sbx check-reference --help`,
`sbx score --help`, `sbx report --help`) and the HTTP
front's flags appear in the page that documents them, so a flag added to a
program and not to its page fails here. Each check has a control showing it
can fail. Environment: SBX_BUILD (default build); the tree's root is the cwd.
"""
import glob
import os
import re
import shutil
import tempfile
import unittest

from ops_support import BUILD, run, skip

PAGES = sorted(glob.glob("docs/man/*.[1-8]"))
WANT = ["sandboxd.8", "sbx.1", "sandboxd-http.8", "sandboxd-policy.5", "sandboxd-protocol.7"]
FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")


def render_warnings(path):
    """man's stderr rendering path (warnings on), and its stdout."""
    env = dict(os.environ, MANWIDTH="80", LC_ALL="C.UTF-8")
    r = run(["man", "--warnings", "-l", "-E", "UTF-8", path], env=env)
    return r.returncode, r.stderr, r.stdout


def page_text(name):
    """The page's source with roff escapes for hyphens and fonts undone."""
    with open(os.path.join("docs/man", name), encoding="utf-8") as f:
        s = f.read()
    s = s.replace("\\-", "-")
    return re.sub(r"\\f[BIRP]", "", s)


def missing(flags, text):
    return sorted(f for f in flags if not re.search(re.escape(f) + r"(?![\w-])", text))


def help_text(*cmd):
    r = run(list(cmd))
    return r.stdout + r.stderr


class ManPages(unittest.TestCase):
    def setUp(self):
        if not shutil.which("man"):
            skip(self, "man(1) is not installed (Debian: man-db, groff-base; make deps)")

    def test_every_page_is_there(self):
        self.assertEqual(sorted(os.path.basename(p) for p in PAGES), sorted(WANT))

    def test_pages_render_without_warnings(self):
        for p in PAGES:
            rc, err, out = render_warnings(p)
            self.assertEqual(rc, 0, p)
            self.assertEqual(err, "", "%s: man warned:\n%s" % (p, err))
            self.assertIn("NAME", out, p)

    def test_control_a_broken_page_warns(self):
        with tempfile.TemporaryDirectory() as d:
            bad = os.path.join(d, "bad.1")
            with open(bad, "w") as f:
                f.write(".TH BAD 1\n.SH NAME\nbad \\- a page\n.XX undefined macro\n"
                        "text \\[nosuchchar]\n")
            rc, err, _ = render_warnings(bad)
        self.assertIn("warning", err)


class FlagsDocumented(unittest.TestCase):
    def test_sandboxd_flags(self):
        flags = set(FLAG.findall(help_text(BUILD + "/sandboxd", "--help")))
        self.assertIn("--socket", flags)
        self.assertEqual(missing(flags, page_text("sandboxd.8")), [])

    def test_sbx_subcommands_and_flags(self):
        top = help_text(BUILD + "/sbx", "--help")
        subs = set(re.findall(r"^\s*(?:usage:)?\s*sbx (?:\[--[a-z-]+ [A-Z]+\] )*([a-z][a-z-]*)",
                              top, re.M))
        self.assertEqual(subs, {"ping", "run", "eval", "check-reference", "score", "report"})
        text = page_text("sbx.1")
        for s in sorted(subs):
            self.assertRegex(text, r"\.B %s\b|\.B sbx %s\b" % (s, s), "subcommand " + s)
        flags = set(FLAG.findall(top))
        flags |= set(FLAG.findall(help_text(BUILD + "/sbx", "eval", "--help")))
        flags |= set(FLAG.findall(help_text(BUILD + "/sbx", "check-reference", "--help")))
        flags |= set(FLAG.findall(help_text(BUILD + "/sbx", "score", "--help")))
        flags |= set(FLAG.findall(help_text(BUILD + "/sbx", "report", "--help")))
        self.assertIn("--shard", flags)
        self.assertIn("--output", flags)
        self.assertEqual(missing(flags, text), [])

    def test_sandboxd_http_flags(self):
        flags = {"--listen", "--socket", "--token-file"}
        if os.access(BUILD + "/sandboxd-http", os.X_OK):
            flags |= set(FLAG.findall(help_text(BUILD + "/sandboxd-http", "--help")))
        self.assertEqual(missing(flags, page_text("sandboxd-http.8")), [])

    def test_control_an_undocumented_flag_is_found(self):
        self.assertEqual(missing({"--socket", "--no-such-flag", "--sock"},
                                 "--socket PATH\n"), ["--no-such-flag", "--sock"])


if __name__ == "__main__":
    unittest.main(verbosity=1)

#!/usr/bin/env python3
"""`sbx report` in a real browser (make check-browser): headless Chromium
(Debian's `chromium`, installed by `make browser-deps`) renders the page of
two shards of fixture records written here. A screenshot must be a real
render (a PNG of the window's size with the plot's colours in it), and the
DOM after the page's script ran (--dump-dom) must show the records' own
numbers: the task count, each outcome's count, a known task's turns, and
the counts after a filter given in the URL (#setting=CF&outcome=unsolved:
--dump-dom cannot click). Hostile task ids and code must stay text. A
control renders the page with its script taken out and sees no timeline,
so the DOM checks do test what the script does. Without Chromium every browser test skips
and says why; the command-line checks (exit codes, no external asset)
need no browser.

Environment: SBX_BUILD (default build); the tree's root is the cwd.
"""
import json
import os
import pathlib
import shutil
import struct
import subprocess
import sys
import tempfile
import unittest
import urllib.parse
import zlib
from html.parser import HTMLParser

BUILD = os.environ.get("SBX_BUILD", "build")
SBX = os.path.join(BUILD, "sbx")
WINDOW = (1280, 2000)
HOSTILE = '</script><script>document.body.dataset.pwned=1</script><img src=x onerror="document.body.dataset.pwned=2">'
SETTINGS = ["CF", "CF_EF_FULL"]
TURNS = 3
# First passing turn of BigCodeBench/0..5 per setting (None: never).
FIRST_PASS = {"CF": [0, None, 2, None, 1, None], "CF_EF_FULL": [0, 1, 2, 3, None, None]}
# (setting, task index, turn) with a generator error.
GEN_ERRORS = {("CF_EF_FULL", 4, 1), ("CF", 5, 0)}
KNOWN = ("CF_EF_FULL", "BigCodeBench/3")


def skip(test, reason):
    sys.stderr.write("\nSKIP: browser/%s: %s\n" % (test.id().split(".", 1)[-1], reason))
    raise unittest.SkipTest(reason)


def records():
    out = []
    for s in SETTINGS:
        for k, fp in enumerate(FIRST_PASS[s]):
            for turn in range(TURNS + 1):
                passed = fp is not None and turn >= fp
                r = {"run_id": "r1", "model": "fixture", "setting": s,
                     "task_id": "BigCodeBench/%d" % k, "turn": turn, "turns": TURNS,
                     "mode": "live", "time": "2025-01-01T00:00:0%dZ" % turn,
                     "code": "def task_func(x):\n    return x + %d\n" % min(turn, fp or turn),
                     "verdict": "pass" if passed else "fail",
                     "summary": {"total": 4, "passed": 4 if passed else 1},
                     "feedback": {"compilation": "No syntax errors",
                                  "execution": "" if s == "CF" else "test_one failed",
                                  "verbal": ""},
                     "generator_ms": 3, "generator_error": None, "verbal_error": None,
                     "carried": fp is not None and turn > fp,
                     "user_message": "## Task\nAdd %d" % k}
                if (s, k, turn) in GEN_ERRORS:
                    r["generator_error"] = "generator exited with status 1"
                    r["generator_stderr"] = "Traceback: boom"
                out.append(r)
    out.append({"setting": "CF", "task_id": HOSTILE, "turn": 0, "turns": TURNS,
                "code": "print('%s')\n" % HOSTILE, "verdict": "fail",
                "feedback": {"compilation": HOSTILE, "execution": "", "verbal": ""},
                "generator_error": HOSTILE, "user_message": HOSTILE})
    return out


class Row:
    """What the page should show of one task x setting."""

    def __init__(self, recs):
        self.setting = recs[0]["setting"]
        self.task = recs[0]["task_id"]
        self.turns = len(recs)
        self.solved = any(r["verdict"] == "pass" for r in recs)
        self.errors = any(r.get("generator_error") for r in recs)


def expected_rows(recs):
    by = {}
    for r in recs:
        by.setdefault((r["setting"], r["task_id"]), []).append(r)
    return [Row(v) for v in by.values()]


def count(rows, setting=None, outcome="all"):
    return sum(1 for r in rows if (setting is None or r.setting == setting) and
               (outcome == "all" or (outcome == "solved" and r.solved) or
                (outcome == "unsolved" and not r.solved) or (outcome == "errors" and r.errors)))


class Node:
    def __init__(self, tag, attrs, parent):
        self.tag, self.attrs, self.parent, self.children = tag, dict(attrs), parent, []

    def text(self):
        return "".join(c if isinstance(c, str) else c.text() for c in self.children)

    def all(self, pred=lambda n: True):
        for c in self.children:
            if isinstance(c, Node):
                if pred(c):
                    yield c
                yield from c.all(pred)

    def classes(self):
        return (self.attrs.get("class") or "").split()


class Dom(HTMLParser):
    """The serialized DOM as a tree (Chromium closes every non-void element)."""
    VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta",
            "source", "track", "wbr"}

    def __init__(self, text):
        super().__init__(convert_charrefs=True)
        self.root = self.cur = Node("#root", {}, None)
        self.feed(text)
        self.close()

    def handle_starttag(self, tag, attrs):
        n = Node(tag, attrs, self.cur)
        self.cur.children.append(n)
        if tag not in self.VOID:
            self.cur = n

    def handle_startendtag(self, tag, attrs):
        self.cur.children.append(Node(tag, attrs, self.cur))

    def handle_endtag(self, tag):
        n = self.cur
        while n is not self.root and n.tag != tag:
            n = n.parent
        if n is not self.root:
            self.cur = n.parent

    def handle_data(self, data):
        self.cur.children.append(data)

    def by_id(self, i):
        found = list(self.root.all(lambda n: n.attrs.get("id") == i))
        return found[0] if found else None

    def rows(self):
        return list(self.root.all(lambda n: n.tag == "details" and "row" in n.classes()))


def png_pixels(data):
    """(width, height, rows of RGB(A) tuples) of an 8-bit RGB/RGBA PNG."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    assert depth == 8 and ctype in (2, 6), "PNG type %d/%d" % (depth, ctype)
    bpp = 3 if ctype == 2 else 4
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line))
        prev = line
    return w, h, [[tuple(r[i:i + 3]) for i in range(0, stride, bpp)] for r in rows]


class Fixture:
    """Two shards of records (tasks split by parity) and their page."""

    def __init__(self):
        self.dir = tempfile.mkdtemp(prefix="sbx-browser.")
        self.recs = records()
        self.rows = expected_rows(self.recs)
        self.shards = []
        for i in range(2):
            d = os.path.join(self.dir, "shard-%d" % i)
            os.mkdir(d)
            with open(os.path.join(d, "turns.jsonl"), "w") as f:
                for r in self.recs:
                    if hash_shard(r["task_id"]) == i:
                        f.write(json.dumps(r) + "\n")
            self.shards.append(d)
        self.page = os.path.join(self.dir, "report.html")
        r = subprocess.run([SBX, "report", "-o", self.page] + self.shards,
                           capture_output=True, text=True)
        if r.returncode != 0:
            raise RuntimeError("sbx report failed: %s" % r.stderr)
        self.stdout = r.stdout


def hash_shard(task):
    digits = "".join(c for c in task if c.isdigit())
    return int(digits) % 2 if digits else 0


class ReportCommand(unittest.TestCase):
    """The command line, no browser needed."""

    @classmethod
    def setUpClass(cls):
        cls.fx = Fixture()

    @classmethod
    def tearDownClass(cls):
        shutil.rmtree(cls.fx.dir, ignore_errors=True)

    def run_sbx(self, *args):
        return subprocess.run([SBX] + list(args), capture_output=True, text=True)

    def test_written_and_said(self):
        self.assertIn("wrote %s (7 tasks, 13 timelines, %d records)" %
                      (self.fx.page, len(self.fx.recs)), self.fx.stdout)

    def test_exit_codes(self):
        r = self.run_sbx("report", "--help")
        self.assertEqual(r.returncode, 0)
        self.assertIn("usage: sbx report", r.stdout)
        self.assertEqual(self.run_sbx("report").returncode, 2)
        self.assertEqual(self.run_sbx("report", *self.fx.shards).returncode, 2)  # no -o
        self.assertEqual(self.run_sbx("report", "--bogus", self.fx.shards[0]).returncode, 2)
        r = self.run_sbx("report", "-o", os.path.join(self.fx.dir, "x.html"),
                         os.path.join(self.fx.dir, "nowhere"))
        self.assertEqual(r.returncode, 1)
        self.assertIn("nowhere", r.stderr)
        empty = os.path.join(self.fx.dir, "empty")
        os.makedirs(empty, exist_ok=True)
        open(os.path.join(empty, "turns.jsonl"), "w").close()
        r = self.run_sbx("report", empty)
        self.assertEqual(r.returncode, 1)
        self.assertIn("no records", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(empty, "report.html")))
        r = self.run_sbx("report", "-o", os.path.join(self.fx.dir, "no", "such", "r.html"),
                         self.fx.shards[0])
        self.assertEqual(r.returncode, 1)
        self.assertIn("no/such/r.html", r.stderr)
        # One directory: the page goes into it.
        r = self.run_sbx("report", self.fx.shards[1])
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertTrue(os.path.exists(os.path.join(self.fx.shards[1], "report.html")))

    def test_self_contained(self):
        with open(self.fx.page, encoding="utf-8") as f:
            page = f.read()
        start = page.index('<script type="application/json" id="report-data">')
        markup = page[:start] + page[page.index("</script>", start):]
        for bad in ("<link", " src=", "@import", "url(", "<iframe", "<object", "<embed",
                    "https:"):
            self.assertNotIn(bad, markup)
        self.assertIn("default-src 'none'", markup)
        self.assertEqual(page.count("<script"), 2)


class ReportInChromium(unittest.TestCase):
    chromium = None

    @classmethod
    def setUpClass(cls):
        for name in ("chromium", "chromium-browser"):
            if shutil.which(name):
                cls.chromium = shutil.which(name)
                break
        cls.fx = Fixture() if cls.chromium else None
        cls.profile = tempfile.mkdtemp(prefix="sbx-chromium.")

    @classmethod
    def tearDownClass(cls):
        if cls.fx:
            shutil.rmtree(cls.fx.dir, ignore_errors=True)
        shutil.rmtree(cls.profile, ignore_errors=True)

    def setUp(self):
        if not self.chromium:
            skip(self, "no chromium on PATH (Debian: apt-get install chromium; "
                 "make browser-deps)")

    def browse(self, *args, fragment="", extra=()):
        url = pathlib.Path(self.fx.page).as_uri() + ("#" + fragment if fragment else "")
        cmd = [self.chromium, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
               "--disable-extensions", "--hide-scrollbars", "--user-data-dir=" + self.profile,
               "--window-size=%d,%d" % WINDOW] + list(extra) + list(args) + [url]
        try:
            r = subprocess.run(cmd, capture_output=True, timeout=180)
        except subprocess.TimeoutExpired:
            self.fail("chromium did not finish in 180 s: %s" % " ".join(cmd))
        self.assertEqual(r.returncode, 0, r.stderr.decode(errors="replace")[-2000:])
        return r.stdout.decode()

    def dom(self, **filters):
        d = Dom(self.browse("--dump-dom", fragment=urllib.parse.urlencode(filters)))
        self.assertIsNotNone(d.by_id("report-data"), "not the report's DOM")
        return d

    def number(self, dom, i):
        n = dom.by_id(i)
        self.assertIsNotNone(n, "no #%s in the DOM" % i)
        return int(n.text())

    def assert_counts(self, dom, setting=None, outcome="all"):
        rows = self.fx.rows
        for o in ("all", "solved", "unsolved", "errors"):
            self.assertEqual(self.number(dom, "n-" + o), count(rows, setting, o), o)
        want = count(rows, setting, outcome)
        self.assertEqual(self.number(dom, "n-shown"), want)
        shown = dom.rows()
        self.assertEqual(len(shown), want)
        for r in shown:
            if setting:
                self.assertEqual(r.attrs["data-setting"], setting)
            if outcome in ("solved", "unsolved"):
                self.assertEqual(r.attrs["data-outcome"], outcome)
            if outcome == "errors":
                self.assertEqual(r.attrs.get("data-errors"), "yes")

    def test_screenshot_is_a_render(self):
        shot = os.path.join(self.fx.dir, "shot.png")
        self.browse("--screenshot=" + shot)
        with open(shot, "rb") as f:
            data = f.read()
        self.assertGreater(len(data), 20000)
        w, h, px = png_pixels(data)
        self.assertEqual((w, h), WINDOW)
        # Text, table, the plot's coloured lines and the verdict chips:
        # many colours and a fair share of non-white pixels.
        seen, ink = set(), 0
        for y in range(0, h, 2):
            for x in range(0, w, 2):
                p = px[y][x]
                seen.add(p)
                ink += p != (255, 255, 255)
        self.assertGreater(len(seen), 50)
        self.assertGreater(ink / ((h // 2) * (w // 2)), 0.02)
        # The plot's first colour (#1f77b4, CF's line) is drawn.
        self.assertTrue(any(abs(p[0] - 0x1f) + abs(p[1] - 0x77) + abs(p[2] - 0xb4) < 30
                            for p in seen))

    def test_counts_of_the_records(self):
        d = self.dom()
        self.assertEqual(d.by_id("n-tasks").text(),
                         str(len({r["task_id"] for r in self.fx.recs})))
        self.assertEqual(self.number(d, "n-records"), len(self.fx.recs))
        self.assertEqual(self.number(d, "n-rows"), len(self.fx.rows))
        self.assert_counts(d)
        body = next(d.root.all(lambda n: n.tag == "body"))
        self.assertEqual(body.attrs.get("data-ready"), "yes")

    def test_filter_from_the_url(self):
        self.assert_counts(self.dom(setting="CF", outcome="unsolved"), "CF", "unsolved")
        self.assertEqual(count(self.fx.rows, "CF", "unsolved"), 4)
        self.assert_counts(self.dom(setting="CF_EF_FULL", outcome="solved"), "CF_EF_FULL",
                           "solved")
        self.assert_counts(self.dom(outcome="errors"), None, "errors")
        # An unknown setting is no filter at all.
        self.assert_counts(self.dom(setting="NOPE"))

    def test_known_task_timeline(self):
        setting, task = KNOWN
        want = [r for r in self.fx.recs if r["setting"] == setting and r["task_id"] == task]
        d = self.dom(setting=setting, task=task)
        rows = d.rows()
        self.assertEqual(len(rows), 1)
        row = rows[0]
        self.assertIn("open", row.attrs)
        self.assertIn("%d turns" % len(want), row.text())
        turns = list(row.all(lambda n: n.tag == "li" and "turn" in n.classes()))
        self.assertEqual([t.attrs["data-turn"] for t in turns],
                         [str(r["turn"]) for r in want])
        for t, r in zip(turns, want):
            verdict = next(t.all(lambda n: "verdict" in n.classes())).text()
            self.assertEqual(verdict, r["verdict"])
        # Turn 1 changed "+ 0" to "+ 1": the diff shows both lines.
        diff = next(turns[1].all(lambda n: n.tag == "pre" and "diff" in n.classes()))
        lines = [n.text() for n in diff.all(lambda n: n.tag == "span")]
        self.assertIn("-    return x + 0", lines)
        self.assertIn("+    return x + 1", lines)
        # Its execution feedback is shown with the turn.
        self.assertIn("test_one failed", turns[0].text())
        # A generator error and its stderr, where there was one.
        d = self.dom(setting="CF_EF_FULL", task="BigCodeBench/4")
        t1 = [t for t in d.rows()[0].all(lambda n: n.tag == "li" and "turn" in n.classes())][1]
        self.assertIn("generator exited with status 1", t1.text())
        self.assertIn("Traceback: boom", t1.text())
        # Carried turns: their code and feedback are kept once in the data
        # (marked "same"); the page still shows them at every turn.
        d = self.dom(setting="CF_EF_FULL", task="BigCodeBench/1")
        turns = list(d.rows()[0].all(lambda n: n.tag == "li" and "turn" in n.classes()))
        self.assertEqual(len(turns), TURNS + 1)
        code = "def task_func(x):\n    return x + 1\n"
        for t in turns[1:]:
            self.assertIn(code, [p.text() for p in t.all(lambda n: n.tag == "pre")])
            self.assertIn("test_one failed", t.text())
        self.assertIn("Code unchanged from turn 2.", turns[3].text())

    def test_hostile_text_stays_text(self):
        d = self.dom(task=HOSTILE)
        body = next(d.root.all(lambda n: n.tag == "body"))
        self.assertNotIn("data-pwned", body.attrs)
        self.assertEqual(list(d.root.all(lambda n: n.tag == "img")), [])
        self.assertEqual(len(list(d.root.all(lambda n: n.tag == "script"))), 2)
        rows = d.rows()
        self.assertEqual(len(rows), 1)
        task = next(rows[0].all(lambda n: "task" in n.classes()))
        self.assertEqual(task.text(), HOSTILE)
        pres = [p.text() for p in rows[0].all(lambda n: n.tag == "pre")]
        self.assertIn("print('%s')\n" % HOSTILE, pres)
        self.assertIn(HOSTILE, pres)

    def test_control_without_the_script(self):
        # The same page with its script taken out: the DOM has the page but
        # no rows, counts or ready mark. So the checks above see what the
        # script did. (Chromium's --dump-dom needs scripts enabled itself.)
        with open(self.fx.page, encoding="utf-8") as f:
            page = f.read()
        start = page.rindex("<script>\n") + len("<script>\n")
        bare = page[:start] + page[page.index("</script>", start):]
        self.assertLess(len(bare), len(page) - 1000)
        with open(self.fx.page, "w", encoding="utf-8") as f:
            f.write(bare)
        try:
            d = Dom(self.browse("--dump-dom"))
        finally:
            with open(self.fx.page, "w", encoding="utf-8") as f:
                f.write(page)
        body = next(d.root.all(lambda n: n.tag == "body"))
        self.assertNotIn("data-ready", body.attrs)
        self.assertEqual(d.by_id("n-tasks").text(), "7")
        self.assertEqual(d.rows(), [])
        self.assertIsNone(d.by_id("n-unsolved"))

if __name__ == "__main__":
    unittest.main(verbosity=1)

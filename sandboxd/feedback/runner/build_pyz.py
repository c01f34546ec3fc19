#!/usr/bin/env python3
"""Builds the in-jail runner bundle (run by the Makefile):

    python3 build_pyz.py RECORDS_H SRC_DIR OUT

OUT is a zipapp, the layout `python3 -m zipapp` makes: SRC_DIR/__main__.py at
the root and the SRC_DIR/sbx_runner package beside it, plus
sbx_runner/records_h.py, generated here from RECORDS_H (common/records.h) so
the runner's record names and caps are the daemon's.  Only the package's .py
files go in (no __pycache__, not this script), each with its bytecode.

The bytecode: zipimport compiles a module from source twice (once to name its
file), which made every job's start ~5 ms of CPU slower than the single-file
runner; with bytecode in the archive it compiles nothing.  Each .pyc is a
checked hash-based one (PEP 552) for this interpreter's version, so run this
with the jail's interpreter: zipimport checks it against the .py beside it and
falls back to the source when it does not match or was made for another
Python version.  Its code objects name their file "sbx_runner/<module>.py",
wherever the archive is.

The archive is reproducible, which Python 3.11's zipapp is not (it stores the
files' mtimes and walks the tree in directory order): entries sorted by name,
a fixed timestamp (1980-01-01, the earliest a zip can hold), fixed modes, no
compression (importing it then needs no zlib), bytecode compiled under a
fixed hash seed.  The same sources and interpreter give the same bytes.  OUT
is written beside itself and renamed into place.
"""

import os
import py_compile
import re
import sys
import tempfile
import zipfile

PACKAGE = "sbx_runner"
GENERATED = PACKAGE + "/records_h.py"
FIXED_TIME = (1980, 1, 1, 0, 0, 0)

_STR = re.compile(r'#define\s+(REC_[A-Z0-9_]+)\s+"([^"\\]*)"$')
_INT = re.compile(r"#define\s+(REC_[A-Z0-9_]+)\s+([0-9]+)$")
_GUARD = re.compile(r"#(ifndef|define)\s+SBX_RECORDS_H$|#endif$")


def parse_records_h(text, path="records.h"):
    """[(name, value)] in the header's order; anything the generator does
    not understand is an error, so nothing in the header is silently left
    out of the Python side."""
    text = re.sub(r"/\*.*?\*/", "", text, flags=re.S)
    out, seen = [], set()
    for n, line in enumerate(text.splitlines(), 1):
        line = line.strip()
        if not line or _GUARD.match(line):
            continue
        m = _STR.match(line) or _INT.match(line)
        if not m:
            raise SystemExit("%s:%d: not a REC_ string or decimal define: %s"
                             % (path, n, line))
        name, value = m.group(1), m.group(2)
        if name in seen:
            raise SystemExit("%s:%d: %s defined twice" % (path, n, name))
        seen.add(name)
        out.append((name, value if m.re is _STR else int(value)))
    if not out:
        raise SystemExit("%s: no REC_ defines" % path)
    return out


def records_module(defs):
    lines = ['"""The result records\' names and caps, generated from '
             'common/records.h',
             'by sandboxd/feedback/runner/build_pyz.py: edit the header, '
             'not this file."""', ""]
    lines += ["%s = %r" % (name, value) for name, value in defs]
    return "\n".join(lines) + "\n"


def sources(src_dir):
    """{archive name: source bytes} of __main__.py and the package."""
    files = {"__main__.py": os.path.join(src_dir, "__main__.py")}
    pkg = os.path.join(src_dir, PACKAGE)
    for name in os.listdir(pkg):
        if name.endswith(".py"):
            files[PACKAGE + "/" + name] = os.path.join(pkg, name)
    if GENERATED in files:
        raise SystemExit("%s is generated; remove it from the source tree"
                         % files[GENERATED])
    out = {}
    for arc, path in files.items():
        with open(path, "rb") as f:
            out[arc] = f.read()
    return out


def bytecode(files):
    """{name.pyc: checked hash-based bytecode} of the package's modules
    (__main__.py is run by runpy from its source).  A syntax error stops the
    build rather than a job."""
    out = {}
    with tempfile.TemporaryDirectory() as tmp:
        src, pyc = os.path.join(tmp, "m.py"), os.path.join(tmp, "m.pyc")
        for arc, data in files.items():
            compile(data, arc, "exec", dont_inherit=True)
            if not arc.startswith(PACKAGE + "/"):
                continue
            with open(src, "wb") as f:
                f.write(data)
            py_compile.compile(src, pyc, dfile=arc, doraise=True, optimize=0,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
            with open(pyc, "rb") as f:
                out[arc + "c"] = f.read()
    return out


def build(records_h, src_dir, out):
    with open(records_h, encoding="utf-8") as f:
        defs = parse_records_h(f.read(), records_h)
    files = sources(src_dir)
    files[GENERATED] = records_module(defs).encode("utf-8")
    files.update(bytecode(files))
    tmp = out + ".tmp"
    with zipfile.ZipFile(tmp, "w", zipfile.ZIP_STORED) as z:
        for arc in sorted(files):
            info = zipfile.ZipInfo(arc, date_time=FIXED_TIME)
            info.compress_type = zipfile.ZIP_STORED
            info.create_system = 3                       # Unix
            info.external_attr = 0o100644 << 16          # a regular file, rw-r--r--
            z.writestr(info, files[arc])
    os.chmod(tmp, 0o644)
    os.replace(tmp, out)


def main(argv):
    if len(argv) != 4:
        raise SystemExit("usage: build_pyz.py RECORDS_H SRC_DIR OUT")
    if os.environ.get("PYTHONHASHSEED") != "0":
        # Set constants (`x in {"a", "b"}`) are marshalled in hash order.
        os.environ["PYTHONHASHSEED"] = "0"
        os.execv(sys.executable, [sys.executable, "-B"] + argv)
    build(argv[1], argv[2], argv[3])


if __name__ == "__main__":
    main(sys.argv)

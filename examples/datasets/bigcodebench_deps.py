#!/usr/bin/python3
"""make deps-bigcodebench: installs the Debian packages that BigCodeBench's
tasks import (the dataset's `libs` field), where Debian has one, and prints
the libraries it has none for, with how many tasks need each: those tasks'
reference solutions fail here with ModuleNotFoundError (`sbx eval
--check-reference` lists them). The standard library is skipped.

usage: bigcodebench_deps.py [--dry-run] [DATASET]   (default: the shared
BigCodeBench.jsonl.gz, $SBX_DATASETS or ../shared/datasets)"""
import ast
import collections
import gzip
import json
import os
import subprocess
import sys

# Import name -> Debian package, where the two differ (else python3-<name>
# in lower case). Checked against Debian 12's archive.
PACKAGE = {
    "sklearn": "python3-sklearn", "bs4": "python3-bs4", "dateutil": "python3-dateutil",
    "cv2": "python3-opencv", "PIL": "python3-pil", "pytz": "python3-tz",
    "flask_mail": "python3-flask-mail", "flask_restful": "python3-flask-restful",
    "flask_login": "python3-flask-login", "flask_wtf": "python3-flaskext.wtf",
    "docx": "python3-docx", "skimage": "python3-skimage", "mpl_toolkits": "python3-matplotlib",
    "Crypto": "python3-pycryptodome", "yaml": "python3-yaml",
    "Levenshtein": "python3-levenshtein",
    # Debian's Faker is the old fake-factory 0.9.3 (module `faker`): newer
    # providers the tasks call may be missing.
    "faker": "python3-fake-factory",
}
# Standard-library modules Debian ships apart from the interpreter.
STDLIB_PACKAGE = {"turtle": "python3-tk", "tkinter": "python3-tk"}


def dataset_path(argv):
    if argv:
        return argv[0]
    base = os.environ.get("SBX_DATASETS") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "datasets")
    return os.path.join(base, "BigCodeBench.jsonl.gz")


def read_libs(path):
    """import name -> number of tasks that list it."""
    opener = gzip.open if path.endswith(".gz") else open
    need = collections.Counter()
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            if not line.strip():
                continue
            libs = json.loads(line).get("libs") or []
            if isinstance(libs, str):       # the published file: a Python list literal
                libs = ast.literal_eval(libs)
            need.update(set(str(x).split(".")[0] for x in libs))
    return need


def candidate(pkg):
    """The version apt would install, or None."""
    r = subprocess.run(["apt-cache", "policy", pkg], stdout=subprocess.PIPE,
                       stderr=subprocess.DEVNULL, text=True)
    for line in r.stdout.splitlines():
        line = line.strip()
        if line.startswith("Candidate:"):
            v = line.split(":", 1)[1].strip()
            return None if v in ("", "(none)") else v
    return None


def plan(need):
    """(packages to install: {package: [libs]}, libs without a package)."""
    stdlib = set(sys.stdlib_module_names)
    pkgs, missing = collections.defaultdict(list), []
    for lib in sorted(need):
        if lib in stdlib and lib not in STDLIB_PACKAGE:
            continue
        pkg = STDLIB_PACKAGE.get(lib) or PACKAGE.get(lib) or "python3-" + lib.lower().replace(
            "_", "-")
        if candidate(pkg):
            pkgs[pkg].append(lib)
        else:
            missing.append(lib)
    return pkgs, missing


def main(argv):
    dry = "--dry-run" in argv
    argv = [a for a in argv if a != "--dry-run"]
    path = dataset_path(argv)
    if not os.path.exists(path):
        print("bigcodebench deps: no dataset at %s" % path, file=sys.stderr)
        return 1
    if candidate("python3") is None:
        print("bigcodebench deps: apt knows no packages (run apt-get update first)",
              file=sys.stderr)
        return 1
    need = read_libs(path)
    pkgs, missing = plan(need)
    todo = sorted(p for p in pkgs if subprocess.run(
        ["dpkg-query", "-W", "-f=${Status}", p], stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, text=True).stdout.find("ok installed") < 0)
    print("Debian packages for %d libraries: %d, %d to install" % (
        sum(len(v) for v in pkgs.values()), len(pkgs), len(todo)))
    for p in sorted(pkgs):
        print("  %-28s %s%s" % (p, ", ".join(pkgs[p]), "" if p in todo else "  (installed)"))
    if todo and not dry:
        env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
        r = subprocess.run(["apt-get", "install", "-y", "-qq"] + todo, env=env)
        if r.returncode != 0:
            print("bigcodebench deps: apt-get install failed", file=sys.stderr)
            return r.returncode
    print("No Debian package (tasks that need each):")
    for lib in sorted(missing, key=lambda x: (-need[x], x)):
        print("  %-28s %d" % (lib, need[lib]))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

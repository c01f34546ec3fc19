"""The job description, /sandboxd/job.json, read and checked: a job the
runner cannot run is a HarnessError (not the candidate's fault)."""

import json
import os

# "main": run /work/main.py as a program (script.py); the code is that file.
FORMATS = ("unittest", "humaneval", "asserts", "compile", "main")
JOB_MAX_BYTES = 64 << 20


class HarnessError(Exception):
    """The job cannot be run as given (not the candidate's fault)."""


def load_job(path):
    try:
        with open(path, "rb") as f:
            # Sized by the file: a read of JOB_MAX_BYTES + 1 allocates that
            # much first (about 20 us of mmap per request, and it needs the
            # room under an RLIMIT_AS of 64 MB). A file that grows past its
            # size is read on, bounded as before.
            size = min(os.fstat(f.fileno()).st_size, JOB_MAX_BYTES)
            raw = f.read(size + 1)
            if len(raw) > size:
                raw += f.read(JOB_MAX_BYTES + 1 - len(raw))
    except OSError as e:
        raise HarnessError("cannot read job: %s" % e)
    if len(raw) > JOB_MAX_BYTES:
        raise HarnessError("job is too large")
    try:
        job = json.loads(raw)
    except ValueError as e:
        raise HarnessError("job is not valid JSON: %s" % e)
    if not isinstance(job, dict):
        raise HarnessError("job is not a JSON object")
    fmt = job.get("format")
    if fmt not in FORMATS:
        raise HarnessError("unknown format %r" % (fmt,))
    if fmt != "main" and not isinstance(job.get("code"), str):
        raise HarnessError("code must be a string")
    tests = job.get("tests")
    if fmt in ("unittest", "humaneval") and not isinstance(tests, str):
        raise HarnessError("tests must be a string for format %s" % fmt)
    if fmt == "asserts" and not (isinstance(tests, list) and
                                 all(isinstance(t, str) for t in tests)):
        raise HarnessError("tests must be a list of strings for asserts")
    ep = job.get("entry_point")
    if ep is not None and not isinstance(ep, str):
        raise HarnessError("entry_point must be a string or null")
    for k in ("test_timeout_ms", "seed"):
        v = job.get(k)
        if v is not None and (not isinstance(v, int) or isinstance(v, bool)):
            raise HarnessError("%s must be an integer or null" % k)
    tmo = job.get("test_timeout_ms")
    if tmo is not None and tmo <= 0:
        raise HarnessError("test_timeout_ms must be positive")
    pm = job.get("partial_mode", "fixed")
    if pm not in ("fixed", "convcodeworld"):
        raise HarnessError("unknown partial_mode %r" % (pm,))
    if pm == "convcodeworld":
        n = job.get("partial_tests")
        if fmt != "unittest":
            raise HarnessError("partial_mode convcodeworld is for unittest")
        if not isinstance(n, int) or isinstance(n, bool) or n < 1:
            raise HarnessError("partial_tests must be a positive integer")
    iso = job.get("isolation", "none")
    if iso not in ("none", "process"):
        raise HarnessError("unknown isolation %r" % (iso,))
    fn = job.get("filename") or "solution.py"
    if (not isinstance(fn, str) or len(fn) > 255 or
            any(c in fn for c in "\n\r\0\"")):
        raise HarnessError("bad filename")
    job["filename"] = fn
    return job

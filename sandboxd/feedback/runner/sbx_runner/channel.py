"""The result channel and what keeps it the runner's own: the key read and
its fd closed first, records written on a private CLOEXEC duplicate of fd 3
(fd 3 itself then points at /dev/null), no record from a forked child, and a
process other processes of the uid cannot open or read."""

import io
import json
import os
import sys

from . import records

PRIVATE_FD_MIN = 100


class Channel:
    def __init__(self, fd, key):
        self.fd = fd
        self.key = key
        self.pid = os.getpid()

    def forked(self):
        """at-fork hook: a child of os.fork() must never write records."""
        fd, self.fd = self.fd, -1
        try:
            os.close(fd)
        except OSError:
            pass

    def check_fork(self):
        if os.getpid() != self.pid or self.fd < 0:
            # A fork made by candidate code fell through into the harness:
            # it must not report (nor flush the parent's buffered output).
            os._exit(0)

    def emit(self, rec):
        self.check_fork()
        rec = records.clean(rec)
        rec[records.KEY] = self.key
        line = json.dumps(rec, ensure_ascii=False, separators=(",", ":"))
        data = (line + "\n").encode("utf-8", "replace")  # lone surrogates
        view = memoryview(data)
        while view:
            try:
                n = os.write(self.fd, view)
            except OSError:
                os._exit(3)      # the daemon is gone: nothing left to tell
            view = view[n:]


def fatal(msg):
    try:
        os.write(2, ("sandboxd runner: " + msg + "\n").encode())
    finally:
        os._exit(2)


def env_fd(name, default):
    v = os.environ.get(name)
    if v is None:
        return default
    try:
        return int(v)
    except ValueError:
        fatal(name + " is not a number")


def take_key(fd):
    chunks, total = [], 0
    try:
        while total <= 4096:
            b = os.read(fd, 4096)
            if not b:
                break
            chunks.append(b)
            total += len(b)
    finally:
        try:
            os.close(fd)
        except OSError:
            pass
    return b"".join(chunks).strip().decode("ascii", "replace")


def key_ok(key):
    return len(key) == records.KEY_LEN and \
        all(c in "0123456789abcdefABCDEF" for c in key)


def shadow_fd(fd):
    """Point fd at /dev/null: the candidate may still close or write it, but
    only the private duplicate reaches the daemon."""
    try:
        null = os.open("/dev/null", os.O_WRONLY | os.O_CLOEXEC)
    except OSError:
        return
    if null != fd:
        os.dup2(null, fd, inheritable=False)
        os.close(null)


def _libc_prctl():
    """libc's prctl through ctypes, or None (ctypes may be missing). Looked
    up when the runner is imported: in a fork server that is once, not in
    every job (1.5 ms of copied pages per job on the machine of the
    README)."""
    try:
        import ctypes
        return ctypes.CDLL(None, use_errno=True).prctl
    except Exception:
        return None


_PRCTL = _libc_prctl()


def set_nondumpable():
    # Stops other processes of the same uid from opening /proc/<pid>/fd/N or
    # reading our memory.  Best effort: ctypes may be missing.
    try:
        _PRCTL(4, 0, 0, 0, 0)            # PR_SET_DUMPABLE, 0
    except Exception:
        pass


def flush_std():
    """Flush what the candidate printed, so stdout is complete up to here even
    if the process dies next.  Only real files: a replacement sys.stdout is
    the candidate's object, and its flush() could do anything."""
    for s in (sys.stdout, sys.stderr, sys.__stdout__, sys.__stderr__):
        if isinstance(s, io.IOBase):
            try:
                s.flush()
            except BaseException:
                pass

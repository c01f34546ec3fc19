# Forged evidence: the job sends itself the signal a limit or the seccomp
# filter would send, @ROW.how@ @ROW.signal@, to be judged as @ROW.why@.
# A signal is no evidence (SECURITY.md, "The verdict"): a CPU limit is named
# only when the kernel's count of the job's CPU reached it, a violation only
# when the seccomp notifier saw the syscall, and SIGXFSZ never names a limit.
# So the job ends as runtime_error, with no limit and no violation, and the
# message names the signal. One job per row of sig_self_signal.json:
#   kill            os.kill(os.getpid(), sig)
#   raise           signal.raise_signal(sig)
#   timer           timer_create(CLOCK_MONOTONIC, SIGEV_SIGNAL sig) through
#                   ctypes, armed for 10 ms (a filter on kill/tgkill cannot
#                   see the number: it sits in a struct sigevent)
#   fsetsig_pipe    F_SETOWN to itself, F_SETSIG sig, O_ASYNC on a pipe's
#   fsetsig_socket  read end (or a socket pair's), then a write: the kernel
#                   delivers sig as the I/O-ready signal
# table: sig_self_signal.json
# expect: runtime_error
# limit_hit: none
# violation: none
# limits: {"cpu_ms": 10000, "wall_ms": 10000}
# stdout: contains SENDING @ROW.signal@ by @ROW.how@
# stdout: not-contains SURVIVED
# host: no-leftover
import ctypes
import fcntl
import os
import signal
import socket
import time

row = @ROW@
sig = getattr(signal, row["signal"])
# CPython ignores SIGXFSZ; the default action (terminate) is what a limit relies on.
signal.signal(sig, signal.SIG_DFL)
print("SENDING %s by %s" % (row["signal"], row["how"]), flush=True)

if row["how"] == "kill":
    os.kill(os.getpid(), sig)
elif row["how"] == "raise":
    signal.raise_signal(sig)
elif row["how"] == "timer":
    libc = ctypes.CDLL(None, use_errno=True)

    class Sigevent(ctypes.Structure):
        _fields_ = [("sigev_value", ctypes.c_void_p), ("sigev_signo", ctypes.c_int),
                    ("sigev_notify", ctypes.c_int), ("pad", ctypes.c_byte * 48)]

    class Itimerspec(ctypes.Structure):
        _fields_ = [("interval_s", ctypes.c_long), ("interval_ns", ctypes.c_long),
                    ("value_s", ctypes.c_long), ("value_ns", ctypes.c_long)]

    ev = Sigevent(sigev_signo=sig, sigev_notify=0)  # SIGEV_SIGNAL
    timer = ctypes.c_void_p()
    if libc.timer_create(1, ctypes.byref(ev), ctypes.byref(timer)) != 0:  # CLOCK_MONOTONIC
        print("timer_create failed: errno %d" % ctypes.get_errno(), flush=True)
    spec = Itimerspec(0, 0, 0, 10_000_000)
    if libc.timer_settime(timer, 0, ctypes.byref(spec), None) != 0:
        print("timer_settime failed: errno %d" % ctypes.get_errno(), flush=True)
else:
    if row["how"] == "fsetsig_pipe":
        r, w = os.pipe()
    else:
        a, b = socket.socketpair()
        r, w = a.fileno(), b.fileno()
    F_SETSIG = 10
    fcntl.fcntl(r, fcntl.F_SETOWN, os.getpid())
    fcntl.fcntl(r, F_SETSIG, sig)
    fcntl.fcntl(r, fcntl.F_SETFL, fcntl.fcntl(r, fcntl.F_GETFL) | os.O_ASYNC | os.O_NONBLOCK)
    os.write(w, b"x")
time.sleep(2)
print("SURVIVED", flush=True)

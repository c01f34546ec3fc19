# Look for the fork server this job was forked from (the warm path): its
# pid, its descriptors (the control socket, the server library), its memory
# and environment through /proc, its abstract sockets; signal every pid.
# None of it is reachable: the job sees only its own PID namespace, holds
# only its stdio, and the server stays the same, untouched.
# expect: pass
# stdout: contains HUNT-DONE
# stdout: not-contains FOUND
# host: warm-intact
# host: daemon-alive
import os
import signal

pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
if pids != [1, os.getpid()]:
    print("FOUND processes", pids)
fds = sorted(int(f) for f in os.listdir("/proc/self/fd"))
for fd in fds:
    if fd > 2:
        try:
            print("FOUND descriptor", fd, os.readlink("/proc/self/fd/%d" % fd))
        except OSError:
            pass
for what in ("environ", "mem", "maps", "root/", "cwd/", "fd/"):
    try:
        p = "/proc/1/" + what
        if what.endswith("/"):
            os.listdir(p)
        else:
            with open(p, "rb") as f:
                f.read(16)
        print("FOUND /proc/1/" + what, "readable")
    except OSError:
        pass
with open("/proc/net/unix") as f:
    for line in f.read().splitlines()[1:]:
        print("FOUND unix socket", line)
for pid in range(1, 4096):
    if pid == os.getpid():
        continue
    for sig in (signal.SIGKILL, signal.SIGSTOP):
        try:
            os.kill(pid, sig)
            print("FOUND could signal", pid)
        except OSError:
            pass
print("HUNT-DONE")

# parity probe: the open descriptors: every entry of /proc/self/fd with its
# readlink target and flags. Normalized: the inode number in "pipe:[N]",
# "socket:[N]" and "anon_inode:[...]" targets is a global counter that
# differs on every run even on the cold path; it is printed as the kind only.
import fcntl
import os
import re


def show(tag):
    fds = sorted(int(x) for x in os.listdir("/proc/self/fd"))
    for fd in fds:
        try:
            target = os.readlink("/proc/self/fd/%d" % fd)
        except OSError as e:
            print(tag, "fd", fd, "gone", e.errno)  # the listdir's own descriptor
            continue
        target = re.sub(r"^(pipe|socket):\[\d+\]$", r"\1:[N]", target)
        try:
            fl = fcntl.fcntl(fd, fcntl.F_GETFL)
            fdfl = fcntl.fcntl(fd, fcntl.F_GETFD)
        except OSError as e:
            fl = fdfl = "error %d" % e.errno
        print(tag, "fd", fd, target, "flags", fl, "fdflags", fdfl)


show("module")


def probe():
    show("test")

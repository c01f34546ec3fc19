#!/usr/bin/env python3
"""Starts a daemon the way systemd's socket activation does (sd_listen_fds(3)):
the socket at descriptor 3, LISTEN_FDS=1, LISTEN_PID the daemon's pid (this
process's: exec keeps it), LISTEN_FDNAMES. Test-only.

    sdlaunch.py MODE -- DAEMON ARGS...

The socket's path is the value of the daemon's --socket argument. MODE:
  unix       a listening AF_UNIX stream socket at that path (root:root 0660)
  other-pid  the same, at PATH.other, but LISTEN_PID names another process
  elsewhere  the same, at PATH.other, for this process (--socket disagrees)
  devnull    /dev/null at descriptor 3 (not a socket)
  two        two sockets passed (LISTEN_FDS=2)
"""
import os
import socket
import sys


def main():
    mode = sys.argv[1]
    if sys.argv[2] != "--":
        sys.exit("usage: sdlaunch.py MODE -- DAEMON ARGS...")
    argv = sys.argv[3:]
    path = argv[argv.index("--socket") + 1]
    n = 1
    pid = os.getpid()
    if mode in ("unix", "other-pid", "elsewhere", "two"):
        at = path + ".other" if mode in ("other-pid", "elsewhere") else path
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        old = os.umask(0o177)
        s.bind(at)
        os.umask(old)
        os.chmod(at, 0o660)
        s.listen(16)
        fd = s.detach()
        if mode == "other-pid":
            pid = os.getppid()
        if mode == "two":
            os.dup2(fd, 4)  # inheritable
            n = 2
    elif mode == "devnull":
        fd = os.open("/dev/null", os.O_RDONLY)
    else:
        sys.exit("sdlaunch.py: unknown mode " + mode)
    if fd != 3:
        os.dup2(fd, 3)
        os.close(fd)
    os.set_inheritable(3, True)  # as systemd passes it: no FD_CLOEXEC
    os.environ["LISTEN_FDS"] = str(n)
    os.environ["LISTEN_PID"] = str(pid)
    os.environ["LISTEN_FDNAMES"] = ":".join(["sandboxd.socket"] * n)
    os.execv(argv[0], argv)


if __name__ == "__main__":
    main()

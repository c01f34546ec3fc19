# parity probe: process ids and the process tree the job sees: getpid,
# getppid, getpgrp, getsid, the process group and session of the parent,
# the fields of /proc/self/stat that do not count time, pid 1's command
# line, every process visible in /proc, and the threads of this process.
# Deterministic on either path (the job has its own pid namespace).
import os
import threading


def stat_fields(pid):
    with open("/proc/%s/stat" % pid) as f:
        s = f.read()
    name = s[s.index("(") + 1:s.rindex(")")]
    rest = s[s.rindex(")") + 2:].split()
    # state ppid pgrp session tty_nr tpgid flags ... priority nice num_threads
    return name, rest[0], rest[1:6], rest[15:18]


def cmdline(pid):
    try:
        with open("/proc/%s/cmdline" % pid, "rb") as f:
            return f.read()
    except OSError as e:
        return "error %d" % e.errno


def show(tag):
    print(tag, "ids:", os.getpid(), os.getppid(), os.getpgrp(), os.getsid(0),
          os.getpgid(os.getppid()) if os.getppid() else None)
    print(tag, "stat self:", stat_fields("self"))
    pids = sorted(int(p) for p in os.listdir("/proc") if p.isdigit())
    print(tag, "pids:", pids)
    for p in pids:
        if p != os.getpid():
            print(tag, "proc", p, stat_fields(p), cmdline(p))
    print(tag, "tasks:", len(os.listdir("/proc/self/task")),
          [t.name for t in threading.enumerate()], threading.active_count())


show("module")


def probe():
    show("test")

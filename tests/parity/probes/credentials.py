# parity probe: the process's credentials and limits as the kernel reports
# them: /proc/self/status (Uid, Gid, Groups, capability sets, NoNewPrivs,
# Seccomp), the id calls, umask, every rlimit, the host name, the mounts the
# job sees (/proc/self/mountinfo without mount ids, which the kernel numbers
# globally) and the scheduling view. Deterministic when the daemon has one
# worker (the uid is the slot's).
import os
import resource
import socket

STATUS_KEYS = ("Uid", "Gid", "Groups", "CapInh", "CapPrm", "CapEff", "CapBnd", "CapAmb",
               "NoNewPrivs", "Seccomp", "Seccomp_filters", "Speculation_Store_Bypass",
               "Cpus_allowed_list", "Mems_allowed_list")


def show(tag):
    with open("/proc/self/status") as f:
        for line in f:
            k = line.split(":", 1)[0]
            if k in STATUS_KEYS:
                print(tag, "status", line.rstrip().replace("\t", " "))
    print(tag, "ids:", os.getresuid(), os.getresgid(), sorted(os.getgroups()))
    old = os.umask(0o22)
    os.umask(old)
    print(tag, "umask:", oct(old))
    for name in sorted(n for n in dir(resource) if n.startswith("RLIMIT_")):
        print(tag, "rlimit", name, resource.getrlimit(getattr(resource, name)))
    print(tag, "hostname:", socket.gethostname(), os.uname().nodename)
    print(tag, "nice:", os.nice(0), os.getpriority(os.PRIO_PROCESS, 0))
    # pid 1 (the job's init, or a warm job's reaper) and this process were
    # prepared at a low priority on the warm path before the job came.
    with open("/proc/1/stat") as f:
        print(tag, "pid 1 nice:", f.read().rsplit(")", 1)[1].split()[16])
    print(tag, "sched:", os.sched_getscheduler(0), sorted(os.sched_getaffinity(0)))
    with open("/proc/self/mountinfo") as f:
        for line in f:
            left, right = line.split(" - ", 1)
            fields = left.split()
            # fields[0:2] are mount ids, [2] the device numbers: both global.
            # A tmpfs a warm job mounts inside its fork server's user
            # namespace belongs to the server's uid, and tmpfs names an
            # owner that is not host root (docs/architecture.md, "What
            # differs"): the owner's uid= and gid= are left out of the
            # super options here, and only there.
            opts = right.split()[2]
            if right.split()[0] == "tmpfs":
                opts = ",".join(o for o in opts.split(",")
                                if not o.startswith(("uid=", "gid=")))
            print(tag, "mount", fields[3], fields[4], fields[5], " ".join(fields[6:]), "-",
                  right.split()[0], right.split()[1], opts)
    print(tag, "home:", os.path.expanduser("~"))
    try:
        import pwd
        print(tag, "pwd:", pwd.getpwuid(os.getuid()))
    except KeyError as e:
        print(tag, "pwd: none", e)


show("module")


def probe():
    show("test")

# Kernel files a Python program has no need for, which tell of the kernel's
# build and layout, the host's keys and timers, or host-wide memory and
# pressure, are each absent, empty or unreadable in the job (OCI's masked
# paths, plus the host-wide memory views).
# expect: pass
# violation: none
# stdout: contains PROC-KERNEL-FILES-OK
# stdout: not-contains SHOWN
import os

paths = ["/proc/config.gz", "/proc/kcore", "/proc/keys", "/proc/key-users", "/proc/timer_list",
         "/proc/timer_stats", "/proc/sched_debug", "/proc/latency_stats", "/proc/zoneinfo",
         "/proc/buddyinfo", "/proc/vmstat", "/proc/interrupts", "/proc/diskstats",
         "/proc/partitions", "/proc/locks", "/proc/kallsyms", "/proc/modules"]
for d in ("/proc/pressure", "/proc/acpi", "/proc/scsi"):
    try:
        names = os.listdir(d)
        print("dir", d, names)
        paths += [os.path.join(d, n) for n in names]
    except OSError as e:
        print("dir", d, e.strerror)
shown = []
for p in paths:
    try:
        with open(p, "rb") as f:
            data = f.read(4096)
    except OSError as e:
        print("hidden", p, e.strerror)
        continue
    if data:
        shown.append(p)
        print("SHOWN", p, data[:120])
    else:
        print("empty", p)
assert not shown, "host kernel files readable: %s" % shown
print("PROC-KERNEL-FILES-OK")

# Kernel control files: /proc/sysrq-trigger and /proc/sys are read-only,
# /sys is not in the jail, and writes to the few kernel knobs that would
# matter all fail.
# expect: pass
# stdout: contains KERNEL-FILES-REFUSED
# stdout: not-contains WROTE
# host: canary-intact
# host: daemon-alive
import os

targets = [("/proc/sysrq-trigger", "h"), ("/proc/sys/kernel/hostname", "pwned"),
           ("/proc/sys/vm/drop_caches", "3"), ("/proc/sys/kernel/core_pattern", "|/tmp/x"),
           ("/proc/sys/kernel/modprobe", "/tmp/x"), ("/proc/sys/fs/file-max", "10"),
           ("/sys/kernel/uevent_helper", "/tmp/x"), ("/sys/fs/cgroup/cgroup.procs", "1"),
           ("/sys/power/state", "mem"), ("/proc/self/oom_score_adj", "-1000"),
           ("/proc/1/oom_score_adj", "1000"), ("/proc/self/setgroups", "allow")]
refused = 0
for path, data in targets:
    try:
        with open(path, "w") as f:
            f.write(data)
        print("WROTE", path)
    except OSError as e:
        refused += 1
        print("refused", path, e.strerror)
print("/sys exists:", os.path.exists("/sys"), os.listdir("/sys") if os.path.isdir("/sys") else "")
print("KERNEL-FILES-REFUSED" if refused == len(targets) else "KERNEL-FILES-OPEN")

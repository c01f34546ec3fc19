# The job's mountinfo (a per-process file: it cannot be masked) names no
# path of the daemon's state dir and no host device file system: the /dev
# nodes are the jail's own, not binds of the host's devtmpfs (whose size=
# option is half the host's memory). The binds of /usr and /etc still show
# the host's root device and its options (SECURITY.md says why). The /proc
# view's staging tmpfs ("procview") shows only where its files are bound
# over /proc entries, never itself: it is mounted outside the job's root and
# detached with the host's tree before the job runs, and its own files were
# writable through it.
# expect: pass
# violation: none
# stdout: contains PROC-MOUNTINFO-OK
text = open("/proc/self/mountinfo").read()
print(text)
assert "@STATEDIR@" not in text, "the daemon's state dir shows"
assert " devtmpfs " not in text, "the host's devtmpfs shows"
OWN = {"/empty", "/emptydir", "/meminfo", "/stat", "/cpuinfo", "/loadavg"}
for line in text.splitlines():
    f = line.split()
    fstype, source = f[f.index("-") + 1], f[f.index("-") + 2]
    if source != "procview":
        continue
    root, point = f[3], f[4]
    assert root in OWN, "the staging tmpfs shows whole: " + line
    assert point.startswith("/proc/"), "a staging bind outside /proc: " + line
print("PROC-MOUNTINFO-OK")

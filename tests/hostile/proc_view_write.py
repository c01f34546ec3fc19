# The job's own /proc files (meminfo, stat, cpuinfo, loadavg) and the
# masks are binds of one small tmpfs, which the jail writes after the
# binds are made (a warm job's tree is built before its job comes). No
# mount of that tmpfs may be writable in the job: not the binds, and no
# staging mount left behind. A job that could write there would change
# what its own tools read (and, were the tmpfs shared, another job's).
# expect: pass
# violation: none
# stdout: contains PROC-VIEW-RO-OK
import errno
import os

for path in ("/proc/meminfo", "/proc/stat", "/proc/cpuinfo", "/proc/loadavg",
             "/proc/cmdline"):
    try:
        fd = os.open(path, os.O_WRONLY)
    except OSError as e:
        assert e.errno in (errno.EROFS, errno.EACCES, errno.EPERM, errno.ENOENT), (path, e)
    else:
        os.close(fd)
        raise AssertionError("%s opened for writing" % path)

# Every mount of the view's tmpfs (its super block is named "procview")
# is read-only, and none is the whole tmpfs (its root, "/"), which is what
# a staging mount left behind would be.
seen = 0
for line in open("/proc/self/mountinfo"):
    pre, _, post = line.partition(" - ")
    f, p = pre.split(), post.split()
    if p[0] != "tmpfs" or p[1] != "procview":
        continue
    seen += 1
    assert "ro" in f[5].split(","), "writable: " + line
    assert f[3] != "/", "the staging tmpfs itself is mounted: " + line
assert seen >= 4, "the view's binds are missing (%d)" % seen
for d in ("/.procview", "/.procview/ro"):
    assert not os.path.exists(d), d + " is visible"
print("PROC-VIEW-RO-OK", seen)

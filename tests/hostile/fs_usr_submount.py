# A mount below a read-only host path: the driver mounts a world-writable
# tmpfs at @SUBMOUNT@ on the host before the job starts. The jail binds /usr
# recursively, so the submount comes along; it must come along read-only,
# nosuid and nodev like /usr itself, and the job's write must not reach the
# host's tmpfs.
# The recursive read-only bind needs mount_setattr(2) (Linux 5.12+). Older
# kernels get a plain bind of /usr, where the submount is simply not there:
# safe, but then this program tests nothing of the recursive flags, so it is
# a skip there; its host check (the tmpfs stays empty) still applies.
# requires: mount-setattr
# setup: usr-submount
# expect: pass
# stdout: contains SUBMOUNT-VISIBLE
# stdout: not-contains WROTE
# host: submount-untouched
import os

path = "@SUBMOUNT@"
print("SUBMOUNT-VISIBLE" if os.path.isdir(path) else "SUBMOUNT-ABSENT")
for line in open("/proc/self/mountinfo"):
    if " " + path + " " in line:
        print("mountinfo:", line.strip())
try:
    with open(os.path.join(path, "pwned-@MARKER@"), "w") as f:
        f.write("written from the jail")
    print("WROTE", path)
except OSError as e:
    print("refused:", e.strerror)
try:
    os.mkdir(os.path.join(path, "dir-@MARKER@"))
    print("WROTE a directory")
except OSError as e:
    print("mkdir refused:", e.strerror)

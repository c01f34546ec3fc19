# A mount below a read-only host path: the driver mounts a world-writable
# tmpfs at @SUBMOUNT@ on the host before the job starts. The jail binds /usr
# recursively, so the submount comes along; it must come along read-only,
# nosuid and nodev like /usr itself, and the job's write must not reach the
# host's tmpfs.
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

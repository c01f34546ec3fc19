# A symlink from the work dir to /etc/passwd (and to /proc/1/root/etc/passwd,
# the init's root): reading through it shows the jail's own passwd (the job
# user as `sandbox`), never the host's.
# expect: pass
# stdout: contains sandbox:
# host: jail-passwd
import os

os.symlink("/etc/passwd", "/work/link")
print(open("/work/link").read())
for p in ("/proc/1/root/etc/passwd", "/proc/self/root/etc/passwd", "/proc/1/cwd/../etc/passwd"):
    try:
        os.symlink(p, "/tmp/l")
        print(open("/tmp/l").read())
    except OSError as e:
        print("denied", p, e.strerror)
    finally:
        try:
            os.unlink("/tmp/l")
        except OSError:
            pass
try:
    os.link("/etc/passwd", "/tmp/hard")
    print("hard link", open("/tmp/hard").read())
except OSError as e:
    print("hard link refused", e.strerror)

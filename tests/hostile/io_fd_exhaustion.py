# Open files until EMFILE, then check that ordinary work still succeeds.
# expect: pass
# stdout: contains EMFILE-CAUGHT
# stdout: contains STILL-WORKS
# host: daemon-alive
import errno
import os

fds = []
try:
    while len(fds) < 10000000:
        fds.append(os.open("/dev/null", os.O_RDONLY))
except OSError as e:
    if e.errno == errno.EMFILE:
        print("EMFILE-CAUGHT after", len(fds))
    else:
        print("other error", e)
try:
    os.pipe()
except OSError as e:
    print("pipe at the limit:", e.strerror)
for fd in fds:
    os.close(fd)
with open("/tmp/x", "w") as f:
    f.write("ok")
print("STILL-WORKS" if open("/tmp/x").read() == "ok" else "BROKEN")

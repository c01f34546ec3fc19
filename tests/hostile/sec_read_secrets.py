# Read host secrets: a file the driver planted under /root, /etc/shadow,
# /proc/1/environ (the job's init is a copy of the daemon) and every
# /proc/*/environ, /proc/*/cmdline and /proc/*/mem it can see. Everything
# found is printed; the driver checks the output holds none of the secrets.
# expect: pass
# stdout: contains SCANNED
# host: secret-not-leaked
# host: canary-intact
import glob
import os

targets = ["/root/sbx-secret-@MARKER@", "/etc/shadow", "/etc/gshadow", "/etc/sudoers",
           "/proc/1/environ", "/proc/1/cmdline", "/proc/self/environ", "/proc/1/root/root/sbx-secret-@MARKER@",
           "/proc/1/cwd/sbx-secret-@MARKER@", "/proc/kcore", "/proc/1/mem", "/proc/1/maps"]
targets += sorted(glob.glob("/proc/[0-9]*/environ")) + sorted(glob.glob("/proc/[0-9]*/cmdline"))
for t in targets:
    try:
        with open(t, "rb") as f:
            data = f.read(1 << 16)
        print("READ", t, data[:4096])
    except OSError as e:
        print("denied", t, e.strerror)
for d in ("/root", "/proc/1/root", "/proc/1/cwd", "/proc/1/fd", "/home"):
    try:
        print("LIST", d, sorted(os.listdir(d)))
    except OSError as e:
        print("denied", d, e.strerror)
for k, v in sorted(os.environ.items()):
    print("ENV", k, v)
print("SCANNED")

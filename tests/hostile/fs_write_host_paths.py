# Write a file named after the run's marker into every writable-looking host
# path. Each write must fail or land in the job's own tmpfs; the driver then
# checks that no file with the marker exists on the host.
# expect: pass
# stdout: contains TRIED
# host: marker-absent
# host: canary-intact
import os

paths = ["/tmp", "/var/tmp", "/dev/shm", "/root", "/etc", "/usr", "/usr/bin", "/usr/lib",
         "/usr/local", "/", "/var", "/run", "/home", "/opt", "/srv", "/mnt", "/media",
         "/proc", "/dev", "/lib", "/bin", "/work", "@STATEDIR@", os.path.dirname("@SOCK@")]
for d in paths:
    p = os.path.join(d, "pwned-@MARKER@")
    try:
        os.makedirs(d, exist_ok=True)
    except OSError:
        pass
    try:
        with open(p, "w") as f:
            f.write("pwned")
        print("wrote", p)
    except OSError as e:
        print("failed", p, e.strerror)
    try:
        os.mkdir(p + ".d")
        print("mkdir", p + ".d")
    except OSError as e:
        pass
for f in ("/etc/passwd", "/etc/hostname", "/etc/hosts", "/etc/shadow", "/etc/group",
          "/usr/bin/python3"):
    try:
        with open(f, "a") as fh:
            fh.write("pwned-@MARKER@\n")
        print("appended", f)
    except OSError as e:
        print("failed", f, e.strerror)
print("TRIED")

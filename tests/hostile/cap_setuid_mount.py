# `mount -t tmpfs x /mnt` through subprocess. The setuid bit is inert under
# no_new_privs, so util-linux mount runs as the job's uid, sees it is not
# running setuid, and calls mount(2) itself: the profile stops that call
# before it runs, so by the documented rule (a forbidden syscall in any of
# the job's processes) the verdict is violation, naming mount.
# expect: violation
# violation: mount
# limits: {"wall_ms": 10000}
# stdout: not-contains MOUNT-SUCCEEDED
# host: no-leftover
import subprocess

p = subprocess.run(["mount", "-t", "tmpfs", "x", "/mnt"], stdin=subprocess.DEVNULL,
                   capture_output=True, timeout=5)
print("MOUNT-SUCCEEDED" if p.returncode == 0 else "MOUNT-FAILED", p.returncode, flush=True)

# Setuid-root tools: `su -c id`, `newgrp`, `passwd`, `chsh`, `sudo` (where
# installed), `mount` of an fstab entry and `umount /proc`. no_new_privs
# makes the setuid bit inert (and the mounts are nosuid), so each exits
# non-zero; the job passes and prints the failures.
# expect: pass
# limits: {"wall_ms": 15000}
# stdout: contains SU-FAILED
# stdout: contains MOUNT-FSTAB-FAILED
# stdout: contains UMOUNT-FAILED
# stdout: not-contains uid=0
# stdout: not-contains SUCCEEDED
# host: no-leftover
import os
import shutil
import subprocess

cmds = [("SU", ["su", "-c", "id"]), ("SU-ROOT", ["su", "root", "-c", "id"]),
        ("NEWGRP", ["newgrp", "root"]), ("PASSWD", ["passwd", "-d", "root"]),
        ("CHSH", ["chsh", "-s", "/bin/sh", "root"]), ("SUDO", ["sudo", "-n", "id"]),
        ("MOUNT-FSTAB", ["mount", "/mnt"]), ("UMOUNT", ["umount", "/proc"])]
for tag, cmd in cmds:
    if not shutil.which(cmd[0]):
        print(tag + "-FAILED", "(not installed)")
        continue
    try:
        p = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=5)
        out = (p.stdout + p.stderr).decode(errors="replace").strip().replace("\n", " | ")
        print(tag + ("-FAILED" if p.returncode != 0 else "-SUCCEEDED"), p.returncode, out)
    except subprocess.TimeoutExpired:
        print(tag + "-FAILED", "(timed out)")
    except OSError as e:
        print(tag + "-FAILED", e)
print("euid", os.geteuid())

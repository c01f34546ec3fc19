# The job's init (sandboxd-init, root, not dumpable): try to read its memory and
# environment through /proc/1/mem, process_vm_readv-free paths (/proc/1/
# map_files, /proc/1/root) and by opening its fds. Nothing may come out.
# expect: pass
# stdout: contains DONE
# host: secret-not-leaked
import os

for pid in ("1", "self", "thread-self"):
    for entry in ("environ", "mem", "auxv", "stack", "syscall", "map_files", "fd/0", "fd/3",
                  "fd/4", "fd/5", "root/etc/shadow", "cwd"):
        p = "/proc/%s/%s" % (pid, entry)
        if pid != "1" and entry in ("environ", "mem", "auxv", "cwd"):
            continue
        try:
            if os.path.isdir(p):
                print("DIR", p, os.listdir(p)[:20])
            else:
                with open(p, "rb") as f:
                    print("READ", p, f.read(2048))
        except OSError as e:
            print("denied", p, e.strerror)
print("DONE")

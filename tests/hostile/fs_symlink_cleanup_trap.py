# Traps for whoever cleans up after the job: symlinks in /tmp, /work and
# /dev/shm to the host's /root, /etc, the daemon's state dir and socket, a
# deep directory tree, and files with hostile names. The daemon's cleanup must
# not follow any of them: the driver's planted secret under /root stays
# intact and the daemon keeps serving.
# expect: pass
# stdout: contains TRAPS-SET
# host: canary-intact
# host: daemon-alive
# host: marker-absent
import os

for d in ("/tmp", "/work", "/dev/shm"):
    for i, target in enumerate(("/root", "/etc", "/", "@STATEDIR@", "@SOCK@", "..",
                                "/root/sbx-secret-@MARKER@", "/proc/1/root")):
        try:
            os.symlink(target, "%s/trap%d" % (d, i))
        except OSError as e:
            print("symlink", d, i, e.strerror)
    p = d
    try:
        for i in range(200):
            p = os.path.join(p, "d")
            os.mkdir(p)
        os.symlink("/root", os.path.join(p, "deep-link"))
    except OSError as e:
        print("deep tree", d, e.strerror)
    for name in ("-rf", " ", "*", "\n", "\\", ".. ", "x" * 255):
        try:
            open(os.path.join(d, name), "w").close()
        except OSError:
            pass
os.chmod("/work", 0o000)
print("TRAPS-SET")

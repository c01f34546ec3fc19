# Devices: make device nodes (mknod of /dev/mem, a disk), open the host's
# raw devices by their usual names, and use the ones that are there only
# as intended.
# expect: pass
# stdout: contains DEVICES-REFUSED
# stdout: not-contains OPENED
# host: canary-intact
import os
import stat

made = 0
for path, major, minor in (("/tmp/mem", 1, 1), ("/tmp/vda", 253, 0), ("/tmp/sda", 8, 0),
                           ("/work/kmsg", 1, 11)):
    try:
        os.mknod(path, 0o666 | stat.S_IFCHR, os.makedev(major, minor))
        made += 1
        print("made", path)
        with open(path, "rb") as f:
            print("OPENED", path, f.read(16))
    except OSError as e:
        print("refused", path, e.strerror)
opened = 0
for path in ("/dev/mem", "/dev/kmem", "/dev/port", "/dev/kmsg", "/dev/vda", "/dev/sda",
             "/dev/tty", "/dev/console", "/dev/ptmx", "/dev/fuse", "/dev/kvm", "/dev/net/tun"):
    try:
        with open(path, "rb", buffering=0) as f:
            opened += 1
            print("OPENED", path)
    except OSError as e:
        print("refused", path, e.strerror)
print("dev:", sorted(os.listdir("/dev")))
with open("/dev/null", "wb") as f:
    f.write(b"x")
print("DEVICES-REFUSED" if opened == 0 else "DEVICES-OPEN")

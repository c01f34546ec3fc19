# Persistence, part 2 (runs right after part 1 on the same slot): nothing
# part 1 left may be visible.
# expect: pass
# stdout: contains NOTHING-PERSISTED
# stdout: not-contains FOUND
# host: ipc-clean
import ctypes
import glob
import os

libc = ctypes.CDLL(None, use_errno=True)
for d in ("/tmp", "/work", "/dev/shm", "/var/tmp", "/etc"):
    for p in glob.glob(os.path.join(d, "persist-*")):
        print("FOUND file", p)
    print(d, sorted(os.listdir(d))[:50] if os.path.isdir(d) else "absent")
shmid = libc.shmget(0x5BD0, 0, 0)
if shmid >= 0:
    print("FOUND shm segment", shmid)
semid = libc.semget(0x5BD1, 0, 0)
if semid >= 0:
    print("FOUND semaphore", semid)
if libc.msgget(0x5BD4, 0) >= 0:
    print("FOUND message queue")
print("NOTHING-PERSISTED")

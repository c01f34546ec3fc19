# Persistence, part 1 (run first, alone, on a one-worker daemon so part 2
# gets the same slot and uid): leave files in every writable place, a SysV
# shared memory segment, a semaphore set and a message queue in the job's IPC
# namespace. The host's SysV IPC must not get them either.
# expect: pass
# stdout: contains PLANTED
# host: ipc-clean
import ctypes
import os

libc = ctypes.CDLL(None, use_errno=True)
for d in ("/tmp", "/work", "/dev/shm", "/var/tmp", "/etc"):
    try:
        with open(os.path.join(d, "persist-@MARKER@"), "w") as f:
            f.write("left behind")
        print("left", d)
    except OSError as e:
        print("cannot", d, e.strerror)
shmid = libc.shmget(0x5BD0, 4096, 0o1666)  # IPC_CREAT | 0666
print("shmget", shmid, ctypes.get_errno())
if shmid >= 0:
    libc.shmat.restype = ctypes.c_void_p
    addr = libc.shmat(shmid, None, 0)
    ctypes.memmove(addr, b"persisted-@MARKER@", 18)
semid = libc.semget(0x5BD1, 1, 0o1666)
print("semget", semid)
print("msgget", libc.msgget(0x5BD4, 0o1666))
print("PLANTED")

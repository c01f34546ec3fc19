# Descriptors inherited from the daemon (its listening socket, a client
# connection, a directory of the host, the job's cgroup) would each be a way
# out, since openat() on a host directory fd ignores the jail's root. The job
# must start with stdin, stdout and stderr only.
# expect: pass
# stdout: contains ONLY-STDIO
# stdout: not-contains ESCAPED
# host: daemon-alive
import os
import stat

extra = []
for fd in range(3, 4096):
    try:
        st = os.fstat(fd)
    except OSError:
        continue
    try:
        target = os.readlink("/proc/self/fd/%d" % fd)
    except OSError as e:
        target = "? (%s)" % e.strerror
    extra.append(fd)
    print("fd", fd, target, stat.filemode(st.st_mode))
    if stat.S_ISDIR(st.st_mode):
        try:
            print("ESCAPED via fd", fd, os.listdir(fd))
            os.open("..", os.O_RDONLY, dir_fd=fd)
        except OSError as e:
            print("dir fd", fd, e.strerror)
for fd in (0, 1, 2):
    try:
        print("std", fd, os.readlink("/proc/self/fd/%d" % fd))
    except OSError as e:
        print("std", fd, e.strerror)
print("ONLY-STDIO" if not extra else "EXTRA-FDS %s" % extra)

# fetch_files of what is not a regular file: a FIFO (whose open and read
# would block a reader forever), a listening Unix socket, a directory, a
# device node if the job could make one (it cannot: no CAP_MKNOD), and a path
# through a regular file. The daemon answers at once with an error for each.
# expect: pass
# limits: {"wall_ms": 20000}
# fetch: ["fifo", "sock", "dir", "node", "file.txt/x", "missing"]
# fetched: fifo error
# fetched: sock error
# fetched: dir error
# fetched: node error
# fetched: file.txt/x error
# fetched: missing error
# host: fetch-clean
# host: daemon-alive
import os
import socket
import stat

os.chdir("/work")
os.mkfifo("fifo")
s = socket.socket(socket.AF_UNIX)
s.bind("/work/sock")
s.listen(1)
os.mkdir("dir")
try:
    os.mknod("node", 0o666 | stat.S_IFCHR, os.makedev(1, 3))
    print("mknod made a device node")
except OSError as e:
    print("mknod refused", e.strerror)
    os.mkfifo("node")
open("file.txt", "w").write("f")

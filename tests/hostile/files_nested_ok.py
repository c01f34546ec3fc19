# Control for the path checks: a nested, well-formed `files` path is placed
# in the work dir, and a symlink the job makes there stays inside the jail.
# expect: pass
# files: {"data/in/put.txt": "hello-@MARKER@"}
# stdout: contains hello-@MARKER@
# host: marker-absent
import os

print(open("data/in/put.txt").read())
os.symlink("/", "/work/data/root-@MARKER@")
print(sorted(os.listdir("/work/data/root-@MARKER@")))

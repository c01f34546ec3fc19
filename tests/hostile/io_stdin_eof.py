# Read stdin that never comes: the request has no stdin, so it is at EOF
# immediately (no hang until the wall limit).
# expect: pass
# limits: {"wall_ms": 5000}
# stdout: contains EOF
# host: no-leftover
import sys

data = sys.stdin.read()
line = sys.stdin.readline()
print("EOF" if data == "" and line == "" else "GOT %r" % data)

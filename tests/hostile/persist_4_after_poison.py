# Persistence, part 4 (right after part 3, on the same slot): nothing part 3
# did to its copy of the fork server is visible here, and random state is
# not the seeded one part 3 set.
# expect: pass
# stdout: contains NOTHING-POISONED
# stdout: not-contains FOUND
# host: warm-intact
import builtins
import json
import os
import random
import signal
import sys

if hasattr(builtins, "POISON") or hasattr(builtins, "print_orig"):
    print("FOUND builtins")
if json.dumps({"a": 1}) != '{"a": 1}':
    print("FOUND json.dumps")
if "POISON_MODULE" in sys.modules:
    print("FOUND sys.modules")
for name in ("numpy", "pandas", "sbx_runner", "sbx_runner.main"):
    m = sys.modules.get(name)
    if m is not None and hasattr(m, "POISON"):
        print("FOUND", name)
try:
    import numpy
    if numpy.sum([1, 2]) != 3:
        print("FOUND numpy.sum")
    numpy.random.seed(1)
    seeded = numpy.random.random()
    numpy.random.seed()
    if numpy.random.random() == seeded:
        print("FOUND numpy generator")
except ImportError:
    pass
r = random.Random(1).random()
if random.random() == r:
    print("FOUND random state")
for k in ("POISON", "POISON2"):
    if k in os.environ or os.getenv(k):
        print("FOUND environment", k)
if open("/proc/self/environ", "rb").read().find(b"POISON") >= 0:
    print("FOUND /proc/self/environ")
if signal.getsignal(signal.SIGTERM) != signal.SIG_DFL:
    print("FOUND signal handler")
if len(os.listdir("/proc/self/task")) != 1:
    print("FOUND threads", os.listdir("/proc/self/task"))
print("NOTHING-POISONED")

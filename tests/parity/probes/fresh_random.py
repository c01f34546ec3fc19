# parity probe (freshness, not byte-compared): raw unseeded random values,
# hash('abc'), os.urandom and numpy's global generator. The driver runs it
# twice on each daemon without a seed and requires the two jobs' lines to
# differ: two jobs must never share random state (issue 11, section 2).
import os
import random

print("random", random.random(), random.getrandbits(64))
print("hash", hash("abc"), hash(b"xyz"))
print("urandom", os.urandom(16).hex())
try:
    import numpy
except ImportError:
    print("numpy absent")
else:
    print("numpy", numpy.random.random(), numpy.random.randint(2**62))


def probe():
    pass

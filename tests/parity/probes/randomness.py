# parity probe: random state. With a request seed (a test request; the cold
# path then sets PYTHONHASHSEED to it and seeds random and numpy) the values
# are printed exactly: both paths must give the same numbers. Without a seed
# the cold path itself gives different values every run, so only a
# normalized form is printed (the type, the range, that two draws differ,
# the hash secret's mode); the driver checks separately (fresh_random.py)
# that two unseeded jobs on the same daemon do not share random state.
import os
import random
import sys

SEEDED = "PYTHONHASHSEED" in os.environ


def value(v):
    return repr(v) if SEEDED else "%s in [0,1): %s" % (type(v).__name__, 0.0 <= v < 1.0)


def show(tag):
    print(tag, "hash seed env:", os.environ.get("PYTHONHASHSEED"))
    print(tag, "hash_randomization flag:", sys.flags.hash_randomization)
    h = hash("abc")
    print(tag, "hash('abc'):", h if SEEDED else type(h).__name__)
    print(tag, "hash(b'abc') == hash('abc'):", hash(b"abc") == h)
    print(tag, "hash(1), hash(None) type:", hash(1), type(hash(None)).__name__)
    a, b = random.random(), random.random()
    print(tag, "random:", value(a), value(b), "differ:", a != b)
    print(tag, "randrange:", random.randrange(10**9) if SEEDED else "int")
    # A new Random() seeds itself from os.urandom even with a request seed.
    print(tag, "random.Random():", type(random.Random().random()).__name__)
    print(tag, "SystemRandom:", type(random.SystemRandom().random()).__name__)
    print(tag, "urandom:", len(os.urandom(32)), len(os.getrandom(16)))
    try:
        import numpy
    except ImportError:
        print(tag, "numpy: absent")
    else:
        x, y = numpy.random.random(), numpy.random.random()
        print(tag, "numpy:", value(float(x)), value(float(y)), "differ:", x != y)
        print(tag, "numpy default_rng type:", type(numpy.random.default_rng()).__name__)


show("module")


def probe():
    show("test")

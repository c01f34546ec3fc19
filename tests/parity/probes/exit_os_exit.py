# parity probe: os._exit(5): no atexit handlers, no flush of Python's
# buffers (stdout is a pipe, so block-buffered: "lost" never appears on
# either path), what was flushed stays.
import atexit
import os
import sys

atexit.register(lambda: print("atexit must not run"))
print("flushed line", flush=True)
print("lost: buffered, never flushed")
sys.stderr.write("stderr is unbuffered? ")


def probe():
    pass


os._exit(5)

# Invalid UTF-8, NULs and control characters on both streams: the job
# passes and the daemon still answers valid JSON (and keeps serving).
# expect: pass
# stdout: contains END-OF-GARBAGE
# host: daemon-alive
import os
import random

rnd = random.Random(7)
garbage = bytes(rnd.randrange(256) for _ in range(200000))
os.write(1, garbage)
os.write(2, garbage)
os.write(1, b"\x00\xff\xfe\xc0\x80\xed\xa0\x80\n")
os.write(1, b"\nEND-OF-GARBAGE\n")

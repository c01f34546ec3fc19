# pass: one of the parallel jobs; reads N on stdin, holds its worker a
# moment (so the 8 jobs queue on 2 workers), prints N*7
import sys
import time

n = int(sys.stdin.read())
time.sleep(0.3)
print(n * 7)

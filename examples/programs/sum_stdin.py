# pass: reads numbers from stdin
import sys
print(sum(int(x) for x in sys.stdin.read().split()))

# pass: prints and exits 0
import sys
print("hello from the sandbox; python", sys.version.split()[0])

# output_limit: writes far more than output_kb
import sys
while True:
    sys.stdout.write("spam " * 10000)

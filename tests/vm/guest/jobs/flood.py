# output_limit, limit_hit output (under --output 16): writes far more than that
import sys
while True:
    sys.stdout.write("spam " * 10000)

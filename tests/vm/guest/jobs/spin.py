# timeout, limit_hit cpu (under --cpu 1): spins until the CPU limit fires
n = 0
while True:
    n += 1

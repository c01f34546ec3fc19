# timeout (cpu): spins until the CPU limit fires
n = 0
while True:
    n += 1

# pass: prints and exits 0
print("hello from the VM")

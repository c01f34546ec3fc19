# Bypass attempt: make the forbidden call through the 32-bit ABI (int 0x80
# with the i386 number of unshare, 310) from machine code in an executable
# mapping. The filter must check the architecture too: the call must not
# run (a user namespace would be created if it did).
# expect: violation|runtime_error
# stdout: contains CALLING
# stdout: not-contains ESCAPED
# host: no-leftover
import ctypes
import mmap

# push rbx; mov eax, 310; mov ebx, CLONE_NEWUSER; int 0x80; pop rbx; ret
code = bytes.fromhex("53" "b836010000" "bb00000010" "cd80" "5b" "c3")
buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(code)
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
fn = ctypes.CFUNCTYPE(ctypes.c_int)(addr)
print("CALLING", flush=True)
r = fn()
print("ESCAPED" if r == 0 else "returned %d" % r, flush=True)
print(open("/proc/self/uid_map").read(), flush=True)

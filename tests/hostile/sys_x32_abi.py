# Bypass attempt: the forbidden call through the x32 ABI (syscall number
# with bit 30 set: 0x40000000 | 272, unshare) from machine code. The filter
# must refuse x32 numbers too: the call must not run.
# expect: violation|runtime_error|pass
# stdout: contains CALLING
# stdout: not-contains ESCAPED
# host: no-leftover
import ctypes
import mmap

# mov eax, 0x40000110; mov edi, CLONE_NEWUSER; syscall; ret
code = bytes.fromhex("b810010040" "bf00000010" "0f05" "c3")
buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
buf.write(code)
addr = ctypes.addressof(ctypes.c_char.from_buffer(buf))
fn = ctypes.CFUNCTYPE(ctypes.c_long)(addr)
print("CALLING", flush=True)
r = fn()
print("ESCAPED" if r == 0 else "returned %d" % r, flush=True)

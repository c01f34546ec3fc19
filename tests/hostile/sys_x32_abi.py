# Bypass attempt: the forbidden call through the x32 ABI (syscall number
# with bit 30 set: 0x40000000 | 272, unshare) from machine code. The filter
# must refuse x32 numbers too: the call must not run.
#
# What is asserted, on every kernel, with no probe and no skip: the x86_64
# filter libseccomp compiles sends every number with the x32 bit to its
# bad-arch action before the kernel looks the number up, whether or not the
# kernel has the x32 ABI (CONFIG_X86_X32_ABI, usually off: there an
# unfiltered x32 call just returns -ENOSYS). The bad-arch action is a
# notification, so the daemon sees the number and kills the job: verdict
# violation named "x32:unshare". A pass or a runtime_error is a failure on
# every kernel (even where nothing could have run, the filter let an x32
# number through, or the daemon did not see it).
# expect: violation
# violation: x32:unshare
# stdout: contains CALLING unshare with the x32 bit
# stdout: not-contains ESCAPED
# host: no-leftover
import ctypes
import mmap


def machine_code(hexcode):
    buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(bytes.fromhex(hexcode))
    fn = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))
    return buf, fn


# mov eax, 0x40000110; mov edi, CLONE_NEWUSER; syscall; ret
keep, unshare_x32 = machine_code("b810010040" "bf00000010" "0f05" "c3")
print("CALLING unshare with the x32 bit (0x40000000 | 272, CLONE_NEWUSER)", flush=True)
r = unshare_x32()
print("ESCAPED" if r == 0 else "returned %d" % r, flush=True)

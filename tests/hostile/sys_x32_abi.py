# Bypass attempt: the forbidden call through the x32 ABI (syscall number
# with bit 30 set: 0x40000000 | 272, unshare) from machine code. The filter
# must refuse x32 numbers too: the call must not run.
#
# What is asserted, on every kernel, with no probe and no skip: the x86_64
# filter libseccomp compiles sends every number with the x32 bit to its
# bad-arch action (kill the process) before the kernel looks the number up.
# So the call dies of SIGSYS whether or not the kernel has the x32 ABI
# (CONFIG_X86_X32_ABI, usually off: there an unfiltered x32 call just returns
# -ENOSYS). A pass or a runtime_error is a failure everywhere: even where
# nothing could have run, the filter let an x32 number through. As for the
# i386 ABI, the kernel kills before anyone is notified, so the response's
# violation object is null; "unshare" is accepted too, should the daemon
# learn to name these calls, and nothing else.
#
# First, in a forked child, an x32 getpid: its fate is printed ("X32-PROBE:
# refused ..." when the filter killed it), so the output shows what the
# filter did with a harmless x32 number before the harmful one.
# expect: violation
# violation: unshare|none
# stdout: contains X32-PROBE: refused
# stdout: contains CALLING unshare with the x32 bit
# stdout: not-contains ESCAPED
# host: no-leftover
import ctypes
import mmap
import os
import signal


def machine_code(hexcode):
    buf = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(bytes.fromhex(hexcode))
    fn = ctypes.CFUNCTYPE(ctypes.c_long)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))
    return buf, fn


# mov eax, 0x40000027 (x32 getpid); syscall; ret
keep1, getpid_x32 = machine_code("b827000040" "0f05" "c3")
pid = os.fork()
if pid == 0:
    r = getpid_x32()
    os._exit(0 if r == os.getpid() else 2 if r == -38 else 3)
_, st = os.waitpid(pid, 0)
if os.WIFSIGNALED(st) and os.WTERMSIG(st) == signal.SIGSYS:
    print("X32-PROBE: refused (an x32 getpid in a forked child was killed by SIGSYS)",
          flush=True)
elif os.WIFSIGNALED(st):
    print("X32-PROBE: NOT refused (an x32 getpid in a forked child died of %s)"
          % signal.Signals(os.WTERMSIG(st)).name, flush=True)
else:
    print("X32-PROBE: NOT refused (an x32 getpid in a forked child %s)"
          % {0: "returned its pid", 2: "returned -ENOSYS: no x32 in the kernel"}.get(
              os.WEXITSTATUS(st), "exited %d" % os.WEXITSTATUS(st)), flush=True)

# mov eax, 0x40000110; mov edi, CLONE_NEWUSER; syscall; ret
keep2, unshare_x32 = machine_code("b810010040" "bf00000010" "0f05" "c3")
print("CALLING unshare with the x32 bit (0x40000000 | 272, CLONE_NEWUSER)", flush=True)
r = unshare_x32()
print("ESCAPED" if r == 0 else "returned %d" % r, flush=True)

# A warm job looks in its own memory for its own description: the daemon's
# sealed memfd, which names the job's root directory on the host (under the
# daemon's state directory) and holds its files and code. A cold job's is
# gone with its init's exec. A warm job used to map it and unmap it before
# its code ran; it now reads one that fits into a buffer of the fork
# server's library (sandboxd/jail/warm_spec.c), which must be wiped before
# the code runs. The needle is a file's bytes that appear nowhere in this
# program's text (the header spells them with JSON escapes): any copy in
# memory but the one built here came from the description.
# expect: pass
# files: {"desc.txt": "\u0044\u0045\u0053\u0043-@MARKER@"}
# stdout: contains NO-OWN-DESCRIPTION
# stdout: not-contains OWN-DESCRIPTION at
# host: warm-intact
import ctypes

libc = ctypes.CDLL(None)
libc.memmem.restype = ctypes.c_void_p
libc.memmem.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_void_p, ctypes.c_size_t]

# Built here, in one buffer whose address is known: the only copy allowed.
needle = bytearray(b"DESC")
needle.extend(b"-@MARKER@")
own = ctypes.addressof((ctypes.c_char * len(needle)).from_buffer(needle))

found = []
for line in open("/proc/self/maps"):
    f = line.split()
    if not f[1].startswith("r") or f[-1] in ("[vvar]", "[vvar_vclock]", "[vsyscall]"):
        continue
    lo, hi = (int(x, 16) for x in f[0].split("-"))
    at = lo
    while at < hi:
        p = libc.memmem(at, hi - at, own, len(needle))
        if not p:
            break
        if p != own:
            found.append("%s+%#x" % (f[5] if len(f) > 5 else "anonymous", p - lo))
        at = p + 1
print("OWN-DESCRIPTION at " + "; ".join(found) if found else "NO-OWN-DESCRIPTION")

# parity probe: signal dispositions (signal.getsignal for every signal), the
# blocked mask, and the kernel's view of them in /proc/self/status (SigBlk,
# SigIgn, SigCgt, SigPnd, ShdPnd). Deterministic on either path.
import signal


def show(tag):
    for s in sorted(signal.valid_signals()):
        try:
            h = signal.getsignal(s)
        except (ValueError, OSError) as e:
            h = "error %s" % e
        name = getattr(h, "__name__", None) or str(h)
        print(tag, "signal", int(s), getattr(signal.Signals(s), "name", s)
              if s in signal.Signals._value2member_map_ else s, name)
    print(tag, "blocked:", sorted(int(s) for s in signal.pthread_sigmask(signal.SIG_BLOCK, [])))
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(("SigQ", "SigPnd", "ShdPnd", "SigBlk", "SigIgn", "SigCgt")):
                print(tag, "status", line.rstrip().replace("\t", " "))
    print(tag, "alarm:", signal.alarm(0), signal.getitimer(signal.ITIMER_REAL))


show("module")


def probe():
    show("test")

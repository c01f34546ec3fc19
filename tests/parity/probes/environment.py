# parity probe: the environment and the file system around the program:
# os.environ, the working directory and what is in it, /tmp and /dev/shm,
# the standard streams (types, encodings, buffering, tty), locale and the
# interpreter's encodings. Deterministic on either path.
import locale
import os
import sys


def stream(s):
    return (type(s).__name__, getattr(s, "encoding", None), getattr(s, "errors", None),
            getattr(s, "line_buffering", None), s.isatty(), s.fileno(),
            os.get_blocking(s.fileno()))


def show(tag):
    print(tag, "environ:", sorted(os.environ.items()))
    print(tag, "cwd:", os.getcwd())
    for d in (".", "/tmp", "/dev/shm", "/work"):
        try:
            print(tag, "listdir", d, sorted(os.listdir(d)))
        except OSError as e:
            print(tag, "listdir", d, "error", e.errno)
    print(tag, "stdin:", stream(sys.stdin))
    print(tag, "stdout:", stream(sys.stdout))
    print(tag, "stderr:", stream(sys.stderr))
    print(tag, "encodings:", sys.getdefaultencoding(), sys.getfilesystemencoding(),
          sys.getfilesystemencodeerrors(), locale.getpreferredencoding(False))
    print(tag, "locale:", locale.setlocale(locale.LC_ALL, None))
    print(tag, "tz:", os.environ.get("TZ"), __import__("time").tzname)


show("module")


def probe():
    show("test")

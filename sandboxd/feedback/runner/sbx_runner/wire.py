"""The data-only serializer between the grader and the candidate process
(isolation "process"), and its framing on a stream socket.

Only values of these exact types cross (a subclass, e.g. an IntEnum, a
numpy scalar or a str subclass with its own __eq__, does not):
    None, bool, int (any size), float (NaN, inf, -0.0 bit for bit),
    complex, str (lone surrogates kept), bytes, bytearray,
    list, tuple, dict (insertion order kept), set, frozenset,
nested to at most MAX_DEPTH levels, in a message of at most MAX_MESSAGE
bytes.  Anything else (functions, generators, objects, cycles) raises
WireError on the sending side, which the caller turns into a clear test
error.  Decoding builds fresh builtin objects only and never runs code of
the sender: no pickle, no eval, no imports, no __reduce__.  The receiver
trusts nothing in the bytes: every length is checked against what remains
before anything is allocated, nesting and sizes are bounded, an unhashable
dict key or set item, a duplicate key, a bad tag, bad UTF-8 and trailing
bytes are all WireError.

Encoding (one tag byte, then):
    N T F        None, True, False
    i  u32 n, n bytes   int, two's complement, big-endian
    f  8 bytes          float, IEEE 754 binary64, big-endian
    c  16 bytes         complex (real, imaginary)
    s b a  u32 n, n bytes   str (UTF-8, surrogatepass), bytes, bytearray
    l t S z  u32 n, n values   list, tuple, set, frozenset
    d  u32 n, n (key, value) pairs
A frame on the socket is a u32 length, then one encoded value."""

import os
import select
import struct

MAX_MESSAGE = 16 << 20       # bytes in one frame
MAX_DEPTH = 100              # containers inside containers

_U32 = struct.Struct(">I")
_F64 = struct.Struct(">d")
_C128 = struct.Struct(">dd")


class WireError(Exception):
    """A value that cannot be carried, or bytes that are not a value."""


class PeerGone(Exception):
    """The other process closed the connection (or broke the framing)."""


# -- encoding


def _int_bytes(v):
    n = (v + (v < 0)).bit_length() // 8 + 1
    return v.to_bytes(n, "big", signed=True)


def encode(value, limit=MAX_MESSAGE):
    out = bytearray()
    path = set()

    def put(v, depth):
        if len(out) > limit:
            raise WireError("the value is larger than %d bytes" % limit)
        t = type(v)
        if v is None:
            out.append(0x4E)
        elif t is bool:
            out.append(0x54 if v else 0x46)
        elif t is int:
            b = _int_bytes(v)
            if len(b) > limit:
                raise WireError("the int is larger than %d bytes" % limit)
            out.append(0x69)
            out.extend(_U32.pack(len(b)))
            out.extend(b)
        elif t is float:
            out.append(0x66)
            out.extend(_F64.pack(v))
        elif t is complex:
            out.append(0x63)
            out.extend(_C128.pack(v.real, v.imag))
        elif t is str or t is bytes or t is bytearray:
            b = v.encode("utf-8", "surrogatepass") if t is str else bytes(v)
            if len(b) > limit:
                raise WireError("the %s is larger than %d bytes" % (t.__name__, limit))
            out.append(0x73 if t is str else 0x62 if t is bytes else 0x61)
            out.extend(_U32.pack(len(b)))
            out.extend(b)
        elif t in _CONTAINER_TAG:
            if depth >= MAX_DEPTH:
                raise WireError("the value is nested deeper than %d levels" % MAX_DEPTH)
            if id(v) in path:
                raise WireError("the value contains itself (a %s cycle)" % t.__name__)
            path.add(id(v))
            out.append(_CONTAINER_TAG[t])
            out.extend(_U32.pack(len(v)))
            if t is dict:
                for k, x in list(v.items()):
                    put(k, depth + 1)
                    put(x, depth + 1)
            else:
                for x in list(v):
                    put(x, depth + 1)
            path.discard(id(v))
        else:
            raise WireError("a value of type %s cannot cross between the processes "
                            "(only None, bool, int, float, complex, str, bytes, "
                            "bytearray, list, tuple, dict, set, frozenset)"
                            % _type_name(t))

    put(value, 0)
    if len(out) > limit:
        raise WireError("the value is larger than %d bytes" % limit)
    return bytes(out)


_CONTAINER_TAG = {list: 0x6C, tuple: 0x74, dict: 0x64, set: 0x53, frozenset: 0x7A}


def _type_name(t):
    try:
        mod = type.__getattribute__(t, "__module__")
        name = type.__getattribute__(t, "__qualname__")
        if isinstance(mod, str) and isinstance(name, str):
            return name if mod == "builtins" else mod + "." + name
    except Exception:
        pass
    return "?"


# -- decoding


def decode(data):
    """The value in data (bytes), or WireError; data must hold exactly one."""
    view = memoryview(data)
    end = len(view)
    pos = 0

    def need(n):
        if n > end - pos:
            raise WireError("truncated value (needs %d more bytes, %d left)" %
                            (n, end - pos))

    def u32():
        nonlocal pos
        need(4)
        (n,) = _U32.unpack_from(view, pos)
        pos += 4
        return n

    def get(depth):
        nonlocal pos
        need(1)
        tag = view[pos]
        pos += 1
        if tag == 0x4E:
            return None
        if tag == 0x54:
            return True
        if tag == 0x46:
            return False
        if tag == 0x69:
            n = u32()
            need(n)
            if n == 0:
                raise WireError("empty int")
            v = int.from_bytes(view[pos:pos + n], "big", signed=True)
            pos += n
            return v
        if tag == 0x66:
            need(8)
            (v,) = _F64.unpack_from(view, pos)
            pos += 8
            return v
        if tag == 0x63:
            need(16)
            re_, im = _C128.unpack_from(view, pos)
            pos += 16
            return complex(re_, im)
        if tag in (0x73, 0x62, 0x61):
            n = u32()
            need(n)
            raw = view[pos:pos + n]
            pos += n
            if tag == 0x62:
                return raw.tobytes()
            if tag == 0x61:
                return bytearray(raw)
            try:
                return str(raw, "utf-8", "surrogatepass")
            except UnicodeDecodeError as e:
                raise WireError("bad UTF-8 in a str: %s" % e) from None
        if tag in (0x6C, 0x74, 0x64, 0x53, 0x7A):
            if depth >= MAX_DEPTH:
                raise WireError("nested deeper than %d levels" % MAX_DEPTH)
            n = u32()
            # Every item takes at least one byte (a pair two): a count the
            # remaining bytes cannot hold is a lie, caught before any work.
            need(n * (2 if tag == 0x64 else 1))
            if tag == 0x64:
                d = {}
                for _ in range(n):
                    k = get(depth + 1)
                    v = get(depth + 1)
                    try:
                        if k in d:
                            raise WireError("duplicate dict key")
                        d[k] = v
                    except TypeError:
                        raise WireError("unhashable dict key of type %s" %
                                        type(k).__name__) from None
                return d
            items = [get(depth + 1) for _ in range(n)]
            if tag == 0x6C:
                return items
            if tag == 0x74:
                return tuple(items)
            try:
                s = set(items) if tag == 0x53 else frozenset(items)
            except TypeError:
                raise WireError("unhashable set item") from None
            if len(s) != n:
                raise WireError("duplicate set item")
            return s
        raise WireError("unknown tag 0x%02x" % tag)

    v = get(0)
    if pos != end:
        raise WireError("%d trailing bytes after the value" % (end - pos))
    return v


# -- framing


class Conn:
    """One end of the stream socket.  recv() keeps what it has read in its
    own buffer, so an exception that interrupts it (the grader's test
    timeout, raised only inside `waiting`, while it blocks in poll) loses no
    byte and the next recv() continues the same stream."""

    def __init__(self, fd, limit=MAX_MESSAGE, waiting=None, busy=None):
        self.fd = fd
        self.limit = limit
        self.buf = bytearray()
        self.waiting = _Nothing() if waiting is None else waiting
        self.busy = _Nothing() if busy is None else busy
        self.broken = None       # why the stream is unusable, or None

    def send(self, value):
        data = encode(value, self.limit)
        frame = memoryview(_U32.pack(len(data)) + data)
        with self.busy:
            while frame:
                try:
                    n = os.write(self.fd, frame)
                except BrokenPipeError:
                    self.broken = "the other process is gone"
                    raise PeerGone(self.broken) from None
                except InterruptedError:
                    continue
                frame = frame[n:]

    def _frame(self):
        if len(self.buf) < 4:
            return None
        (n,) = _U32.unpack_from(self.buf, 0)
        if n > self.limit:
            self.broken = "a frame of %d bytes (the limit is %d)" % (n, self.limit)
            raise PeerGone(self.broken)
        if len(self.buf) < 4 + n:
            return None
        data = bytes(self.buf[4:4 + n])
        del self.buf[:4 + n]
        return data

    def recv(self):
        """The next value; PeerGone at EOF or broken framing, WireError when
        the frame is not a value (the stream itself stays in step)."""
        if self.broken:
            raise PeerGone(self.broken)
        while True:
            with self.busy:
                data = self._frame()
                if data is not None:
                    return decode(data)
            with self.waiting:
                select.select([self.fd], [], [])
            with self.busy:
                try:
                    chunk = os.read(self.fd, 1 << 20)
                except InterruptedError:
                    continue
                except OSError as e:
                    chunk = b""
                    self.broken = "reading: %s" % e
                if not chunk:
                    self.broken = self.broken or "the other process closed the connection"
                    raise PeerGone(self.broken)
                self.buf += chunk


class _Nothing:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

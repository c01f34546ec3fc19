#!/usr/bin/env python3
"""Writes the ELF kernel (vmlinux) inside a bzImage, when it has a PVH entry.

    extract-vmlinux.py VMLINUZ OUT

QEMU boots such an ELF directly through the PVH entry point, which skips
the bzImage's self-decompression (about 2 s of XZ under TCG). The kernel is
the same; only the decompression is done once, ahead of time. Exits 1 (and
writes nothing) when the payload is not XZ or gzip, or the ELF has no PVH
note (XEN_ELFNOTE_PHYS32_ENTRY), so the caller boots the bzImage instead.
"""
import gzip
import io
import lzma
import os
import struct
import sys


def payload(image):
    for magic, open_ in ((b"\xfd7zXZ\x00", "xz"), (b"\x1f\x8b\x08", "gz")):
        at = image.find(magic)
        while at >= 0:
            try:
                if open_ == "xz":
                    elf = lzma.LZMADecompressor().decompress(image[at:])
                else:
                    elf = gzip.GzipFile(fileobj=io.BytesIO(image[at:])).read()
                if elf[:4] == b"\x7fELF":
                    return elf
            except (lzma.LZMAError, OSError, EOFError):
                pass
            at = image.find(magic, at + 1)
    return None


def has_pvh_note(elf):
    if elf[4] != 2:  # ELFCLASS64
        return False
    phoff, = struct.unpack_from("<Q", elf, 0x20)
    phentsize, phnum = struct.unpack_from("<HH", elf, 0x36)
    for i in range(phnum):
        p_type, _, p_offset, _, _, p_filesz = struct.unpack_from("<IIQQQQ", elf, phoff + i * phentsize)
        if p_type != 4:  # PT_NOTE
            continue
        off, end = p_offset, p_offset + p_filesz
        while off + 12 <= end:
            namesz, descsz, ntype = struct.unpack_from("<III", elf, off)
            name = elf[off + 12:off + 12 + namesz].rstrip(b"\0")
            if name == b"Xen" and ntype == 18:  # XEN_ELFNOTE_PHYS32_ENTRY
                return True
            off += 12 + (namesz + 3) // 4 * 4 + (descsz + 3) // 4 * 4
    return False


def main():
    src, out = sys.argv[1], sys.argv[2]
    with open(src, "rb") as f:
        elf = payload(f.read())
    if not elf or not has_pvh_note(elf):
        print("no PVH-capable ELF kernel in %s" % src, file=sys.stderr)
        return 1
    with open(out + ".tmp", "wb") as f:
        f.write(elf)
    os.rename(out + ".tmp", out)
    return 0


if __name__ == "__main__":
    sys.exit(main())

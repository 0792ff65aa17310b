#!/usr/bin/env python3
"""Small Mach-O helper for building the debug-file fixtures (python3 standard library only).

Commands:
  patch-uuid FILE UUID          overwrite the LC_UUID of a thin 64-bit Mach-O file in place
  set-cpusubtype FILE VALUE     overwrite the cpusubtype of a thin Mach-O file in place
  fat {32|64} OUT ARCH=FILE...  write a fat (universal) file from thin Mach-O files, with a
                                FAT_MAGIC (0xcafebabe) or FAT_MAGIC_64 (0xcafebabf) header
  info FILE                     print JSON: one entry per slice with uuid, arch, text_vmaddr

llvm-lipo-14 only writes 32-bit fat headers, and the fixtures need both variants, so the fat
files are written here. Fat headers are big-endian; the slices are little-endian Mach-O.
"""

import json
import struct
import sys
import uuid as uuidlib

MH_MAGIC_64 = 0xFEEDFACF
MH_MAGIC = 0xFEEDFACE
FAT_MAGIC = 0xCAFEBABE
FAT_MAGIC_64 = 0xCAFEBABF
LC_SEGMENT = 0x1
LC_SEGMENT_64 = 0x19
LC_UUID = 0x1B

CPU_TYPE_X86_64 = 0x01000007
CPU_TYPE_ARM64 = 0x0100000C
CPU_TYPE_ARM = 12
CPU_SUBTYPE_ARM64E = 2

# (cputype, cpusubtype without capability bits) -> name, as llvm-objdump and lipo print them.
ARCH_NAMES = {
    (CPU_TYPE_ARM64, 0): "arm64",
    (CPU_TYPE_ARM64, 1): "arm64",
    (CPU_TYPE_ARM64, CPU_SUBTYPE_ARM64E): "arm64e",
    (CPU_TYPE_X86_64, 3): "x86_64",
    (CPU_TYPE_X86_64, 8): "x86_64h",
    (CPU_TYPE_ARM, 9): "armv7",
}

# Slices start on page boundaries in the fat file, as lipo places them (2^14 for arm).
SLICE_ALIGN_LOG2 = 14


class MachOError(Exception):
    pass


def load_commands(data, base=0):
    """Yields (cmd, offset, cmdsize) for each load command of the thin Mach-O at data[base:]."""
    magic = struct.unpack_from("<I", data, base)[0]
    if magic == MH_MAGIC_64:
        header_size = 32
    elif magic == MH_MAGIC:
        header_size = 28
    else:
        raise MachOError(f"not a thin little-endian Mach-O file (magic 0x{magic:08x})")
    ncmds, sizeofcmds = struct.unpack_from("<II", data, base + 16)
    offset = base + header_size
    end = offset + sizeofcmds
    for _ in range(ncmds):
        if offset + 8 > end:
            raise MachOError("load commands run past sizeofcmds")
        cmd, cmdsize = struct.unpack_from("<II", data, offset)
        if cmdsize < 8 or offset + cmdsize > end:
            raise MachOError(f"bad cmdsize {cmdsize} at offset {offset}")
        yield cmd, offset, cmdsize
        offset += cmdsize


def slice_info(data, base=0):
    cputype, cpusubtype = struct.unpack_from("<ii", data, base + 4)
    cputype &= 0xFFFFFFFF
    arch = ARCH_NAMES.get((cputype, cpusubtype & 0x00FFFFFF), f"cpu{cputype}-{cpusubtype & 0xFFFFFF}")
    slice_uuid = None
    text_vmaddr = None
    for cmd, offset, _ in load_commands(data, base):
        if cmd == LC_UUID:
            slice_uuid = str(uuidlib.UUID(bytes=bytes(data[offset + 8 : offset + 24]))).upper()
        elif cmd == LC_SEGMENT_64:
            segname = bytes(data[offset + 8 : offset + 24]).rstrip(b"\0").decode()
            if segname == "__TEXT":
                text_vmaddr = struct.unpack_from("<Q", data, offset + 24)[0]
        elif cmd == LC_SEGMENT:
            segname = bytes(data[offset + 8 : offset + 24]).rstrip(b"\0").decode()
            if segname == "__TEXT":
                text_vmaddr = struct.unpack_from("<I", data, offset + 24)[0]
    return {
        "uuid": slice_uuid,
        "arch": arch,
        "cputype": cputype,
        "cpusubtype": cpusubtype & 0xFFFFFFFF,
        "text_vmaddr": f"0x{text_vmaddr:x}" if text_vmaddr is not None else None,
    }


def slices(data):
    """Yields (offset, size) of every thin slice in a thin or fat file."""
    magic = struct.unpack_from(">I", data, 0)[0]
    if magic in (FAT_MAGIC, FAT_MAGIC_64):
        count = struct.unpack_from(">I", data, 4)[0]
        entry_size = 20 if magic == FAT_MAGIC else 32
        for index in range(count):
            at = 8 + index * entry_size
            if magic == FAT_MAGIC:
                _, _, offset, size, _ = struct.unpack_from(">iiIII", data, at)
            else:
                _, _, offset, size, _, _ = struct.unpack_from(">iiQQII", data, at)
            yield offset, size
    else:
        yield 0, len(data)


def patch_uuid(path, new_uuid):
    data = bytearray(open(path, "rb").read())
    value = uuidlib.UUID(new_uuid).bytes
    for cmd, offset, _ in load_commands(data):
        if cmd == LC_UUID:
            data[offset + 8 : offset + 24] = value
            open(path, "wb").write(data)
            return
    raise MachOError(f"{path}: no LC_UUID load command")


def set_cpusubtype(path, value):
    data = bytearray(open(path, "rb").read())
    list(load_commands(data))  # checks that it is a thin Mach-O file
    struct.pack_into("<I", data, 8, value)
    open(path, "wb").write(data)


def write_fat(width, out, members):
    thin = []
    for member in members:
        arch, _, path = member.partition("=")
        data = open(path, "rb").read()
        info = slice_info(data)
        if info["arch"] != arch:
            raise MachOError(f"{path}: is {info['arch']}, not {arch}")
        thin.append((info["cputype"], info["cpusubtype"], data))
    header_entry = 20 if width == 32 else 32
    offset = 8 + header_entry * len(thin)
    align = 1 << SLICE_ALIGN_LOG2
    layout = []
    for cputype, cpusubtype, data in thin:
        offset = (offset + align - 1) & ~(align - 1)
        layout.append((cputype, cpusubtype, offset, data))
        offset += len(data)
    out_bytes = bytearray(offset)
    struct.pack_into(">II", out_bytes, 0, FAT_MAGIC if width == 32 else FAT_MAGIC_64, len(thin))
    for index, (cputype, cpusubtype, slice_offset, data) in enumerate(layout):
        at = 8 + index * header_entry
        if width == 32:
            struct.pack_into(">IIIII", out_bytes, at, cputype, cpusubtype, slice_offset, len(data), SLICE_ALIGN_LOG2)
        else:
            struct.pack_into(">IIQQII", out_bytes, at, cputype, cpusubtype, slice_offset, len(data), SLICE_ALIGN_LOG2, 0)
        out_bytes[slice_offset : slice_offset + len(data)] = data
    open(out, "wb").write(out_bytes)


def main(argv):
    if len(argv) >= 3 and argv[1] == "patch-uuid":
        patch_uuid(argv[2], argv[3])
    elif len(argv) == 4 and argv[1] == "set-cpusubtype":
        set_cpusubtype(argv[2], int(argv[3], 0))
    elif len(argv) >= 5 and argv[1] == "fat" and argv[2] in ("32", "64"):
        write_fat(int(argv[2]), argv[3], argv[4:])
    elif len(argv) == 3 and argv[1] == "info":
        data = open(argv[2], "rb").read()
        print(json.dumps([slice_info(data, offset) for offset, _ in slices(data)]))
    else:
        print(__doc__, file=sys.stderr)
        return 64
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except (MachOError, OSError, ValueError, struct.error) as error:
        print(f"machotool: {error}", file=sys.stderr)
        sys.exit(1)

#!/usr/bin/env python3
"""Links the DWARF 5 of one Mach-O object file into a dSYM companion file (MH_DSYM).

  dwarf5dsym.py BINARY OBJECT OUT

Why this exists: the DWARF 5 fixture needs a dSYM, and the dsymutil builds on this machine
(llvm-14 and llvm-16) cannot link clang's DWARF 5 from Mach-O objects: they drop
DW_FORM_implicit_const attributes, lose the .debug_addr relocations (every line comes out as
"??:0") or skip any object with .debug_loclists. Apple's dsymutil can, but it is not here.

For a binary linked from exactly one object this linking is simple: every address in the
object's DWARF sits in __debug_addr or __debug_line (DW_LNE_set_address), each covered by a
section-relative ARM64_RELOC_UNSIGNED / X86_64_RELOC_UNSIGNED relocation, and the linker moved
each object section by a fixed amount, which the symbols tell. Offsets between DWARF sections
need no change (DWARF 5 reaches strings through __debug_str_offs and addresses through
__debug_addr). The output has the layout dsymutil writes: LC_UUID, LC_BUILD_VERSION, LC_SYMTAB,
the binary's segments with no file contents, __LINKEDIT with the symbol table, and __DWARF.
Anything outside that shape (extern or paired relocations in DWARF, sections moved unevenly)
stops the script with an error rather than writing a wrong file.
"""

import struct
import sys

MH_MAGIC_64 = 0xFEEDFACF
MH_DSYM = 0xA
LC_SEGMENT_64 = 0x19
LC_SYMTAB = 0x2
LC_UUID = 0x1B
LC_BUILD_VERSION = 0x32
N_STAB = 0xE0
N_TYPE = 0x0E
N_SECT = 0x0E
RELOC_UNSIGNED = 0  # ARM64_RELOC_UNSIGNED and X86_64_RELOC_UNSIGNED are both 0
PAGE = 0x1000

SEGMENT_FORMAT = "<II16sQQQQiiII"  # segment_command_64, 72 bytes
SECTION_FORMAT = "<16s16sQQIIIIIIII"  # section_64, 80 bytes
NLIST_FORMAT = "<IBBHQ"  # nlist_64, 16 bytes

# The DWARF sections carried into the dSYM, in dsymutil's order where it has one. __debug_names
# (an accelerator table, clang's form of which llvm-14 cannot even read) is left out, as
# dsymutil leaves out what it cannot link; nothing looks addresses up through it.
DWARF_ORDER = ["__debug_line", "__debug_line_str", "__debug_loclists", "__debug_rnglists", "__debug_addr",
               "__debug_info", "__debug_abbrev", "__debug_str", "__debug_str_offs"]


class LinkError(Exception):
    pass


def cstring(raw):
    return raw.split(b"\0", 1)[0].decode()


class MachO:
    def __init__(self, path):
        self.path = path
        self.data = open(path, "rb").read()
        magic, self.cputype, self.cpusubtype, self.filetype, ncmds, _, _, _ = struct.unpack_from("<IiiIIIII", self.data, 0)
        if magic != MH_MAGIC_64:
            raise LinkError(f"{path}: not a thin 64-bit little-endian Mach-O file")
        self.commands = []  # (cmd, raw bytes)
        self.segments = []  # (segment fields, [section fields])
        self.sections = []  # flat, in ordinal order (ordinal = index + 1)
        self.symbols = []  # (name, type, sect, desc, value)
        offset = 32
        for _ in range(ncmds):
            cmd, cmdsize = struct.unpack_from("<II", self.data, offset)
            raw = self.data[offset:offset + cmdsize]
            self.commands.append((cmd, raw))
            if cmd == LC_SEGMENT_64:
                segment = list(struct.unpack_from(SEGMENT_FORMAT, raw, 0))
                sections = []
                for index in range(segment[9]):
                    section = list(struct.unpack_from(SECTION_FORMAT, raw, 72 + 80 * index))
                    sections.append(section)
                    self.sections.append(section)
                self.segments.append((segment, sections))
            elif cmd == LC_SYMTAB:
                symoff, nsyms, stroff, _ = struct.unpack_from("<IIII", raw, 8)
                for index in range(nsyms):
                    strx, n_type, n_sect, n_desc, n_value = struct.unpack_from(NLIST_FORMAT, self.data, symoff + 16 * index)
                    name = cstring(self.data[stroff + strx:stroff + strx + 4096])
                    self.symbols.append((name, n_type, n_sect, n_desc, n_value))
            offset += cmdsize

    def section_named(self, segname, sectname):
        for section in self.sections:
            if cstring(section[1]) == segname and cstring(section[0]) == sectname:
                return section
        return None

    def section_bytes(self, section):
        return self.data[section[4]:section[4] + section[3]]


def section_deltas(obj, binary):
    """How far the linker moved each object section holding code or data, from the symbols."""
    final = {name: value for name, n_type, _, _, value in binary.symbols
             if not n_type & N_STAB and n_type & N_TYPE == N_SECT}
    deltas = {}
    for name, n_type, n_sect, _, value in obj.symbols:
        if n_type & N_STAB or n_type & N_TYPE != N_SECT or name not in final or name.startswith("ltmp"):
            continue
        delta = final[name] - value
        if deltas.setdefault(n_sect, delta) != delta:
            raise LinkError(f"{obj.path}: section {n_sect} was not moved by one fixed amount ({name})")
    return deltas


def relocated(obj, section, deltas):
    """The section's bytes with its section-relative 64-bit address relocations applied."""
    content = bytearray(obj.section_bytes(section))
    reloff, nreloc = section[6], section[7]
    for index in range(nreloc):
        r_address, info = struct.unpack_from("<iI", obj.data, reloff + 8 * index)
        symbolnum = info & 0xFFFFFF
        pcrel = (info >> 24) & 1
        length = (info >> 25) & 3
        extern = (info >> 27) & 1
        r_type = info >> 28
        if r_address < 0 or pcrel or length != 3 or extern or r_type != RELOC_UNSIGNED:
            raise LinkError(f"{obj.path}: {cstring(section[0])}: unsupported relocation at 0x{r_address & 0xffffffff:x}")
        if symbolnum not in deltas:
            raise LinkError(f"{obj.path}: {cstring(section[0])}: no symbol tells where section {symbolnum} went")
        value = struct.unpack_from("<Q", content, r_address)[0]
        struct.pack_into("<Q", content, r_address, value + deltas[symbolnum])
    return bytes(content)


def link(binary_path, object_path, out_path):
    binary = MachO(binary_path)
    obj = MachO(object_path)
    deltas = section_deltas(obj, binary)
    # A section without symbols (ltmp labels only) moved like the binary section of that name.
    for ordinal, section in enumerate(obj.sections, start=1):
        if ordinal not in deltas:
            target = binary.section_named(cstring(section[1]), cstring(section[0]))
            if target is not None:
                deltas[ordinal] = target[2] - section[2]

    dwarf = []
    for name in DWARF_ORDER:
        section = obj.section_named("__DWARF", name)
        if section is not None:
            dwarf.append((name, relocated(obj, section, deltas)))

    # Symbol table: the binary's symbols without debug-map stabs (those name the build folder).
    strings = bytearray(b"\0")
    nlists = bytearray()
    for name, n_type, n_sect, n_desc, n_value in binary.symbols:
        if n_type & N_STAB:
            continue
        nlists += struct.pack(NLIST_FORMAT, len(strings), n_type, n_sect, n_desc, n_value)
        strings += name.encode() + b"\0"
    while len(strings) % 8:
        strings += b"\0"

    copied_segments = [(seg, secs) for seg, secs in binary.segments if cstring(seg[2]) != "__LINKEDIT"]
    linkedit = next((seg for seg, _ in binary.segments if cstring(seg[2]) == "__LINKEDIT"), None)
    if linkedit is None:
        raise LinkError(f"{binary_path}: no __LINKEDIT segment")
    uuid_command = next((raw for cmd, raw in binary.commands if cmd == LC_UUID), None)
    if uuid_command is None:
        raise LinkError(f"{binary_path}: no LC_UUID")
    build_version = [raw for cmd, raw in binary.commands if cmd == LC_BUILD_VERSION]

    sizeofcmds = len(uuid_command) + sum(len(raw) for raw in build_version) + 24
    sizeofcmds += sum(72 + 80 * len(secs) for _, secs in copied_segments) + 72 + 72 + 80 * len(dwarf)
    linkedit_offset = (32 + sizeofcmds + PAGE - 1) // PAGE * PAGE
    linkedit_size = len(nlists) + len(strings)
    dwarf_offset = (linkedit_offset + linkedit_size + PAGE - 1) // PAGE * PAGE
    dwarf_size = sum(len(content) for _, content in dwarf)
    linkedit_vmaddr = linkedit[3]
    linkedit_vmsize = (linkedit_size + PAGE - 1) // PAGE * PAGE
    dwarf_vmaddr = linkedit_vmaddr + linkedit_vmsize

    commands = bytearray(uuid_command)
    for raw in build_version:
        commands += raw
    commands += struct.pack("<IIIIII", LC_SYMTAB, 24, linkedit_offset, len(nlists) // 16,
                            linkedit_offset + len(nlists), len(strings))
    for segment, sections in copied_segments:
        fields = list(segment)
        fields[1] = 72 + 80 * len(sections)
        fields[5] = 0  # fileoff
        fields[6] = 0  # filesize
        commands += struct.pack(SEGMENT_FORMAT, *fields)
        for section in sections:
            fields = list(section)
            fields[4] = 0  # offset
            fields[6] = 0  # reloff
            fields[7] = 0  # nreloc
            commands += struct.pack(SECTION_FORMAT, *fields)
    commands += struct.pack(SEGMENT_FORMAT, LC_SEGMENT_64, 72, b"__LINKEDIT", linkedit_vmaddr, linkedit_vmsize,
                            linkedit_offset, linkedit_size, 7, 1, 0, 0)
    commands += struct.pack(SEGMENT_FORMAT, LC_SEGMENT_64, 72 + 80 * len(dwarf), b"__DWARF", dwarf_vmaddr,
                            (dwarf_size + PAGE - 1) // PAGE * PAGE, dwarf_offset, dwarf_size, 7, 3, len(dwarf), 0)
    at = 0
    for name, content in dwarf:
        commands += struct.pack(SECTION_FORMAT, name.encode()[:16], b"__DWARF", dwarf_vmaddr + at, len(content),
                                dwarf_offset + at, 0, 0, 0, 0, 0, 0, 0)
        at += len(content)
    if len(commands) != sizeofcmds:
        raise LinkError("internal: load command size mismatch")

    ncmds = 1 + len(build_version) + 1 + len(copied_segments) + 2
    out = bytearray(struct.pack("<IiiIIIII", MH_MAGIC_64, binary.cputype, binary.cpusubtype, MH_DSYM, ncmds,
                                sizeofcmds, 0, 0))
    out += commands
    out += b"\0" * (linkedit_offset - len(out))
    out += nlists + strings
    out += b"\0" * (dwarf_offset - len(out))
    for _, content in dwarf:
        out += content
    open(out_path, "wb").write(out)


def main(argv):
    if len(argv) != 4:
        print(__doc__, file=sys.stderr)
        return 64
    try:
        link(argv[1], argv[2], argv[3])
    except (LinkError, OSError, struct.error) as error:
        print(f"dwarf5dsym: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

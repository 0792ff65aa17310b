#!/usr/bin/env python3
"""Writes the fixture catalog: manifest.json, yuiapp-functions.json and expected/<name>.addresses.

  catalog.py FIXTURES_DIR [BUILD=YUIAPP_BINARY]... [YuiNest=BINARY]

With the linked YuiApp binary of a build (the dSYM has no code), yuiapp-functions.json also lists
each function's call sites: the return address of every `bl`, as it appears in a stack. The
address lists of those builds, and of YuiNest given its binary, include every `bl` (return
address - 4).

Every fixture file is listed in FIXTURES below. For each slice the manifest records its UUID, arch
and text base (Mach-O `__TEXT` vmaddr, or the ELF's first PT_LOAD vaddr), the DWARF version, and
the name of its expected/ files. expected/regenerate.sh then asks llvm-symbolizer-14 about those
addresses.
"""

import json
import os
import re
import struct
import sys
import uuid as uuidlib

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import describe  # noqa: E402
import machotool  # noqa: E402

# name, path (relative to dsyms-fixtures), build folder (None outside builds/), what it is for
FIXTURES = [
    ("YuiApp-130", "builds/130/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp", "130",
     "Swift iOS app, build 130: types, inlined helpers, closures, a function ending in a call"),
    ("YuiApp-131", "builds/131/YuiApp.app.dSYM/Contents/Resources/DWARF/YuiApp", "131",
     "the same app, build 131: one more function, so every address after it moves"),
    ("YuiKit-130", "builds/130/YuiKit.framework.dSYM/Contents/Resources/DWARF/YuiKit", "130",
     "C++ framework of build 130: _Z names, inlined functions, __TEXT at 0, two C functions with no DWARF"),
    ("YuiCore-fat32", "other/YuiCore.framework.dSYM/Contents/Resources/DWARF/YuiCore", None,
     "fat dSYM, FAT_MAGIC (32-bit) header, arm64 + x86_64 slices of different UUIDs"),
    ("YuiCore-fat64", "other/YuiCore64", None,
     "plain fat file, FAT_MAGIC_64 header, arm64 + arm64e slices of different UUIDs"),
    ("YuiCore5", "other/YuiCore5.dSYM/Contents/Resources/DWARF/YuiCore5", None,
     "DWARF 5 dSYM (C): __debug_str_offs, __debug_addr, __debug_line_str, __debug_rnglists"),
    ("yui-linux", "other/yui-linux", None,
     "x86-64 Linux ELF with a GNU build-id and no .debug_aranges (DWARF 5, C++)"),
    ("YuiNest", "other/YuiNest.app.dSYM/Contents/Resources/DWARF/YuiNest", None,
     "Swift iOS app: closures and local functions nested in their parent's subprogram DIE, "
     "code outside the parent's range, inlined calls inside them"),
]

ELF_MAGIC = b"\x7fELF"
PT_LOAD = 1
PT_NOTE = 4
NT_GNU_BUILD_ID = 3


def elf_facts(data):
    """(first PT_LOAD vaddr, GNU build-id bytes) of a 64-bit little-endian ELF file."""
    if data[4] != 2 or data[5] != 1:
        raise SystemExit("catalog: only 64-bit little-endian ELF fixtures are described")
    phoff = struct.unpack_from("<Q", data, 0x20)[0]
    phentsize, phnum = struct.unpack_from("<HH", data, 0x36)
    first_load = None
    build_id = None
    for index in range(phnum):
        at = phoff + index * phentsize
        p_type, _, p_offset, p_vaddr, _, p_filesz = struct.unpack_from("<IIQQQQ", data, at)
        if p_type == PT_LOAD and first_load is None:
            first_load = p_vaddr
        if p_type == PT_NOTE:
            offset = p_offset
            while offset + 12 <= p_offset + p_filesz:
                namesz, descsz, note_type = struct.unpack_from("<III", data, offset)
                name_at = offset + 12
                desc_at = name_at + ((namesz + 3) & ~3)
                if note_type == NT_GNU_BUILD_ID and data[name_at:name_at + namesz].rstrip(b"\0") == b"GNU":
                    build_id = data[desc_at:desc_at + descsz]
                offset = desc_at + ((descsz + 3) & ~3)
    return first_load, build_id


def dwarf_versions(path, arch):
    output = describe.run("llvm-dwarfdump-14", "--debug-info", *describe.arch_options(arch), path)
    return sorted({int(v, 16) for v in re.findall(r"Compile Unit:.*?version = (0x[0-9a-f]+)", output)})


def describe_slices(fixtures, name, path):
    full = os.path.join(fixtures, path)
    data = open(full, "rb").read()
    if data[:4] == ELF_MAGIC:
        text_vmaddr, build_id = elf_facts(data)
        if build_id is None or len(build_id) < 16:
            raise SystemExit(f"catalog: {path}: no GNU build-id of 16 bytes or more")
        plain = uuidlib.UUID(bytes=bytes(build_id[:16]))
        swapped = uuidlib.UUID(bytes_le=bytes(build_id[:16]))
        return "elf", [{
            "uuid": str(plain).upper(),
            "uuid_byte_swapped": str(swapped).upper(),
            "build_id": build_id.hex(),
            "arch": "x86_64",
            "text_vmaddr": f"0x{text_vmaddr:x}",
            "expected": name,
            "dwarf_versions": dwarf_versions(full, None),
        }], None
    magic = struct.unpack_from(">I", data, 0)[0]
    is_fat = magic in (machotool.FAT_MAGIC, machotool.FAT_MAGIC_64)
    slices = []
    for offset, _ in machotool.slices(data):
        info = machotool.slice_info(data, offset)
        arch = info["arch"] if is_fat else None
        slices.append({
            "uuid": info["uuid"],
            "arch": info["arch"],
            "text_vmaddr": info["text_vmaddr"],
            "expected": f"{name}-{info['arch']}" if is_fat else name,
            "dwarf_versions": dwarf_versions(full, arch),
        })
    fat_header = None
    if is_fat:
        fat_header = "FAT_MAGIC" if magic == machotool.FAT_MAGIC else "FAT_MAGIC_64"
    return ("fat" if is_fat else "macho"), slices, fat_header


CALL_LINE = re.compile(r"^\s*([0-9a-f]+):\s+bl\s+0x([0-9a-f]+)")


def call_sites(binary, functions, text_vmaddr):
    """{function start: [{return_offset, callee}]} from the binary's `bl` instructions."""
    output = describe.run("llvm-objdump-14", "-d", "--no-show-raw-insn", binary)
    starts = sorted(f["start"] for f in functions)
    names = {f["start"]: f["linkage_name"] for f in functions}
    ends = {f["start"]: f["start"] + f["size"] for f in functions}
    calls = {start: [] for start in starts}
    for line in output.splitlines():
        match = CALL_LINE.match(line)
        if not match:
            continue
        at, target = int(match.group(1), 16), int(match.group(2), 16)
        owner = next((s for s in reversed(starts) if s <= at < ends[s]), None)
        if owner is None:
            continue
        calls[owner].append({
            "return_offset": at + 4 - text_vmaddr,
            # A call outside the app's functions goes through a dyld stub to the Swift runtime.
            "callee": names.get(target, "(runtime stub)"),
        })
    return calls


def main(argv):
    if len(argv) < 2:
        print(__doc__, file=sys.stderr)
        return 64
    fixtures = argv[1]
    binaries = dict(arg.split("=", 1) for arg in argv[2:])
    os.makedirs(os.path.join(fixtures, "expected"), exist_ok=True)
    manifest = []
    functions_table = {"image": "YuiApp", "builds": {}}
    for name, path, build, purpose in FIXTURES:
        full = os.path.join(fixtures, path)
        if not os.path.exists(full):
            print(f"catalog: {path} is missing, left out of the manifest", file=sys.stderr)
            continue
        file_format, slices, fat_header = describe_slices(fixtures, name, path)
        versions = sorted({v for s in slices for v in s["dwarf_versions"]})
        entry = {
            "name": name,
            "path": path,
            "format": file_format,
            "image": os.path.basename(path),
            "purpose": purpose,
            "slices": [],
            "dwarf_version": versions[0] if len(versions) == 1 else versions,
        }
        if build is not None:
            entry["build"] = build
        if fat_header is not None:
            entry["fat_header"] = fat_header
        # The call instructions (return address - 4) are what non-leaf frames look up: listed for
        # the YuiApp builds (binaries named by build) and YuiNest (named by fixture name).
        call_addresses = set()
        binary = binaries.get(build) if name.startswith("YuiApp-") else binaries.get(name)
        if binary is not None:
            described = describe.functions(full, None)
            for sites in call_sites(binary, described, 0).values():
                call_addresses.update(site["return_offset"] - 4 for site in sites)
        for slice_entry in slices:
            arch = slice_entry["arch"] if file_format == "fat" else None
            addresses = sorted(set(describe.addresses(full, arch)) | call_addresses)
            with open(os.path.join(fixtures, "expected", slice_entry["expected"] + ".addresses"), "w") as out:
                out.writelines(f"0x{a:x}\n" for a in addresses)
            slice_entry["address_count"] = len(addresses)
            del slice_entry["dwarf_versions"]
            entry["slices"].append(slice_entry)
        manifest.append(entry)

        if name.startswith("YuiApp-"):
            text_vmaddr = int(slices[0]["text_vmaddr"], 16)
            described = describe.functions(full, None)
            calls = call_sites(binaries[build], described, text_vmaddr) if build in binaries else {}
            functions = []
            for function in described:
                functions.append({
                    "linkage_name": function["linkage_name"],
                    "symbol": function["symbol"],
                    "demangled": function["demangled"],
                    "start_offset": function["start"] - text_vmaddr,
                    "size": function["size"],
                    "inlined": [{
                        "linkage_name": inlined["linkage_name"],
                        "demangled": inlined["demangled"],
                        "depth": inlined["depth"],
                        "call_line": inlined["call_line"],
                        "ranges": [[low - text_vmaddr, high - text_vmaddr] for low, high in inlined["ranges"]],
                    } for inlined in function["inlined"]],
                    "calls": calls.get(function["start"], []),
                })
            functions_table["builds"][build] = {
                "uuid": slices[0]["uuid"],
                "text_vmaddr": slices[0]["text_vmaddr"],
                "dsym": path,
                "functions": functions,
            }

    with open(os.path.join(fixtures, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=2)
        out.write("\n")
    with open(os.path.join(fixtures, "yuiapp-functions.json"), "w") as out:
        json.dump(functions_table, out, indent=1)
        out.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

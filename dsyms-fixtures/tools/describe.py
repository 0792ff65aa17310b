#!/usr/bin/env python3
"""Describes a debug-file fixture: its functions (symbol table + DWARF) and the addresses to check.

Commands (ARCH picks a slice of a fat file, by llvm's arch name):
  functions FILE [ARCH]   JSON: every function with start, size, linkage/demangled name, inlined ranges
  addresses FILE [ARCH]   one hex address per line: every function start and at least three
                          addresses inside each function, including the start of each inlined range

The facts come from llvm-nm-14 (the symbol table) and llvm-dwarfdump-14 --debug-info (subprogram
and inlined-subroutine ranges); names are demangled with the toolchain's swift-demangle (Swift)
and llvm-cxxfilt-14 (C++).
"""

import json
import re
import subprocess
import sys

TAG_LINE = re.compile(r"^0x([0-9a-f]+):(\s+)(DW_TAG_\w+|NULL)")
ATTR_LINE = re.compile(r"^\s+(DW_AT_\w+)\s+\((.*)$")
RANGE_LINE = re.compile(r"\[0x([0-9a-f]+), 0x([0-9a-f]+)\)")


def run(*command):
    return subprocess.run(command, check=True, capture_output=True, text=True).stdout


def arch_options(arch):
    return [f"--arch={arch}"] if arch else []


def is_x86(file, arch):
    if arch:
        return arch.startswith("x86_64")
    with open(file, "rb") as handle:
        head = handle.read(20)
    if head[:4] == b"\x7fELF":
        return int.from_bytes(head[18:20], "little") == 62  # EM_X86_64
    return int.from_bytes(head[4:8], "little") == 0x01000007  # CPU_TYPE_X86_64 (thin Mach-O)


def text_symbols(file, arch):
    """(address, symbol name) for every defined text symbol, lowest address first."""
    output = run("llvm-nm-14", "-n", "--defined-only", *arch_options(arch), file)
    symbols = []
    for line in output.splitlines():
        parts = line.split(None, 2)
        if len(parts) != 3 or parts[1] not in ("T", "t"):
            continue
        name = parts[2]
        if name in ("__mh_execute_header", "__mh_dylib_header") or name.startswith("ltmp"):
            continue
        symbols.append((int(parts[0], 16), name))
    return symbols


def text_section_end(file, arch):
    """End address of the section that holds the code (__text or .text)."""
    output = run("llvm-objdump-14", "--section-headers", *arch_options(arch), file)
    for line in output.splitlines():
        parts = line.split()
        if len(parts) >= 4 and parts[1] in ("__text", ".text"):
            return int(parts[3], 16) + int(parts[2], 16)
    raise SystemExit(f"describe: {file}: no __text or .text section")


def parse_dies(file, arch):
    """Reads llvm-dwarfdump's --debug-info listing into a flat list of DIEs with depth and attributes."""
    output = run("llvm-dwarfdump-14", "--debug-info", *arch_options(arch), file)
    dies = []
    current = None
    pending_ranges = None
    for line in output.splitlines():
        tag = TAG_LINE.match(line)
        if tag:
            depth = len(tag.group(2))
            current = {"offset": int(tag.group(1), 16), "depth": depth, "tag": tag.group(3), "attrs": {}}
            dies.append(current)
            pending_ranges = None
            continue
        if current is None:
            continue
        if pending_ranges is not None:
            pending_ranges.extend((int(a, 16), int(b, 16)) for a, b in RANGE_LINE.findall(line))
            if line.rstrip().endswith("))"):
                pending_ranges = None
            continue
        attr = ATTR_LINE.match(line)
        if not attr:
            continue
        name, value = attr.group(1), attr.group(2)
        if value.endswith(")"):
            value = value[:-1]
        if name == "DW_AT_ranges":
            ranges = [(int(a, 16), int(b, 16)) for a, b in RANGE_LINE.findall(line)]
            current["attrs"]["ranges"] = ranges
            if not line.rstrip().endswith("))"):
                pending_ranges = ranges
        else:
            current["attrs"][name] = value
    return dies


def quoted(value):
    match = re.search(r'"(.*)"', value)
    return match.group(1) if match else None


def die_ranges(die):
    attrs = die["attrs"]
    if "ranges" in attrs:
        return [r for r in attrs["ranges"] if r[1] > r[0]]
    if "DW_AT_low_pc" in attrs and "DW_AT_high_pc" in attrs:
        low = int(attrs["DW_AT_low_pc"].split()[0], 16)
        high_text = attrs["DW_AT_high_pc"].split()[0]
        high = int(high_text, 16)
        if high < low:  # DWARF 4+ high_pc as an offset from low_pc
            high = low + high
        return [(low, high)] if high > low else []
    return []


def die_name(die, by_offset):
    """Linkage name, else plain name, following abstract_origin / specification references."""
    seen = set()
    while die is not None and die["offset"] not in seen:
        seen.add(die["offset"])
        attrs = die["attrs"]
        for key in ("DW_AT_linkage_name", "DW_AT_MIPS_linkage_name", "DW_AT_name"):
            if key in attrs:
                return quoted(attrs[key]) or attrs[key]
        ref = attrs.get("DW_AT_abstract_origin") or attrs.get("DW_AT_specification")
        if not ref:
            return None
        die = by_offset.get(int(ref.split()[0], 16))
    return None


def demangle_all(names):
    """Demangled form of each name: Swift via swift-demangle, C++ via llvm-cxxfilt-14."""
    result = {}
    swift = [n for n in names if n.lstrip("_").startswith(("$s", "$S", "T0"))]
    cxx = [n for n in names if n.startswith(("_Z", "__Z"))]
    if swift:
        lines = run("swift-demangle", "--compact", *swift).splitlines()
        result.update(zip(swift, lines))
    if cxx:
        lines = run("llvm-cxxfilt-14", *[n[1:] if n.startswith("__Z") else n for n in cxx]).splitlines()
        result.update(zip(cxx, lines))
    return {name: result.get(name, name) for name in names}


def functions(file, arch):
    symbols = text_symbols(file, arch)
    with open(file, "rb") as handle:
        macho = handle.read(4) != b"\x7fELF"
    section_end = text_section_end(file, arch)
    dies = parse_dies(file, arch)
    by_offset = {die["offset"]: die for die in dies}

    # Concrete subprograms keyed by start address, with their inlined subroutines below them.
    subprograms = {}
    stack = []
    for die in dies:
        while stack and stack[-1]["depth"] >= die["depth"]:
            stack.pop()
        if die["tag"] == "NULL":
            continue
        if die["tag"] == "DW_TAG_subprogram" and die_ranges(die):
            entry = {"die": die, "inlined": []}
            for low, _ in die_ranges(die):
                subprograms[low] = entry
        elif die["tag"] == "DW_TAG_inlined_subroutine":
            owner = next((s for s in reversed(stack) if s["tag"] == "DW_TAG_subprogram" and die_ranges(s)), None)
            if owner is not None:
                depth = sum(1 for s in stack if s["tag"] == "DW_TAG_inlined_subroutine" and s["depth"] > owner["depth"])
                low = die_ranges(owner)[0][0]
                subprograms[low]["inlined"].append((die, depth + 1))
        stack.append(die)

    by_start = []
    for index, (address, symbol) in enumerate(symbols):
        if by_start and by_start[-1][0] == address:
            continue  # an alias at the same address: the first symbol (llvm-nm order) names it
        by_start.append((address, symbol))

    result = []
    for index, (address, symbol) in enumerate(by_start):
        next_start = by_start[index + 1][0] if index + 1 < len(by_start) else section_end
        entry = subprograms.get(address)
        # Mach-O symbols carry an extra leading underscore; ELF symbols do not.
        linkage = symbol[1:] if macho and symbol.startswith("_") else symbol
        size = next_start - address
        inlined = []
        if entry is not None:
            die_name_value = die_name(entry["die"], by_offset)
            if die_name_value and entry["die"]["attrs"].get("DW_AT_linkage_name"):
                linkage = die_name_value
            size = max(high for _, high in die_ranges(entry["die"])) - address
            for inlined_die, depth in entry["inlined"]:
                inlined.append({
                    "linkage_name": die_name(inlined_die, by_offset),
                    "depth": depth,
                    "call_line": int(inlined_die["attrs"].get("DW_AT_call_line", "0").split()[0]),
                    "ranges": die_ranges(inlined_die),
                })
        result.append({"symbol": symbol, "linkage_name": linkage, "start": address, "size": size,
                       "has_dwarf": entry is not None, "inlined": inlined})

    names = sorted({f["linkage_name"] for f in result} | {i["linkage_name"] for f in result for i in f["inlined"] if i["linkage_name"]})
    demangled = demangle_all(names)
    for function in result:
        function["demangled"] = demangled[function["linkage_name"]]
        for inlined in function["inlined"]:
            inlined["demangled"] = demangled.get(inlined["linkage_name"], inlined["linkage_name"])
    return result


def addresses(file, arch):
    step = 1 if is_x86(file, arch) else 4
    chosen = set()
    for function in functions(file, arch):
        start, end = function["start"], function["start"] + function["size"]
        inside = {start}
        for candidate in (start + step, start + (function["size"] // 2) // step * step, end - step):
            if start <= candidate < end:
                inside.add(candidate)
        for inlined in function["inlined"]:
            for low, high in inlined["ranges"]:
                inside.add(low)
                inside.add(low + ((high - low) // 2) // step * step)
        byte = start + 1
        while len(inside) < 4 and byte < end:  # tiny functions: fill with addresses inside instructions
            inside.add(byte)
            byte += 1
        chosen.update(a for a in inside if start <= a < end)
    return sorted(chosen)


def main(argv):
    if len(argv) in (3, 4) and argv[1] in ("functions", "addresses"):
        file, arch = argv[2], argv[3] if len(argv) == 4 else None
        if argv[1] == "functions":
            print(json.dumps(functions(file, arch), indent=1))
        else:
            for address in addresses(file, arch):
                print(f"0x{address:x}")
        return 0
    print(__doc__, file=sys.stderr)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))

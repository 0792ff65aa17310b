#!/usr/bin/env python3
"""Writes the address list of one slice of a real (Apple-built) debug file, for the agreement test.

Usage: real_addresses.py PATH [ARCH] > addresses

The list, in the file's own address space: every function symbol's start (`llvm-nm-14`, code
symbols; the Mach-O header symbols `__mh_*_header` are not functions and are left out), every
DW_TAG_subprogram's start, two addresses drawn inside each function (a fixed seed per file, aligned
to the instruction size), and the start and middle of every range of every DW_TAG_inlined_subroutine
(`llvm-dwarfdump-14 --debug-info`). Sorted, without repeats.
"""
import random, re, subprocess, sys

path = sys.argv[1]
arch = sys.argv[2] if len(sys.argv) > 2 and sys.argv[2] else None
arch_args = [f"--arch={arch}"] if arch else []

nm = subprocess.run(["llvm-nm-14", "-n", "--defined-only"] + arch_args + [path],
                    capture_output=True, text=True, check=True).stdout
symbols = []
for line in nm.splitlines():
    parts = line.split(None, 2)
    if len(parts) == 3 and parts[1] in "tT" and not re.match(r"^__mh_\w+_header$", parts[2]):
        symbols.append(int(parts[0], 16))

dump = subprocess.run(["llvm-dwarfdump-14", "--debug-info"] + arch_args + [path],
                      capture_output=True, text=True).stdout
subprogram_starts, inlined_ranges = [], []
tag = None
low = None
for line in dump.splitlines():
    match = re.match(r"^0x[0-9a-f]+:\s+(DW_TAG_\w+|NULL)", line)
    if match:
        tag, low = match.group(1), None
        continue
    if tag not in ("DW_TAG_subprogram", "DW_TAG_inlined_subroutine"):
        continue
    if m := re.search(r"DW_AT_low_pc\s+\((0x[0-9a-f]+)\)", line):
        low = int(m.group(1), 16)
        if tag == "DW_TAG_subprogram" and low:
            subprogram_starts.append(low)
    elif (m := re.search(r"DW_AT_high_pc\s+\((0x[0-9a-f]+)\)", line)) and low is not None:
        high = int(m.group(1), 16)
        if tag == "DW_TAG_inlined_subroutine" and low and high > low:
            inlined_ranges.append((low, high))
    elif m := re.search(r"\[(0x[0-9a-f]+), (0x[0-9a-f]+)\)", line):
        start, end = int(m.group(1), 16), int(m.group(2), 16)
        if start and end > start:
            if tag == "DW_TAG_inlined_subroutine":
                inlined_ranges.append((start, end))

align = 4 if (arch or "").startswith("arm64") else 2 if (arch or "").startswith("armv7") else 1
if arch is None:
    header = open(path, "rb").read(8)
    cpu = int.from_bytes(header[4:8], "little")
    align = {0x0100000C: 4, 12: 2}.get(cpu, 1)
starts = sorted(set(symbols) | set(subprogram_starts))
rng = random.Random(f"{path.split('/')[-1]}:{arch}:20261130")
addresses = set(starts)
for index, start in enumerate(starts):
    end = starts[index + 1] if index + 1 < len(starts) else start + 64
    size = min(end - start, 1 << 16)
    for _ in range(2):
        if size > align:
            addresses.add(start + rng.randrange(0, size) // align * align)
for start, end in inlined_ranges:
    addresses.add(start)
    addresses.add(start + (end - start) // 2 // align * align)
for address in sorted(addresses):
    print(f"0x{address:x}")

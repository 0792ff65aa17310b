#!/usr/bin/env python3
"""Remakes dsyms-fixtures/real/manifest.json and real/expected/: for every slice of every real debug
file listed in PURPOSES, its address list (tools/real_addresses.py) and llvm-symbolizer-14's
answers for it (`--output-style=JSON --functions=linkage --inlines --no-demangle`, one JSON object
per line, trimmed to the address and each frame's function, file and line).

The debug files themselves are data copied from public repositories (see PROVENANCE); this
script only reads them. Needs llvm-14 (scripts/install-system-packages installs it).
`--into DIR` writes into DIR instead (dsyms-fixtures/check.sh compares that with what is committed).
"""
import json, os, struct, subprocess, sys

HERE = os.path.dirname(os.path.abspath(__file__))
TOOLS = os.path.join(os.path.dirname(HERE), "tools")

# path under real/ -> (short name, why it is here)
PURPOSES = {
    "swift-dwarf/TestProgram.dSYM/Contents/Resources/DWARF/TestProgram":
        ("TestProgram", "Swift 6.2.1 (Xcode 26.1) arm64 macOS program, DWARF 5 line tables: the newest Apple toolchain"),
    "symbolic-macos/crash.dSYM/Contents/Resources/DWARF/crash":
        ("crash", "C++ x86_64 macOS program with heavy inlining (Apple clang, dsymutil)"),
    "symbolic-macos/binary/crash":
        ("crash-binary", "the same program's executable: a symbol table and no DWARF (answered from the symbols, as atos does)"),
    "symbolic-macos/overlapping_funcs.dSYM/Contents/Resources/DWARF/overlapping_funcs":
        ("overlapping_funcs", "x86_64 dSYM whose functions overlap"),
    "symbolic-macos/Example.framework.dSYM/Contents/Resources/DWARF/Example":
        ("Example", "fat dSYM (arm64, x86_64) of a framework with data symbols and no code"),
    "sentry-ios-1.4.1/54039061-A983-3323-A49D-837A894D667F.dSYM/Contents/Resources/DWARF/CrashProbeiOS":
        ("CrashProbeiOS-arm64", "iOS app, Swift 3 and Objective-C, arm64 (Xcode 8 era): legacy _T Swift names, -[Class method:] names"),
    "sentry-ios-1.4.1/2FF9CF4D-6117-36C5-AFD0-18D600A49351.dSYM/Contents/Resources/DWARF/CrashProbeiOS":
        ("CrashProbeiOS-armv7", "the same app, armv7 (Thumb): 32-bit Mach-O"),
    "sentry-ios-1.4.1/C68C14BD-7CD2-33A5-BCEB-794964630DB5.dSYM/Contents/Resources/DWARF/libswiftCoreGraphics.dylib":
        ("libswiftCoreGraphics-arm64", "Apple's own Swift overlay dSYM from a bitcode build: __hidden#N_ names and paths, header-only compile units"),
    "sentry-ios-1.4.1/1FEAB225-BE3A-3A5D-AFD7-1564E9B14B01.dSYM/Contents/Resources/DWARF/libswiftDarwin.dylib":
        ("libswiftDarwin-armv7", "Apple's Swift overlay, armv7: a header-only unit between DWARF 3 and DWARF 2 units"),
    "sentry-ios-1.4.1/FE11C790-4E46-3E2E-A3D3-8DB2EB0AC49F.dSYM/Contents/Resources/DWARF/libswiftQuartzCore.dylib":
        ("libswiftQuartzCore-arm64", "Apple's Swift overlay whose last compile unit is header-only"),
    "sentry-ios-1.4.1/CECB236E-E4C7-3271-A597-55FBDBE488C6.dSYM/Contents/Resources/DWARF/libswiftDispatch.dylib":
        ("libswiftDispatch-arm64", "Apple's Swift overlay, bitcode-hidden names, inlined Swift code"),
    "sentry-ios-1.4.1/16A1E2FB-6E3F-3A85-A310-0B283C16D894.dSYM/Contents/Resources/DWARF/PLCrashReporter_DynamicFramework":
        ("PLCrashReporter-armv7", "C, C++ and Objective-C framework, armv7: subprograms named by DW_AT_name only (operator new)"),
    "electron-1.8.1/Electron.app.dSYM/Contents/Resources/DWARF/Electron":
        ("Electron", "x86_64 macOS app built with a relative include directory (../../atom/app)"),
    "macsymbolicator/Embedded.app.dSYM/DSYM Example.app.dSYM/Contents/Resources/DWARF/DSYM Example":
        ("DSYMExample", "fat dSYM (arm64, x86_64) of a Swift macOS app"),
    "macsymbolicator/Embedded.app.dSYM/Framework_1.framework.dSYM/Contents/Resources/DWARF/Framework_1":
        ("Framework_1", "fat dSYM (arm64, x86_64) of a framework with no code"),
}

CPU = {7: "i386", 0x01000007: "x86_64", 12: "armv7", 0x0100000C: "arm64"}


def slices(path):
    data = open(path, "rb").read()
    magic = struct.unpack(">I", data[:4])[0]
    if magic in (0xCAFEBABE, 0xCAFEBABF):
        count = struct.unpack(">I", data[4:8])[0]
        found = []
        for index in range(count):
            if magic == 0xCAFEBABE:
                offset = struct.unpack(">I", data[16 + 20 * index:20 + 20 * index])[0]
            else:
                offset = struct.unpack(">Q", data[16 + 32 * index:24 + 32 * index])[0]
            found.append(thin(data, offset))
        return "fat", found
    return "macho", [thin(data, 0)]


def thin(data, base):
    magic, cpu, _, _, count, _ = struct.unpack("<IiiIII", data[base:base + 24])
    at = base + (32 if magic == 0xFEEDFACF else 28)
    uuid, text, dwarf = None, 0, False
    for _ in range(count):
        command, size = struct.unpack("<II", data[at:at + 8])
        if command == 0x1B:
            h = data[at + 8:at + 24].hex().upper()
            uuid = f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"
        elif command in (0x19, 0x1):
            name = data[at + 8:at + 24].rstrip(b"\0").decode()
            vmaddr = struct.unpack("<Q" if command == 0x19 else "<I", data[at + 24:at + (32 if command == 0x19 else 28)])[0]
            if name == "__TEXT":
                text = vmaddr
            if name == "__DWARF":
                dwarf = True
        at += size
    return {"arch": CPU.get(cpu, str(cpu)), "uuid": uuid, "text_vmaddr": f"0x{text:x}", "has_dwarf": dwarf}


def main():
    # --into DIR writes the manifest and expected/ there instead (check.sh compares them).
    into = sys.argv[sys.argv.index("--into") + 1] if "--into" in sys.argv else HERE
    into = os.path.abspath(into)
    os.chdir(HERE)
    os.makedirs(os.path.join(into, "expected"), exist_ok=True)
    manifest = []
    for path, (name, purpose) in PURPOSES.items():
        file_format, found = slices(path)
        entry = {"name": name, "path": path, "format": file_format, "purpose": purpose, "slices": []}
        for s in found:
            expected = f"{name}-{s['arch']}" if file_format == "fat" else name
            arch = s["arch"] if file_format == "fat" else ""
            addresses = subprocess.run([sys.executable, os.path.join(TOOLS, "real_addresses.py"), path, arch],
                                       capture_output=True, text=True, check=True).stdout
            open(os.path.join(into, f"expected/{expected}.addresses"), "w").write(addresses)
            obj = f"{path}:{arch}" if arch else path
            answers = subprocess.run(
                ["llvm-symbolizer-14", "--output-style=JSON", "--functions=linkage", "--inlines", "--no-demangle", f"--obj={obj}"],
                input=addresses, capture_output=True, text=True, check=True).stdout
            with open(os.path.join(into, f"expected/{expected}.json"), "w") as out:
                for line in answers.splitlines():
                    if not line.strip():
                        continue
                    answer = json.loads(line)
                    trimmed = {"Address": answer["Address"],
                               "Symbol": [{"FunctionName": f["FunctionName"], "FileName": f["FileName"], "Line": f["Line"]}
                                          for f in answer.get("Symbol", [])]}
                    out.write(json.dumps(trimmed, separators=(",", ":")) + "\n")
            entry["slices"].append(dict(s, expected=expected, address_count=len(addresses.split())))
        manifest.append(entry)
    with open(os.path.join(into, "manifest.json"), "w") as out:
        json.dump(manifest, out, indent=2)
        out.write("\n")


if __name__ == "__main__":
    main()

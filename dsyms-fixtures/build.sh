#!/usr/bin/env bash
# Rebuilds every debug-file fixture in dsyms-fixtures/ from the sources in dsyms-fixtures/src/,
# then the manifest, the function table and llvm-symbolizer's expected answers.
#
#   dsyms-fixtures/build.sh            rebuild everything (about a minute)
#
# Tools: the Swift toolchain's swiftc and clang (arm64 Mach-O objects for iOS, x86-64 ELF),
# Debian's ld64.lld-16 (the toolchain's own ld64.lld refuses Apple platforms), dsymutil from
# llvm-14, llvm-14's nm/dwarfdump/symbolizer, and python3 for the small Mach-O jobs no tool here
# does: fixed LC_UUIDs, fat headers (32- and 64-bit) and the DWARF 5 dSYM (see docs/fixtures.md).
# Reruns give the same files: the UUIDs are fixed, paths in the DWARF are mapped to /Users/yui/Yui,
# and nothing depends on the time or the build folder.
set -euo pipefail

fixtures="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$fixtures")"
src="$fixtures/src"
tools="$fixtures/tools"

"$repo/scripts/install-system-packages" lld-16 llvm-14 >&2

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

# Where the sources seem to live in the DWARF: a plausible Mac path, the same on every machine.
debug_root=/Users/yui/Yui
ios=(-target arm64-apple-ios17.0)
ld_ios=(ld64.lld-16 -platform_version ios 17.0 17.0 -no_adhoc_codesign)
# debug_paths DIR: sets $debug_flags, the clang flags that name the sources of src/DIR as
# /Users/yui/Yui/DIR/... in the DWARF.
debug_paths() { debug_flags=(-fdebug-prefix-map="$src=$debug_root" -fdebug-compilation-dir="$debug_root/$1"); }

step() { echo "build.sh: $*" >&2; }

# dsymutil BINARY OUT.dSYM: dsymutil-14 reads the object files named in BINARY's debug map.
make_dsym() {
    rm -rf "$2"
    dsymutil "$1" -o "$2" 2> "$work/dsymutil.log" || { cat "$work/dsymutil.log" >&2; exit 1; }
    # dsymutil-14 warns about Swift metadata symbols it cannot map (no code, harmless); show anything else.
    grep -v -e "failed to insert symbol" "$work/dsymutil.log" >&2 || true
}

# ---------------------------------------------------------------------------------------------
# YuiApp, builds 130 and 131 (Swift, -O, arm64 iOS executable)
build_yuiapp() {
    local build="$1" uuid="$2"
    shift 2
    local out="$work/YuiApp-$build"
    mkdir -p "$out"
    step "YuiApp build $build"
    (
        cd "$src/YuiApp"
        # -parse-stdlib: there is no iOS standard library here (the sources use Builtin types).
        swiftc "${ios[@]}" -parse-stdlib -g -O -wmo -module-name YuiApp "$@" \
            -debug-prefix-map "$src=$debug_root" -file-compilation-dir "$debug_root/YuiApp" \
            -c main.swift Builtins.swift YuiLines.swift ChatStore.swift ThreadView.swift \
            -o "$out/YuiApp.o"
    )
    # The app uses the Swift runtime (swift_beginAccess, swift_release, value-witness tables),
    # which dyld would bind at launch; there is no iOS runtime here, so leave it to dynamic lookup.
    "${ld_ios[@]}" -arch arm64 -e _main -undefined dynamic_lookup -o "$out/YuiApp" "$out/YuiApp.o"
    python3 "$tools/machotool.py" patch-uuid "$out/YuiApp" "$uuid"
    mkdir -p "$fixtures/builds/$build"
    make_dsym "$out/YuiApp" "$fixtures/builds/$build/YuiApp.app.dSYM"
}

build_yuiapp 130 4C4C4C4C-5555-3144-A1B2-000000000130
build_yuiapp 131 4C4C4C4C-5555-3144-A1B2-000000000131 -D YUI_BUILD_131

# ---------------------------------------------------------------------------------------------
# YuiKit.framework (C++, -O1, arm64 iOS dylib), shipped with build 130
step "YuiKit"
debug_paths YuiKit
(
    cd "$src/YuiKit"
    clang++ "${ios[@]}" -g -O1 -fno-exceptions -fno-rtti "${debug_flags[@]}" -c YuiKit.cpp -o "$work/YuiKit.o"
    # No -g: symbols without DWARF, for the symbol-table fallback.
    clang "${ios[@]}" -O1 -c YuiKitNoDebug.c -o "$work/YuiKitNoDebug.o"
)
"${ld_ios[@]}" -arch arm64 -dylib -install_name @rpath/YuiKit.framework/YuiKit -o "$work/YuiKit" \
    "$work/YuiKit.o" "$work/YuiKitNoDebug.o"
python3 "$tools/machotool.py" patch-uuid "$work/YuiKit" 4C4C4C4C-5555-3144-A1B2-0000000B0130
make_dsym "$work/YuiKit" "$fixtures/builds/130/YuiKit.framework.dSYM"

# ---------------------------------------------------------------------------------------------
# YuiCore (C, -O1, dylib) in fat files: slices of different UUIDs, 32- and 64-bit fat headers
# core_slice NAME TARGET ARCH PLATFORM VARIANT UUID: a thin dSYM DWARF file at $work/NAME.dwarf
core_slice() {
    local name="$1" target="$2" arch="$3" platform="$4" variant="$5" uuid="$6"
    debug_paths YuiCore
    (
        cd "$src/YuiCore"
        clang -target "$target" -g -O1 -DYUI_CORE_VARIANT="$variant" "${debug_flags[@]}" \
            -c YuiCore.c -o "$work/$name.o"
    )
    ld64.lld-16 -platform_version "$platform" 17.0 17.0 -no_adhoc_codesign -arch "$arch" -dylib \
        -install_name @rpath/YuiCore.framework/YuiCore -o "$work/$name" "$work/$name.o"
    python3 "$tools/machotool.py" patch-uuid "$work/$name" "$uuid"
    if [ "$arch" = arm64e ]; then
        # ld64.lld-16 links arm64e code but writes cpusubtype ALL; give the binary the subtype
        # of its object (CPU_SUBTYPE_ARM64E with the pointer-auth ABI bit), as ld64 does, so that
        # dsymutil matches the object and names the slice arm64e.
        python3 "$tools/machotool.py" set-cpusubtype "$work/$name" 0x80000002
    fi
    make_dsym "$work/$name" "$work/$name.dSYM"
    cp "$work/$name.dSYM/Contents/Resources/DWARF/$name" "$work/$name.dwarf"
}
step "YuiCore fat files"
core_slice core-arm64 arm64-apple-ios17.0 arm64 ios 1 4C4C4C4C-5555-3144-A1B2-0000000C0001
core_slice core-x86_64 x86_64-apple-ios17.0-simulator x86_64 ios-simulator 1 4C4C4C4C-5555-3144-A1B2-0000000C0002
core_slice core2-arm64 arm64-apple-ios17.0 arm64 ios 2 4C4C4C4C-5555-3144-A1B2-0000000C0003
core_slice core3-arm64e arm64e-apple-ios17.0 arm64e ios 3 4C4C4C4C-5555-3144-A1B2-0000000C0004
mkdir -p "$fixtures/other"
# A fat dSYM bundle with a FAT_MAGIC (32-bit) header, as dsymutil writes for a universal binary.
bundle="$fixtures/other/YuiCore.framework.dSYM"
rm -rf "$bundle"
mkdir -p "$bundle/Contents/Resources/DWARF"
sed 's/core-arm64/YuiCore/g' "$work/core-arm64.dSYM/Contents/Info.plist" > "$bundle/Contents/Info.plist"
python3 "$tools/machotool.py" fat 32 "$bundle/Contents/Resources/DWARF/YuiCore" \
    arm64="$work/core-arm64.dwarf" x86_64="$work/core-x86_64.dwarf"
# A plain fat file with a FAT_MAGIC_64 header (dsymutil --fat64), arm64 and arm64e slices.
python3 "$tools/machotool.py" fat 64 "$fixtures/other/YuiCore64" \
    arm64="$work/core2-arm64.dwarf" arm64e="$work/core3-arm64e.dwarf"

# ---------------------------------------------------------------------------------------------
# YuiCore5 (C, -gdwarf-5 -O2, arm64 iOS dylib): the DWARF 5 dSYM. No dsymutil here links clang's
# DWARF 5 (see tools/dwarf5dsym.py), so a small python linker writes the dSYM from the one object.
step "YuiCore5 (DWARF 5)"
debug_paths YuiCore5
(
    cd "$src/YuiCore5"
    clang "${ios[@]}" -gdwarf-5 -O2 "${debug_flags[@]}" -c YuiCore5.c -o "$work/YuiCore5.o"
)
"${ld_ios[@]}" -arch arm64 -dylib -install_name @rpath/YuiCore5.framework/YuiCore5 -o "$work/YuiCore5" "$work/YuiCore5.o"
python3 "$tools/machotool.py" patch-uuid "$work/YuiCore5" 4C4C4C4C-5555-3144-A1B2-0000000D0005
bundle="$fixtures/other/YuiCore5.dSYM"
rm -rf "$bundle"
mkdir -p "$bundle/Contents/Resources/DWARF"
sed 's/YuiKit/YuiCore5/g' "$fixtures/builds/130/YuiKit.framework.dSYM/Contents/Info.plist" > "$bundle/Contents/Info.plist"
python3 "$tools/dwarf5dsym.py" "$work/YuiCore5" "$work/YuiCore5.o" "$bundle/Contents/Resources/DWARF/YuiCore5"
llvm-dwarfdump-14 --verify "$bundle/Contents/Resources/DWARF/YuiCore5" > "$work/verify.log" \
    || { cat "$work/verify.log" >&2; exit 1; }
# Cross-check the python linker against llvm's own relocation handling: llvm-symbolizer on the
# object (addresses less the distance __text moved) must say exactly what it says on the dSYM.
python3 "$tools/describe.py" addresses "$bundle/Contents/Resources/DWARF/YuiCore5" > "$work/YuiCore5.addresses"
text_moved=$(( $(llvm-nm-14 "$work/YuiCore5" | awk '$3 == "_yui5_fold" { print "0x" $1 }') ))
while read -r address; do printf '0x%x\n' $(( address - text_moved )); done < "$work/YuiCore5.addresses" \
    > "$work/YuiCore5.object-addresses"
llvm-symbolizer-14 --inlines --functions=linkage --obj="$bundle/Contents/Resources/DWARF/YuiCore5" \
    < "$work/YuiCore5.addresses" > "$work/YuiCore5.from-dsym"
llvm-symbolizer-14 --inlines --functions=linkage --obj="$work/YuiCore5.o" \
    < "$work/YuiCore5.object-addresses" > "$work/YuiCore5.from-object"
diff "$work/YuiCore5.from-object" "$work/YuiCore5.from-dsym" >&2 \
    || { echo "build.sh: the DWARF 5 dSYM disagrees with its object file" >&2; exit 1; }

# ---------------------------------------------------------------------------------------------
# yui-linux (C++, -O1, x86-64 ELF executable with a GNU build-id and no .debug_aranges)
step "yui-linux"
debug_paths YuiLinux
(
    cd "$src/YuiLinux"
    clang++ -target x86_64-unknown-linux-gnu -g -O1 -fno-exceptions -fno-rtti "${debug_flags[@]}" \
        -nostdlib -static -fuse-ld=lld -Wl,--build-id=0xb17d0e1f2a3b4c5d6e7f8091a2b3c4d5e6f70819 \
        yui_linux.cpp -o "$work/yui-linux"
)
# clang emits no .debug_aranges unless asked; make sure, as Swift on Linux emits none either.
llvm-objcopy-14 --remove-section=.debug_aranges "$work/yui-linux" "$fixtures/other/yui-linux"
if llvm-readelf-14 -S "$fixtures/other/yui-linux" | grep -q debug_aranges; then
    echo "build.sh: other/yui-linux still has .debug_aranges" >&2
    exit 1
fi

# ---------------------------------------------------------------------------------------------
# yui-deep-inline (C, -O1, x86-64 ELF): a 3,000-deep chain of always_inline calls, and
# llvm-symbolizer's answers at its innermost store and at the entry (see docs/fixtures.md).
step "yui-deep-inline"
debug_paths YuiDeep
python3 "$src/YuiDeep/generate.py" "$work/deep.c"
(
    cd "$work"
    clang -target x86_64-unknown-linux-gnu -g -O1 -fdebug-prefix-map="$work=$debug_root/YuiDeep" \
        -fdebug-compilation-dir="$debug_root/YuiDeep" -nostdlib -static -fuse-ld=lld \
        -Wl,--build-id=0xdee90000000000000000000000000000000b3000 deep.c -o "$fixtures/other/yui-deep-inline"
)
deep_innermost="$(llvm-objdump-14 -d --no-show-raw-insn "$fixtures/other/yui-deep-inline" \
    | awk '/<yui_deep_sink>/ { address = $1 } END { sub(":", "", address); print "0x" address }')"
printf '%s\n' "$deep_innermost" 0x201250 > "$fixtures/expected/yui-deep-inline.addresses"
(
    cd "$fixtures"
    llvm-symbolizer-14 --output-style=JSON --functions=linkage --inlines --no-demangle --obj=other/yui-deep-inline \
        < expected/yui-deep-inline.addresses > expected/yui-deep-inline.json
)

# ---------------------------------------------------------------------------------------------
# YuiNest (Swift, -O, arm64 iOS executable): closures and local functions whose subprograms sit
# inside their parent function's subprogram, with code outside the parent's range and inlined
# calls of their own (see docs/fixtures.md).
step "YuiNest"
(
    cd "$src/YuiNest"
    swiftc "${ios[@]}" -parse-stdlib -g -O -wmo -module-name YuiNest \
        -debug-prefix-map "$src=$debug_root" -file-compilation-dir "$debug_root/YuiNest" \
        -c main.swift Builtins.swift Inbox.swift -o "$work/YuiNest.o"
)
"${ld_ios[@]}" -arch arm64 -e _main -undefined dynamic_lookup -o "$work/YuiNest" "$work/YuiNest.o"
python3 "$tools/machotool.py" patch-uuid "$work/YuiNest" 4C4C4C4C-5555-3144-A1B2-0000000E0001
mkdir -p "$fixtures/other"
make_dsym "$work/YuiNest" "$fixtures/other/YuiNest.app.dSYM"

# ---------------------------------------------------------------------------------------------
step "manifest, function table, expected answers"
# The YuiApp binaries (not kept) give the call sites recorded in yuiapp-functions.json; theirs
# and YuiNest's give the call instructions in the address lists.
python3 "$tools/catalog.py" "$fixtures" 130="$work/YuiApp-130/YuiApp" 131="$work/YuiApp-131/YuiApp" \
    YuiNest="$work/YuiNest"
bash "$fixtures/expected/regenerate.sh"
step "done"

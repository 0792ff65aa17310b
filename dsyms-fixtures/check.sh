#!/usr/bin/env bash
# Checks the committed fixtures against what they claim to be, without rebuilding them:
# every manifest slice exists with its UUID, arch and text base; every file passes
# llvm-dwarfdump-14 --verify; the YuiApp dSYMs hold inlined subroutines; YuiNest still has its
# nested subprograms (outside their parent's range, with inlined calls); the ELF has a build-id
# and no .debug_aranges; and expected/*.json is exactly what llvm-symbolizer-14 says today.
# Needs llvm-14 (scripts/install-system-packages installs it). Exit 0 when all checks pass.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
check() {  # check DESCRIPTION COMMAND...: runs COMMAND, counts and reports the outcome
    local description="$1"
    shift
    if "$@" > "$work/out" 2>&1; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
        echo "FAILED: $description" >&2
        sed 's/^/    /' "$work/out" >&2
    fi
}

slice_matches() {  # slice_matches PATH FORMAT ARCH UUID TEXT_VMADDR
    python3 - "$@" <<'EOF'
import json, os, struct, subprocess, sys
sys.dont_write_bytecode = True
sys.path.insert(0, "tools")
import catalog
path, file_format, arch, uuid, text_vmaddr = sys.argv[1:]
name = "check"
actual_format, slices, _ = catalog.describe_slices(".", name, path)
found = [s for s in slices if s["uuid"] == uuid]
if actual_format != file_format or len(found) != 1:
    sys.exit(f"{path}: format {actual_format}, slices {[s['uuid'] for s in slices]}, expected {file_format} with {uuid}")
if found[0]["arch"] != arch or found[0]["text_vmaddr"] != text_vmaddr:
    sys.exit(f"{path}: {uuid} is {found[0]['arch']} at {found[0]['text_vmaddr']}, manifest says {arch} at {text_vmaddr}")
EOF
}

python3 -c '
import json
for entry in json.load(open("manifest.json")):
    for s in entry["slices"]:
        print(entry["path"], entry["format"], s["arch"], s["uuid"], s["text_vmaddr"], s["expected"])
' > "$work/slices"

while read -r path format arch uuid text_vmaddr expected; do
    check "$path ($arch) is $format with UUID $uuid, text at $text_vmaddr" \
        slice_matches "$path" "$format" "$arch" "$uuid" "$text_vmaddr"
    object="$path"
    [ "$format" = fat ] && object="$path:$arch"
    llvm-symbolizer-14 --output-style=JSON --functions=linkage --inlines --no-demangle \
        --obj="$object" < "expected/$expected.addresses" > "$work/$expected.json"
    check "expected/$expected.json matches llvm-symbolizer-14" cmp "expected/$expected.json" "$work/$expected.json"
done < "$work/slices"

agrees_with_symbolizer() {  # every expected answer's outer function is the catalog's function there
    python3 - <<'PYTHON'
import json, sys
sys.dont_write_bytecode = True
sys.path.insert(0, "tools")
import describe
problems = []
for entry in json.load(open("manifest.json")):
    for s in entry["slices"]:
        functions = describe.functions(entry["path"], s["arch"] if entry["format"] == "fat" else None)
        for line in open(f"expected/{s['expected']}.json"):
            answer = json.loads(line)
            address = int(answer["Address"], 16)
            owner = [f for f in functions if f["start"] <= address < f["start"] + f["size"]]
            outer = answer["Symbol"][-1]["FunctionName"]
            if len(owner) != 1 or owner[0]["linkage_name"] != outer:
                names = [f["linkage_name"] for f in owner]
                problems.append(f"{s['expected']} {answer['Address']}: symbolizer {outer}, catalog {names}")
print("\n".join(problems))
sys.exit(1 if problems else 0)
PYTHON
}
check "llvm-symbolizer's functions are the catalog's functions" agrees_with_symbolizer

for path in $(cut -d' ' -f1 "$work/slices" | sort -u); do
    check "$path passes llvm-dwarfdump-14 --verify" llvm-dwarfdump-14 --verify "$path"
done
for build in 130 131; do
    check "YuiApp $build has inlined subroutines" \
        bash -c "llvm-dwarfdump-14 --debug-info builds/$build/YuiApp.app.dSYM | grep -q DW_TAG_inlined_subroutine"
done
nested_subprograms() {  # YuiNest's shape: see docs/fixtures.md
    python3 - <<'PYTHON'
import sys
sys.dont_write_bytecode = True
sys.path.insert(0, "tools")
import describe
dies = describe.parse_dies("other/YuiNest.app.dSYM/Contents/Resources/DWARF/YuiNest", None)
stack, nested = [], []
for index, die in enumerate(dies):
    while stack and stack[-1]["depth"] >= die["depth"]:
        stack.pop()
    ranges = describe.die_ranges(die)
    if die["tag"] == "DW_TAG_subprogram" and ranges:
        parents = [s for s in stack if s["tag"] == "DW_TAG_subprogram" and describe.die_ranges(s)]
        if parents:
            parent = describe.die_ranges(parents[-1])
            outside = all(high <= low2 or low >= high2 for low, high in ranges for low2, high2 in parent)
            below = []
            for later in dies[index + 1:]:
                if later["depth"] <= die["depth"]:
                    break
                below.append(later["tag"])
            if outside and "DW_TAG_inlined_subroutine" in below:
                nested.append((die["offset"], len(parents)))
    stack.append(die)
print(", ".join(f"0x{offset:x} (depth {depth})" for offset, depth in nested))
# Two closures, two local functions and a method's closure; one of them two deep.
sys.exit(0 if len(nested) >= 5 and any(depth >= 2 for _, depth in nested) else 1)
PYTHON
}
check "YuiNest has nested subprograms outside their parent's range, with inlined calls" nested_subprograms
check "other/yui-linux has a GNU build-id" bash -c "llvm-readelf-14 -n other/yui-linux | grep -q 'Build ID'"
check "other/yui-linux has no .debug_aranges" bash -c "! llvm-readelf-14 -S other/yui-linux | grep -q debug_aranges"

# The real (Apple-built) files: their manifest and expected answers are what llvm-symbolizer-14
# says today, and every file is the one PROVENANCE names (SHA-256).
check "real/ manifest and expected answers match llvm-symbolizer-14" \
    bash -c "python3 real/regenerate.py --into '$work/real' && diff -r real/expected '$work/real/expected' && cmp real/manifest.json '$work/real/manifest.json'"
check "real/ files match their PROVENANCE SHA-256" \
    bash -c "cd real && grep -v '^#' PROVENANCE | awk -F'\t' '{print \$5\"  \"\$1}' | sha256sum --quiet -c -"

echo "fixtures: $passed passed, $failed failed"
[ "$failed" -eq 0 ]

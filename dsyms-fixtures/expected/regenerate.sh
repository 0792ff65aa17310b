#!/usr/bin/env bash
# Remakes expected/<name>.json: llvm-symbolizer-14's answers for the addresses in
# expected/<name>.addresses, one file per fixture slice listed in manifest.json. Paths in the
# output are relative to dsyms-fixtures/, so run from anywhere: this script changes directory.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
python3 -c '
import json
for entry in json.load(open("manifest.json")):
    for s in entry["slices"]:
        print(s["expected"], entry["path"], s["arch"] if entry["format"] == "fat" else "")
' | while read -r name path arch; do
    object="$path"
    # A fat file: name the slice by its architecture (llvm-symbolizer cannot pick by UUID).
    [ -n "$arch" ] && object="$path:$arch"
    llvm-symbolizer-14 --output-style=JSON --functions=linkage --inlines --no-demangle \
        --obj="$object" < "expected/$name.addresses" > "expected/$name.json"
done

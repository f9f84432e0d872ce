#!/usr/bin/env bash
# Builds the DocC archives of GraphStore's public API with the toolchain's own tools: symbol
# graphs from `swift build`, pages from `docc` (no plugin package).
#
#   bash Scripts/docc.sh             # archives in .build/docc/<Module>.doccarchive, coverage printed
#   DOCC_LIST_UNDOCUMENTED=1 bash Scripts/docc.sh   # also lists each undocumented public symbol
#   bash Scripts/docc.sh --preview   # and serve GraphStore's on http://localhost:8080
#
# One archive per module a user imports or sees through `import GraphStore`: the SwiftData face,
# the layers whose public types it re-exports, and the macro-free model declarations.
set -euo pipefail
cd "$(dirname "$0")/.."

modules=(GraphStore GraphStoreEngine GraphStoreGraph GraphStoreLog GraphStoreCore GraphStoreMacrosFree)
scratch=.build/docc
graphs="$scratch/symbol-graphs"
mkdir -p "$graphs"

# A scratch path of its own: the extra flags would otherwise rebuild the everyday debug build.
# Only recompiled modules emit their graph, so the graphs are kept between runs; when one is
# missing (a first run, or a removed directory), everything is built again from clean.
build() {
    swift build --scratch-path "$scratch/build" --target GraphStoreMacrosFree \
        -Xswiftc -emit-symbol-graph -Xswiftc -emit-symbol-graph-dir -Xswiftc "$PWD/$graphs" \
        -Xswiftc -symbol-graph-minimum-access-level -Xswiftc public
}
build
for module in "${modules[@]}"; do
    if [[ ! -f "$graphs/$module.symbols.json" ]]; then
        rm -rf "$scratch/build"
        build
        break
    fi
done

for module in "${modules[@]}"; do
    module_graphs="$scratch/graphs-$module"
    rm -rf "$module_graphs"
    mkdir -p "$module_graphs"
    # A module's own graph and its extensions of other modules' types (Module@Other.symbols.json).
    cp "$graphs/$module.symbols.json" "$module_graphs/"
    cp "$graphs/$module"@*.symbols.json "$module_graphs/" 2>/dev/null || true
    catalog=()
    if [[ -d "Docs/$module.docc" ]]; then catalog=("Docs/$module.docc"); fi
    echo "== $module"
    docc convert "${catalog[@]}" \
        --additional-symbol-graph-dir "$module_graphs" \
        --fallback-display-name "$module" \
        --fallback-bundle-identifier "org.graphstore.$module" \
        --output-path "$scratch/$module.doccarchive" \
        --experimental-documentation-coverage --coverage-summary-level none
done

# docc's own coverage also counts what the modules re-export (Foundation, the lower layers);
# count the public symbols each module's own sources declare and how many have a doc comment.
if command -v python3 > /dev/null; then
    python3 - "$scratch" "${modules[@]}" <<'PY'
import glob, json, os, sys
scratch, modules = sys.argv[1], sys.argv[2:]
folders = {"GraphStore": "GraphStore/GraphStore", "GraphStoreEngine": "GraphStore/Engine",
           "GraphStoreGraph": "GraphStore/Graph", "GraphStoreLog": "GraphStore/Log",
           "GraphStoreCore": "GraphStore/Core", "GraphStoreMacrosFree": "GraphStoreMacrosFree"}
for module in modules:
    # A module's graph also lists what it re-exports: count only what its own folder declares.
    sources = os.path.join(os.getcwd(), "Sources", folders.get(module, module)) + "/"
    seen, documented = set(), 0
    for path in glob.glob(f"{scratch}/graphs-{module}/*.json"):
        for symbol in json.load(open(path))["symbols"]:
            uri = symbol.get("location", {}).get("uri", "")
            key = symbol["identifier"]["precise"]
            if sources not in uri or symbol["accessLevel"] not in ("public", "open") or key in seen:
                continue
            seen.add(key)
            if symbol.get("docComment"):
                documented += 1
            elif os.environ.get("DOCC_LIST_UNDOCUMENTED"):
                line = symbol.get("location", {}).get("position", {}).get("line", 0) + 1
                print(f"  undocumented: {uri.split(sources)[-1]}:{line} {'.'.join(symbol['pathComponents'])}")
    print(f"{module}: {documented} of {len(seen)} public symbols documented")
PY
fi

if [[ "${1:-}" == "--preview" ]]; then
    docc preview Docs/GraphStore.docc --additional-symbol-graph-dir "$scratch/graphs-GraphStore" \
        --fallback-display-name GraphStore --fallback-bundle-identifier org.graphstore.GraphStore
fi

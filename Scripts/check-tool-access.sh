#!/usr/bin/env bash
# The tools reach the store's internals only through `@_spi(GraphStoreInternals)`, never through
# `package` access (Docs/ARCHITECTURE.md, "Rules the code keeps"). Each tool's sources are
# type-checked as if from another package, against the modules `swift build` made, so a
# `package` declaration is out of their sight and any use of one fails here.
set -euo pipefail
cd "$(dirname "$0")/.."
swift build --target graphstore >/dev/null
swift build --target GraphStoreFuzzTargets >/dev/null
modules="$(swift build --show-bin-path)/Modules"
shim="$(mktemp -d)"
trap 'rm -rf "$shim"' EXIT
# The C shim's module, as SwiftPM describes it to the compiler.
printf 'module CSwiftRuntime {\n  header "%s/Sources/CSwiftRuntime/include/CSwiftRuntime.h"\n  export *\n}\n' "$PWD" > "$shim/module.modulemap"
check() {
    local name="$1"
    shift
    if swiftc -typecheck -swift-version 6 -package-name "outside-$name" -module-name "$name" -I "$modules" -I "$shim" "$@"; then
        echo "$name: reaches the store through public and @_spi(GraphStoreInternals) declarations only"
    else
        echo "$name: uses a package declaration (see the errors above)" >&2
        return 1
    fi
}
check graphstore Sources/graphstore/*.swift
check GraphStoreFuzzTargets -parse-as-library Sources/GraphStoreFuzzTargets/*.swift

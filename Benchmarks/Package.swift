// swift-tools-version: 6.0
// GraphStore's benchmark suite: its own package so that only it may take dependencies
// (the SQLite baseline). Run: swift run -c release --package-path Benchmarks enroute-bench
import PackageDescription

let package = Package(
    name: "GraphStoreBenchmarks",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "GraphStore", path: ".."),
    ],
    targets: [
        // SQLite's C API, the baseline (Debian's libsqlite3-dev; ./setup.sh installs it).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "enroute-bench",
            dependencies: [
                "CSQLite",
                .product(name: "GraphStore", package: "GraphStore"),
                .product(name: "EnrouteModels", package: "GraphStore"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

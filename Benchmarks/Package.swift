// swift-tools-version: 6.0
// GraphStore's benchmark suite: its own package so that only it may take dependencies (the
// SQLite baselines). Run: swift run -c release --package-path Benchmarks enroute-bench
import PackageDescription

let package = Package(
    name: "GraphStoreBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "GraphStore", path: ".."),
        // The `grdb` baseline: SQLite through GRDB records, as a Swift programmer writes them.
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        // SQLite's C API, the `sqlite` baseline (Debian's libsqlite3-dev; ./setup.sh installs it).
        .systemLibrary(name: "CSQLite", providers: [.apt(["libsqlite3-dev"])]),
        .executableTarget(
            name: "enroute-bench",
            dependencies: [
                "CSQLite",
                .product(name: "GraphStore", package: "GraphStore"),
                .product(name: "EnrouteModels", package: "GraphStore"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
    ],
    swiftLanguageModes: [.v6]
)

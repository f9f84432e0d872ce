// swift-tools-version: 6.0
// GraphStore: an embedded object-graph store for Swift. No package dependencies by design:
// only the toolchain's own libraries (see Docs/ARCHITECTURE.md).
import PackageDescription

let package = Package(
    name: "GraphStore",
    platforms: [.macOS(.v15)],
    products: [
        .library(name: "GraphStore", targets: ["GraphStore"]),
        .library(name: "GraphStoreMacrosFree", targets: ["GraphStoreMacrosFree"]),
        .library(name: "EnrouteModels", targets: ["EnrouteModels"]),
        .executable(name: "enroute", targets: ["enroute"]),
        .executable(name: "graphstore", targets: ["graphstore"]),
    ],
    targets: [
        // The layers of the store, each target depending only on those above it in this list
        // (Docs/ARCHITECTURE.md). Core: values, log operations, row blocks, bytes and CRC-32C.
        .target(name: "GraphStoreCore", dependencies: ["CSwiftRuntime"], path: "Sources/GraphStore/Core"),
        // Log: file I/O (POSIX, in memory, fault-injecting), segments, recovery, the transaction
        // log with group commit, blob files.
        .target(name: "GraphStoreLog", dependencies: ["GraphStoreCore"], path: "Sources/GraphStore/Log"),
        // Graph: the schema, entity tables, columns, relationships, indexes and the checkpoint
        // codec; the committed object graph in memory.
        .target(name: "GraphStoreGraph", dependencies: ["GraphStoreLog", "GraphStoreCore"], path: "Sources/GraphStore/Graph"),
        // Engine: the store. Commits, checkpoints, compaction, history, export and import,
        // replay and inspection.
        .target(name: "GraphStoreEngine", dependencies: ["GraphStoreGraph", "GraphStoreLog", "GraphStoreCore"], path: "Sources/GraphStore/Engine"),
        // The SwiftData face: container, context, query, undo, batch.
        .target(name: "GraphStore", dependencies: ["GraphStoreEngine", "GraphStoreGraph", "GraphStoreLog", "GraphStoreCore", "CSwiftRuntime"], path: "Sources/GraphStore/GraphStore"),
        // The Swift runtime's conditional retain, for the identity map (ObjectRegistry), and a
        // C atomic for schema discovery (DeclarationRecording).
        .target(name: "CSwiftRuntime"),
        .target(name: "GraphStoreMacrosFree", dependencies: ["GraphStore", "CSwiftRuntime"]),
        .target(name: "EnrouteModels", dependencies: ["GraphStoreMacrosFree"], resources: [.copy("Resources/sample")]),
        // Argument parsing and output shared by the command-line tools.
        .target(name: "ToolSupport"),
        .executableTarget(name: "enroute", dependencies: ["EnrouteModels", "ToolSupport"]),
        .executableTarget(name: "graphstore", dependencies: ["GraphStore", "ToolSupport"]),
        // A child process for the crash tests: commits in a loop until it is killed.
        .executableTarget(name: "graphstore-crashtest", dependencies: ["GraphStore", "GraphStoreMacrosFree", "GraphStoreTestSupport"]),
        // Workloads and reference models shared by the tests and the crash-test child.
        .target(name: "GraphStoreTestSupport", dependencies: ["GraphStoreGraph", "GraphStoreCore"]),
        // Models and temporary stores shared by the tests that work through models.
        .target(name: "GraphStoreModelTestSupport", dependencies: ["GraphStoreMacrosFree", "GraphStore"]),
        // Every reader of outside bytes as a fuzz target, and the executable that fuzzes them with
        // libFuzzer (Fuzz/run.sh) or replays files through them.
        .target(name: "GraphStoreFuzzTargets", dependencies: ["GraphStore", "EnrouteModels", "ToolSupport"]),
        .executableTarget(name: "graphstore-fuzz", dependencies: ["GraphStoreFuzzTargets"]),

        // One test target per layer, as the sources are.
        .testTarget(name: "GraphStoreCoreTests", dependencies: ["GraphStoreCore", "GraphStoreTestSupport"]),
        .testTarget(name: "GraphStoreLogTests", dependencies: ["GraphStoreLog", "GraphStoreCore", "GraphStoreEngine", "GraphStoreTestSupport"]),
        .testTarget(name: "GraphStoreGraphTests", dependencies: ["GraphStoreGraph", "GraphStoreCore", "GraphStoreTestSupport"]),
        .testTarget(name: "GraphStoreEngineTests", dependencies: ["GraphStore", "GraphStoreMacrosFree", "GraphStoreModelTestSupport", "GraphStoreTestSupport"]),
        .testTarget(name: "GraphStoreTests", dependencies: ["GraphStore", "GraphStoreMacrosFree", "GraphStoreModelTestSupport", "GraphStoreTestSupport"]),
        .testTarget(name: "GraphStoreMacrosFreeTests", dependencies: ["GraphStoreMacrosFree", "GraphStore", "GraphStoreModelTestSupport"]),
        .testTarget(name: "EnrouteModelsTests", dependencies: ["EnrouteModels"]),
        // SwiftData code from the seeds and Apple's sessions, ported with only the model
        // declarations changed: public API only, no @testable (one check reads the stores' recorded
        // schemas through the tools' SPI).
        .testTarget(name: "SwiftDataPortTests", dependencies: ["GraphStoreMacrosFree"]),
        // Crashers/ holds inputs the tests read by path (not resources to bundle).
        .testTarget(name: "FuzzRegressionTests", dependencies: ["GraphStoreFuzzTargets"], exclude: ["Crashers"]),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["GraphStore", "EnrouteModels", "GraphStoreTestSupport", "ToolSupport", "graphstore", "graphstore-crashtest", "enroute"]
        ),
    ],
    swiftLanguageModes: [.v6]
)

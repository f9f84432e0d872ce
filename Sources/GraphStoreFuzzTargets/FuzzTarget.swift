import EnrouteModels
import Foundation
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
import ToolSupport

/// Every reader of outside bytes, as a function that takes any bytes at all: what the fuzzer
/// (`graphstore-fuzz`, Fuzz/run.sh) drives, and what the regression tests replay the seeds and
/// every crasher ever found through. A target may throw away what it reads; it must never
/// crash, hang or allocate without bound.
package enum FuzzTarget: String, CaseIterable, Sendable {
    /// One segment file: a reader's scan, the tools' open (schema records, the graph), and a
    /// writer's salvaging open and append.
    case segment
    /// One checkpoint file, which the log (starting after it) needs: the decoder, the schema
    /// translation, the target checks and the graph's install.
    case checkpoint
    /// A `graphstore export` document through `graphstore import`'s validation and write.
    case export
    /// A FlightAware JSON file through the decoder and, when it decodes, the importer.
    case flightaware
    /// A command line (arguments separated by NUL bytes) through the tools' argument parser.
    case arguments

    /// Runs the bytes through the target.
    package func run(_ bytes: [UInt8]) {
        // One insert far past the rows must be refused, not allocated: the fuzzer's memory limit
        // is 2 GB.
        RowLimits.memoryBudget.store(64 << 20, ordering: .relaxed)
        switch self {
        case .segment:
            Self.segment(bytes)
            Self.segment(ChecksumRepair.repaired(bytes, headerSize: SegmentFormat.headerSize))
        case .checkpoint:
            Self.checkpoint(bytes)
            Self.checkpoint(ChecksumRepair.repaired(bytes, headerSize: CheckpointFile.headerSize, countField: 28))
        case .export: Self.export(bytes)
        case .flightaware: Self.flightAware(bytes)
        case .arguments: Self.arguments(bytes)
        }
    }

    static let directory = "/store"

    private static func segment(_ bytes: [UInt8]) {
        let fs = MemoryFileIO()
        try? fs.createDirectory(directory)
        fs.setContents(of: directory + "/" + SegmentFormat.fileName(segment: 1), to: bytes)
        _ = try? TransactionLog.open(directory: directory, options: LogOptions(readOnly: true, fileIO: fs)).close()
        if let store = try? Store.open(directory: directory, options: StoreOptions(log: LogOptions(readOnly: true, fileIO: fs), maintenance: .manual)) {
            store.close()
        }
        let writable = fs.copy()
        if let log = try? TransactionLog.open(directory: directory, options: LogOptions(durability: .none, segmentSize: 1 << 16, salvage: true, fileIO: writable)) {
            _ = try? log.append([.delete(entity: 1, row: 1)])
            log.close()
        }
    }

    private static func checkpoint(_ bytes: [UInt8]) {
        let fs = MemoryFileIO()
        try? fs.createDirectory(directory)
        // The log starts after transaction 5: only the checkpoint at 5 can hold what came before.
        fs.setContents(of: directory + "/" + SegmentFormat.fileName(segment: 2),
                       to: SegmentFormat.encodeHeader(.init(segment: 2, previousTransaction: 5)))
        fs.setContents(of: directory + "/" + CheckpointFile.fileName(transaction: 5), to: bytes)
        for schema in [FuzzSeeds.schema, nil] {
            let options = StoreOptions(log: LogOptions(readOnly: true, fileIO: fs), maintenance: .manual)
            if let store = try? Store.open(directory: directory, schema: schema, options: options) { store.close() }
        }
    }

    private static func export(_ bytes: [UInt8]) {
        _ = try? Store.importExport(Data(bytes), into: "/imported", fileIO: MemoryFileIO())
    }

    private static func flightAware(_ bytes: [UInt8]) {
        guard let file = try? FlightAwareFile.decode(Data(bytes), file: "fuzz.json"),
              let container = try? ModelContainer(for: Flight.self, Airport.self, Airline.self,
                                                  configurations: ModelConfiguration(isStoredInMemoryOnly: true)) else { return }
        _ = try? EnrouteImporter(context: ModelContext(container)).store(file, file: "fuzz.json")
    }

    private static func arguments(_ bytes: [UInt8]) {
        let words = bytes.split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
        let flags: Set<String> = ["--help", "-h", "--json", "--enroute", "--desc", "--departing", "--arrivals", "--departures", "--sample"]
        let options: Set<String> = ["--store", "--to", "--from", "--airline", "--sort", "--limit", "--search", "--flights", "--seed", "--out"]
        guard let parsed = try? Arguments(words, flags: flags, options: options) else { return }
        for option in options { _ = try? parsed.integer(option) }
        _ = parsed.positionals.count
    }
}

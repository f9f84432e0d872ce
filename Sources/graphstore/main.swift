import Foundation
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
import ToolSupport

// graphstore: operations on a GraphStore store directory, without the app's model classes
// (the schema comes from the store's own records).

let usage = """
    usage: graphstore <command> [options]

    commands:
      info STORE                          format, segments, checkpoints, blobs, transactions, schema versions
      verify STORE                        check every record, checkpoint and blob (exit 1 naming the first problem)
      replay STORE --to TXN --into DIR    write a new store holding the state as of transaction TXN
      checkpoint STORE                    write a checkpoint of the current state
      compact STORE [--retention R]       checkpoint, then drop what it makes dead (R: all, none or SECONDS)
      history STORE [--limit N]           the newest N transactions (default 20) with time, author and size
      dump STORE [--entity NAME]          rows as JSON lines
      export STORE [--output FILE]        the whole store as one JSON document
      import FILE --into DIR              a new store at DIR from an export

    Every command takes --help. Exit codes: 0 success, 1 a problem with the store or input, 2 bad arguments.
    """

struct Command {
    var help: String
    var flags: Set<String> = []
    var options: Set<String> = []
}

let commands: [String: Command] = [
    "info": Command(help: "usage: graphstore info STORE\n\nPrints the store's format version, segments, checkpoints, blob files, transactions, last transaction and its time, bytes on disk, and the schema versions it recorded. Changes nothing."),
    "verify": Command(help: "usage: graphstore verify STORE\n\nReads and checks every log record and checkpoint, loads the state as open would, and reads every blob file it names. Exit 0 when the store is sound (a torn tail that the next open would cut, or a damaged checkpoint that open can do without, is reported); exit 1 naming the first problem otherwise. Changes nothing."),
    "replay": Command(help: "usage: graphstore replay STORE --to TXN --into DIR\n\nWrites a new store at DIR (absent or empty) holding the state as of transaction TXN, with the original transaction numbers, times and authors. Where compaction dropped the log's beginning, the new store starts from the newest checkpoint at or before TXN.", options: ["--to", "--into"]),
    "checkpoint": Command(help: "usage: graphstore checkpoint STORE\n\nWrites a checkpoint of the current state, so the next open replays only the log after it. Takes the writer lock."),
    "compact": Command(help: "usage: graphstore compact STORE [--retention all|none|SECONDS]\n\nWrites a checkpoint, then removes the log segments it covers (keeping the history --retention asks for: all, none, or transactions from the last SECONDS seconds; default 604800, a week), checkpoints the log no longer reaches, and blob files nothing names. Safe to kill at any moment. Takes the writer lock.", options: ["--retention"]),
    "history": Command(help: "usage: graphstore history STORE [--limit N]\n\nLists the newest N kept transactions (default 20): number, commit time, author, operation count and record bytes.", options: ["--limit"]),
    "dump": Command(help: "usage: graphstore dump STORE [--entity NAME]\n\nPrints every row (of one entity) as a JSON line: {\"entity\", \"row\", \"attributes\", \"relationships\"}.", options: ["--entity"]),
    "export": Command(help: "usage: graphstore export STORE [--output FILE]\n\nWrites the whole store (schema, rows, relationships, external-storage bytes) as one JSON document to FILE or standard output.", options: ["--output"]),
    "import": Command(help: "usage: graphstore import FILE --into DIR\n\nCreates a new store at DIR (absent or empty) from a `graphstore export` document. A malformed document is refused naming the JSON path, and nothing is written.", options: ["--into"]),
]

func formatTime(_ micros: Int64?) -> String {
    guard let micros else { return "-" }
    return Date(timeIntervalSince1970: Double(micros) / 1_000_000).formatted(.iso8601)
}

/// Runs `body` with a progress bar on standard error (drawn only on a terminal).
func withProgress<R>(_ label: String, _ body: (ProgressBar) throws -> R) rethrows -> R {
    let bar = ProgressBar(label)
    defer { bar.finish() }
    return try body(bar)
}

func openForTool(_ store: String, writable: Bool) throws -> Store {
    try Store.open(directory: store, options: StoreOptions(log: LogOptions(readOnly: !writable), maintenance: .manual))
}

func run(_ argv: [String]) throws -> ExitCode {
    guard let name = argv.first else {
        printError(usage)
        return .usage
    }
    if name == "--help" || name == "-h" || name == "help" {
        print(usage)
        return .success
    }
    guard let command = commands[name] else {
        printError("graphstore: unknown command \(String(reflecting: name))\n\n\(usage)")
        return .usage
    }
    let arguments: Arguments
    do {
        arguments = try Arguments(Array(argv.dropFirst()), flags: command.flags.union(["--help", "-h"]), options: command.options)
    } catch {
        printError("graphstore \(name): \(error)\n\n\(command.help)")
        return .usage
    }
    if arguments.flag("--help") || arguments.flag("-h") {
        print(command.help)
        return .success
    }
    guard arguments.positionals.count == 1, let target = arguments.positionals.first else {
        printError("graphstore \(name): expected one \(name == "import" ? "FILE" : "STORE directory")\n\n\(command.help)")
        return .usage
    }
    func usageError(_ message: String) -> ExitCode {
        printError("graphstore \(name): \(message)\n\n\(command.help)")
        return .usage
    }

    switch name {
    case "info":
        let info = try StoreInspection.inspect(directory: target)
        print("store:              \(target)")
        print("format version:     \(info.formatVersion)")
        print("segments:           \(info.segments.count)" + (info.segments.isEmpty ? "" : " (\(info.segments.first!.number)–\(info.segments.last!.number))"))
        print("history kept:       " + (info.logStart == 0 ? "all transactions" : "transactions after \(info.logStart)"))
        print("transactions:       \(info.transactionCount) (\(info.operationCount) operations)")
        print("last transaction:   \(info.lastTransaction) at \(formatTime(info.report.lastCommitMicros))")
        print("record bytes:       \(info.recordBytes) (\(formatBytes(info.recordBytes)))")
        print("checkpoints:        \(info.checkpoints.count)")
        for checkpoint in info.checkpoints {
            print("  at transaction \(checkpoint.transaction): \(formatBytes(checkpoint.fileBytes))" + (checkpoint.problem.map { ", UNUSABLE: \($0)" } ?? ""))
        }
        print("blob files:         \(info.blobCount) (\(formatBytes(info.blobBytes)))")
        print("bytes on disk:      \(info.fileBytes) (\(formatBytes(info.fileBytes)), preallocation included)")
        if let tail = info.report.tornTail { print("torn tail:          \(tail) — the next writer open cuts it") }
        let schemas = info.schemaHistory
        print("schema versions:    \(schemas.count)")
        for (i, entry) in schemas.enumerated() {
            let entities = entry.record.entities.map { "\($0.name)(\($0.attributes.count)+\($0.relationships.count))" }.joined(separator: " ")
            let version = entry.record.versionIdentifier.isEmpty ? "" : " (version \(entry.record.versionIdentifier))"
            print("  \(i + 1). at transaction \(entry.transaction), \(formatTime(entry.timestampMicros))\(version): \(entities)")
        }
        return .success

    case "verify":
        do {
            let verification = try withProgress("verify") { bar in
                try Store.verify(directory: target) { bar.update(Double($0) / Double(max($1, 1))) }
            }
            if let first = verification.blobProblems.first {
                let more = verification.blobProblems.count > 1 ? " (and \(verification.blobProblems.count - 1) more)" : ""
                printError("verify failed: \(first)\(more)")
                return .failure
            }
            let info = verification.inspection
            let loaded = "; state as of transaction \(verification.loadedTransaction) loads"
                + (verification.loadedCheckpoint.map { " from the checkpoint at \($0)" } ?? "")
            print("ok: \(info.transactionCount) transactions in \(info.segments.count) segment(s), \(info.checkpoints.count) checkpoint(s), \(info.blobCount) blob file(s)\(loaded)")
            for note in verification.notes { print("note: \(note)") }
            return .success
        } catch {
            // Whatever stops an open stops verify: damage, a missing checkpoint, a schema record
            // that does not decode, data the schema cannot read.
            printError("verify failed: \(error)")
            return .failure
        }

    case "replay":
        guard let toText = arguments.value("--to"), let to = UInt64(toText) else { return usageError("--to needs a transaction number") }
        guard let into = arguments.value("--into") else { return usageError("--into DIR is required") }
        let written = try withProgress("replaying") { bar in
            try LogReplay.replay(from: target, to: to, into: into) { bar.update(Double($0) / Double(max(to, 1))) }
        }
        print("replayed \(written) transaction(s) into \(into)")
        return .success

    case "checkpoint":
        let store = try openForTool(target, writable: true)
        defer { store.close() }
        let started = Date()
        let summary = try withProgress("checkpoint") { bar in try store.checkpoint { bar.update(Double($0) / Double(max($1, 1))) } }
        print("checkpoint at transaction \(summary.transaction): \(formatBytes(summary.bytes)) in \(String(format: "%.2f", Date().timeIntervalSince(started))) s")
        return .success

    case "compact":
        let retention: HistoryRetention
        switch arguments.value("--retention") {
        case nil: retention = .window(7 * 24 * 3600)
        case "all": retention = .all
        case "none": retention = .none
        case let text?:
            guard let seconds = Double(text), seconds >= 0 else { return usageError("--retention takes all, none or a number of seconds") }
            retention = .window(seconds)
        }
        let store = try openForTool(target, writable: true)
        defer { store.close() }
        let stages = 5.0
        var stage = 0.0
        let summary = try withProgress("compact") { bar in
            try store.compact(retention: retention) { _ in
                stage += 1
                bar.update(stage / stages)
            }
        }
        print("checkpoint at transaction \(summary.checkpoint.transaction) (\(formatBytes(summary.checkpoint.bytes)))")
        print("removed \(summary.segmentsRemoved.count) segment(s), \(summary.checkpointsRemoved) checkpoint(s), \(summary.blobsRemoved) blob file(s)")
        print("store bytes: \(formatBytes(summary.bytesBefore)) → \(formatBytes(summary.bytesAfter))")
        return .success

    case "history":
        let limit: Int
        do { limit = try arguments.integer("--limit") ?? 20 } catch { return usageError("\(error)") }
        guard limit > 0 else { return usageError("--limit must be at least 1") }
        let info = try StoreInspection.inspect(directory: target)
        let from = max(info.logStart, info.lastTransaction > UInt64(limit) ? info.lastTransaction - UInt64(limit) : 0)
        print("transaction  time                      author            operations      bytes")
        var rows: [String] = []
        let log = try TransactionLog.open(directory: target, options: LogOptions(readOnly: true), body: { transaction in
            if transaction.number > from { rows.append(historyLine(transaction)) }
        }, loadCheckpoint: { info.logStart })
        log.close()
        rows.forEach { print($0) }
        if info.logStart > 0 && from == info.logStart { print("(history before transaction \(info.logStart + 1) was compacted away)") }
        return .success

    case "dump":
        let store = try openForTool(target, writable: false)
        defer { store.close() }
        try withProgress("dump") { bar in
            try store.dump(entity: arguments.value("--entity"), write: { print($0) }) { bar.update(Double($0) / Double(max($1, 1))) }
        }
        return .success

    case "export":
        let store = try openForTool(target, writable: false)
        defer { store.close() }
        // An export holds all of the store's data: made readable by its owner only (0600), and
        // never written through a symbolic link.
        let file = try arguments.value("--output").map { path -> any FileHandleIO in
            let handle = try PosixFileIO().open(path, mode: .create)
            try handle.truncate(to: 0)
            return handle
        }
        /// The export's pieces gathered into megabytes, each handed to `write`.
        func export(inMegabytes write: (Data) throws -> Void) throws {
            var buffer = Data()
            try withProgress("export") { bar in
                try store.export(write: { piece in
                    buffer.append(contentsOf: piece.utf8)
                    if buffer.count > 1 << 20 {
                        try write(buffer)
                        buffer.removeAll(keepingCapacity: true)
                    }
                }) { bar.update(Double($0) / Double(max($1, 1))) }
            }
            try write(buffer)
        }
        // Standard output is written on a thread of its own; a refused write names it.
        guard let file else {
            try BackgroundOutput.streaming { output in try export(inMegabytes: output.write) }
            return .success
        }
        var written: UInt64 = 0
        try export { chunk in
            try chunk.withUnsafeBytes { try file.writeAll($0, at: written) }
            written += UInt64(chunk.count)
        }
        try file.sync()
        file.close()
        return .success

    case "import":
        guard let into = arguments.value("--into") else { return usageError("--into DIR is required") }
        guard let data = FileManager.default.contents(atPath: target) else {
            printError("graphstore import: cannot read \(target)")
            return .failure
        }
        let summary = try withProgress("import") { bar in
            try Store.importExport(data, into: into) { bar.update(Double($0) / Double(max($1, 1))) }
        }
        print("imported \(summary.rows) row(s) and \(summary.links) link(s) into \(into) in \(summary.transactions) transaction(s)")
        return .success

    default:
        printError(usage)
        return .usage
    }
}

func historyLine(_ transaction: LogTransaction) -> String {
    let bytes = TransactionCodec.encode(transaction).count + RecordFormat.headerSize
    func pad(_ text: String, _ width: Int) -> String { text.count >= width ? text + " " : text + String(repeating: " ", count: width - text.count) }
    return pad("\(transaction.number)", 13) + pad(formatTime(transaction.timestampMicros), 26) + pad(transaction.author.isEmpty ? "-" : transaction.author, 18)
        + pad("\(transaction.operations.count)", 12) + "\(bytes)"
}

reserveStandardDescriptors()
do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    printError("graphstore: \(error)")
    exit(.failure)
}

import Foundation
import GraphStore
import ToolSupport

// graphstore: operations on a GraphStore store directory (inspect, verify, replay).

let usage = """
    usage: graphstore <command> [options]

    commands:
      info STORE                          format version, segments, transactions, last commit, bytes
      verify STORE                        read and check every record (exit 0 when sound or only a
                                          torn tail that open would cut; 1 with the first problem)
      replay STORE --to TXN --into DIR    write a new store holding the state as of transaction TXN

    Every command takes --help. Exit codes: 0 success, 1 a problem with the store, 2 bad arguments.
    """

let commandUsage = [
    "info": "usage: graphstore info STORE\n\nPrints the store's format version, segments, transaction count, last transaction and its time, and bytes on disk. Changes nothing.",
    "verify": "usage: graphstore verify STORE\n\nReads and checks every record. Exit 0 when the store is sound, or has only a torn tail that the next open would cut (reported); exit 1 naming the first problem otherwise. Changes nothing.",
    "replay": "usage: graphstore replay STORE --to TXN --into DIR\n\nWrites a new store at DIR (absent or empty) holding transactions 1 through TXN of STORE, with their original numbers, times and authors.",
]

func formatTime(_ micros: Int64?) -> String {
    guard let micros else { return "-" }
    return Date(timeIntervalSince1970: Double(micros) / 1_000_000).formatted(.iso8601)
}

func run(_ argv: [String]) throws -> ExitCode {
    guard let command = argv.first else {
        printError(usage)
        return .usage
    }
    if command == "--help" || command == "-h" || command == "help" {
        print(usage)
        return .success
    }
    guard let help = commandUsage[command] else {
        printError("graphstore: unknown command \(String(reflecting: command))\n\n\(usage)")
        return .usage
    }
    let rest = Array(argv.dropFirst())
    let arguments: Arguments
    do {
        arguments = try Arguments(rest, flags: ["--help", "-h"], options: command == "replay" ? ["--to", "--into"] : [])
    } catch {
        printError("graphstore \(command): \(error)\n\n\(help)")
        return .usage
    }
    if arguments.flag("--help") || arguments.flag("-h") {
        print(help)
        return .success
    }
    guard arguments.positionals.count == 1, let store = arguments.positionals.first else {
        printError("graphstore \(command): expected one STORE directory\n\n\(help)")
        return .usage
    }

    switch command {
    case "info":
        let info = try StoreInspection.inspect(directory: store)
        print("store:              \(store)")
        print("format version:     \(info.formatVersion)")
        print("segments:           \(info.segments.count)" + (info.segments.isEmpty ? "" : " (\(info.segments.first!.number)–\(info.segments.last!.number))"))
        print("transactions:       \(info.transactionCount) (\(info.operationCount) operations)")
        print("last transaction:   \(info.lastTransaction) at \(formatTime(info.report.lastCommitMicros))")
        print("record bytes:       \(info.recordBytes) (\(formatBytes(info.recordBytes)))")
        print("bytes on disk:      \(info.fileBytes) (\(formatBytes(info.fileBytes)), preallocation included)")
        if let tail = info.report.tornTail { print("torn tail:          \(tail) — the next writer open cuts it") }
        return .success

    case "verify":
        do {
            let info = try StoreInspection.inspect(directory: store)
            if let tail = info.report.tornTail {
                print("ok: \(info.transactionCount) transactions in \(info.segments.count) segment(s); torn tail that open would cut: \(tail)")
            } else {
                print("ok: \(info.transactionCount) transactions in \(info.segments.count) segment(s), every record sound")
            }
            return .success
        } catch let error as StorageError {
            printError("verify failed: \(error)")
            return .failure
        }

    case "replay":
        guard let toText = arguments.value("--to"), let to = UInt64(toText) else {
            printError("graphstore replay: --to needs a transaction number\n\n\(help)")
            return .usage
        }
        guard let into = arguments.value("--into") else {
            printError("graphstore replay: --into DIR is required\n\n\(help)")
            return .usage
        }
        let written = try LogReplay.replay(from: store, to: to, into: into)
        print("replayed \(written) transaction(s) into \(into)")
        return .success

    default:
        printError(usage)
        return .usage
    }
}

do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    printError("graphstore: \(error)")
    exit(.failure)
}

import Foundation
import EnrouteModels
import ToolSupport

// enroute: the GraphStore demo. It opens the default embedded store (or --store DIR) and reports
// on it; the Enroute airline data and its queries come with the EnrouteModels module.

let usage = """
    usage: enroute [--store DIR] [status]

    Opens the Enroute store (default: ~/.graphstore/enroute, created on demand) and prints its status.
    """

func run(_ argv: [String]) throws -> ExitCode {
    let arguments: Arguments
    do {
        arguments = try Arguments(argv, flags: ["--help", "-h"], options: ["--store"])
    } catch {
        printError("enroute: \(error)\n\n\(usage)")
        return .usage
    }
    if arguments.flag("--help") || arguments.flag("-h") {
        print(usage)
        return .success
    }
    guard arguments.positionals.isEmpty || arguments.positionals == ["status"] else {
        printError("enroute: unknown command \(arguments.positionals.joined(separator: " "))\n\n\(usage)")
        return .usage
    }
    // $HOME first (as shells and tests set it), then the account's home directory.
    let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
        ?? FileManager.default.homeDirectoryForCurrentUser.path
    let store = arguments.value("--store") ?? home + "/.graphstore/enroute"
    let log = try TransactionLog.open(directory: store)
    defer { log.close() }
    print("Enroute store at \(store)")
    print("transactions: \(log.lastTransaction)")
    if let tail = log.report.tornTail { print("recovered from a torn tail: \(tail)") }
    return .success
}

do {
    exit(try run(Array(CommandLine.arguments.dropFirst())))
} catch {
    printError("enroute: \(error)")
    exit(.failure)
}

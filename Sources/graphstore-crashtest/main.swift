import Foundation
import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport

// The crash tests' child: opens STORE and commits CrashWorkload transactions in a loop, printing
// "ack N" after each commit returns, until it is killed. Each writer thread continues from the
// sequence after its last commit found in the store, so a store survives any number of kills.
//
// usage: graphstore-crashtest STORE [--durability full|grouped|none] [--writers N] [--segment-size BYTES]
//        graphstore-crashtest STORE --maintenance [--segment-size BYTES]
//        graphstore-crashtest STORE --migration-seed N | --migrate      (MigrationWorkload.swift)
//
// With --maintenance it commits MaintenanceWorkload items through a Store (blob files
// included) while a second thread checkpoints and compacts in a loop, printing "ack SEQUENCE".

let arguments = Array(CommandLine.arguments.dropFirst())
/// Unbuffered, so the parent sees every acknowledgement that was printed before the kill.
func emit(_ line: String, to fd: Int32 = 1) {
    let bytes = Array((line + "\n").utf8)
    _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
}

guard let store = arguments.first else {
    emit("usage: graphstore-crashtest STORE [--durability full|grouped|none] [--writers N] [--segment-size BYTES]", to: 2)
    exit(2)
}
func option(_ name: String) -> String? {
    guard let i = arguments.firstIndex(of: name), i + 1 < arguments.count else { return nil }
    return arguments[i + 1]
}
let durability = Durability(rawValue: option("--durability") ?? "full") ?? .full
let writers = Int(option("--writers") ?? "1") ?? 1
let segmentSize = UInt64(option("--segment-size") ?? "65536") ?? 65_536

if arguments.contains("--maintenance") {
    runMaintenanceWorkload()
}
if arguments.contains("--migrate") || arguments.contains("--migration-seed") {
    runMigrationMode(store: store, arguments: arguments)
}

func runMaintenanceWorkload() -> Never {
    let opened: Store
    do {
        opened = try Store.open(directory: store, schema: try Schema(record: MaintenanceWorkload.schemaRecord),
                                options: StoreOptions(log: LogOptions(durability: .full, segmentSize: segmentSize), maintenance: .manual))
    } catch {
        emit("open failed: \(error)", to: 2)
        exit(1)
    }
    // The next sequence is the number of items held (rows are sequence + 1, never deleted).
    var sequence = 0
    while (try? opened.rowExists(entity: "Item", row: RowNumber(sequence + 1))) == true { sequence += 1 }
    emit("open \(sequence)")
    let maintenance = Thread {
        var round = 0
        while true {
            do {
                if round % 2 == 0 { try opened.checkpoint() } else { try opened.compact(retention: round % 4 == 1 ? .none : .window(0)) }
            } catch {
                emit("maintenance failed: \(error)", to: 2)
                exit(1)
            }
            round += 1
        }
    }
    maintenance.start()
    while true {
        do {
            try opened.commit(MaintenanceWorkload.operations(sequence: sequence), author: "crashtest")
            emit("ack \(sequence)")
        } catch {
            emit("commit failed: \(error)", to: 2)
            exit(1)
        }
        sequence += 1
    }
}

var nextSequence = [Int](repeating: 0, count: writers)
let log: TransactionLog
do {
    log = try TransactionLog.open(directory: store, options: LogOptions(durability: durability, segmentSize: segmentSize)) { transaction in
        if let (writer, sequence) = CrashWorkload.identify(transaction), writer < writers {
            nextSequence[writer] = max(nextSequence[writer], sequence + 1)
        }
    }
} catch {
    emit("open failed: \(error)", to: 2)
    exit(1)
}
if log.lastTransaction == 0 {
    do { try log.append(CrashWorkload.schemaOperations, author: "schema") } catch {
        emit("schema failed: \(error)", to: 2)
        exit(1)
    }
}
emit("open \(log.lastTransaction)")

let output = NSLock()
let starts = nextSequence
DispatchQueue.concurrentPerform(iterations: writers) { writer in
    var sequence = starts[writer]
    while true {
        do {
            let receipt = try log.append(CrashWorkload.operations(writer: writer, sequence: sequence))
            output.lock()
            emit("ack \(receipt.number)")
            output.unlock()
        } catch {
            emit("append failed: \(error)", to: 2)
            exit(1)
        }
        sequence += 1
    }
}

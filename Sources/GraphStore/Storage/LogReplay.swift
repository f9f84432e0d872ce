/// Copies a store's transactions up to a given one into a new store: the state "as of" that
/// transaction, with the original numbers, times and authors (`graphstore replay`).
public enum LogReplay {
    public enum Failure: Error, Equatable, CustomStringConvertible {
        case destinationNotEmpty(String)
        case transactionNotInLog(requested: UInt64, last: UInt64)

        public var description: String {
            switch self {
            case let .destinationNotEmpty(path): return "\(path) already exists and is not empty"
            case let .transactionNotInLog(requested, last): return "transaction \(requested) is past the end of the log (last is \(last))"
            }
        }
    }

    /// Returns the number of transactions written. `progress` is called after each one.
    @discardableResult
    public static func replay(
        from source: String,
        to lastWanted: UInt64,
        into destination: String,
        fileIO: any FileIO = PosixFileIO(),
        progress: (UInt64) -> Void = { _ in }
    ) throws -> Int {
        if fileIO.isDirectory(destination), try !fileIO.listDirectory(destination).isEmpty {
            throw Failure.destinationNotEmpty(destination)
        }
        let inspection = try StoreInspection.inspect(directory: source, fileIO: fileIO)
        guard lastWanted <= inspection.lastTransaction else {
            throw Failure.transactionNotInLog(requested: lastWanted, last: inspection.lastTransaction)
        }
        // Writes unsynced, then one sync at the end: replay is restartable, so per-commit syncs buy nothing.
        let target = try TransactionLog.open(directory: destination, options: LogOptions(durability: .none, fileIO: fileIO))
        defer { target.close() }
        var written = 0
        let reader = try TransactionLog.open(directory: source, options: LogOptions(readOnly: true, fileIO: fileIO)) { transaction in
            guard transaction.number <= lastWanted else { return }
            try target.append(transaction.operations, author: transaction.author, timestampMicros: transaction.timestampMicros)
            written += 1
            progress(transaction.number)
        }
        reader.close()
        try target.sync()
        return written
    }
}

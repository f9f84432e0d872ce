import GraphStore

/// The transactions the crash-test child commits. Each is derived from (writer, sequence) alone,
/// and names them in its row number, so a checker can tell whether a recovered transaction is
/// exactly one that was committed, whatever transaction number the log gave it.
public enum CrashWorkload {
    public static func row(writer: Int, sequence: Int) -> RowNumber {
        (UInt64(writer) << 40) | UInt64(sequence)
    }

    public static func operations(writer: Int, sequence: Int) -> [LogOperation] {
        var rng = SplitMix64(seed: row(writer: writer, sequence: sequence))
        // Mostly small commits, now and then one that spans several pages.
        let blobLength = sequence % 50 == 49 ? 20_000 + Int(rng.next() % 5_000) : Int(rng.next() % 400)
        let blob = (0..<blobLength).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        let row = row(writer: writer, sequence: sequence)
        var operations: [LogOperation] = [
            .insert(entity: 1, row: row, values: [
                PropertyValue(0, .int(Int64(sequence))),
                PropertyValue(1, .string("writer \(writer) commit \(sequence)")),
                PropertyValue(2, .data(.init(blob))),
            ]),
        ]
        if sequence > 0 {
            operations.append(.link(relationship: 7, source: row, target: Self.row(writer: writer, sequence: sequence - 1)))
        }
        return operations
    }

    /// The (writer, sequence) a recovered transaction claims, if its contents are exactly theirs.
    public static func identify(_ transaction: LogTransaction) -> (writer: Int, sequence: Int)? {
        guard case let .insert(_, row, _)? = transaction.operations.first else { return nil }
        let writer = Int(row >> 40)
        let sequence = Int(row & 0xFF_FFFF_FFFF)
        return transaction.operations == operations(writer: writer, sequence: sequence) ? (writer, sequence) : nil
    }
}

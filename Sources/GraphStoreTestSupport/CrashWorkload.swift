@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// The transactions the crash-test child commits. Each is derived from (writer, sequence) alone,
/// and names them in its row number, so a checker can tell whether a recovered transaction is
/// exactly one that was committed, whatever transaction number the log gave it.
package enum CrashWorkload {
    /// The schema the commits are in (entity 1, `Commit`: its sequence, label and blob, and a link
    /// to the writer's previous commit), committed first into a new store, so that the store
    /// opens, and verifies, as any other.
    package static let schema = SchemaRecord(fingerprint: "crash-workload-1", nextEntityNumber: 2, nextPropertyNumber: 8, entities: [
        SchemaRecord.EntityRecord(name: "Commit", number: 1, attributes: [
            SchemaRecord.Property(name: "sequence", number: 0, type: "Int"),
            SchemaRecord.Property(name: "label", number: 1, type: "String"),
            SchemaRecord.Property(name: "blob", number: 2, type: "Data"),
        ], relationships: [
            SchemaRecord.Property(name: "previous", number: 7, type: "Commit", isToMany: false, deleteRule: "nullify"),
        ]),
    ])

    package static var schemaOperations: [LogOperation] { [.schema(payload: schema.encoded())] }

    /// Whether a recovered transaction is the schema's.
    package static func isSchema(_ transaction: LogTransaction) -> Bool { transaction.operations == schemaOperations }

    /// Writers interleave (at most 16), so rows stay dense as a real store's are.
    package static let maximumWriters = 16

    package static func row(writer: Int, sequence: Int) -> RowNumber {
        UInt64(sequence * maximumWriters + writer + 1)
    }

    package static func operations(writer: Int, sequence: Int) -> [LogOperation] {
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
    package static func identify(_ transaction: LogTransaction) -> (writer: Int, sequence: Int)? {
        guard case let .insert(_, row, _)? = transaction.operations.first, row > 0 else { return nil }
        let writer = Int((row - 1) % UInt64(maximumWriters))
        let sequence = Int((row - 1) / UInt64(maximumWriters))
        return transaction.operations == operations(writer: writer, sequence: sequence) ? (writer, sequence) : nil
    }
}

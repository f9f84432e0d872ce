import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// The maintenance crash test's workload: a chain of `Item` rows, one per commit, each with an
/// external-storage payload, committed while another thread checkpoints and compacts. Every
/// row is derived from its sequence number alone, so a checker can tell a recovered row is
/// exactly the one committed.
package enum MaintenanceWorkload {
    /// Item: sequence (Int), label (String), payload (Data, external storage), previous (to-one Item).
    package static let schemaRecord = SchemaRecord(
        fingerprint: "maintenance-workload", nextEntityNumber: 2, nextPropertyNumber: 5,
        entities: [.init(name: "Item", number: 1, attributes: [
            .init(name: "sequence", number: 1, type: "Int"),
            .init(name: "label", number: 2, type: "String"),
            .init(name: "payload", number: 3, type: "Data?", options: AttributeOptions.externalStorage.recordedFlags),
        ], relationships: [.init(name: "previous", number: 4, type: "Item", deleteRule: "nullify")])])

    package static func label(_ sequence: Int) -> String { "item \(sequence)" }

    package static func payload(_ sequence: Int) -> Data {
        var rng = SplitMix64(seed: UInt64(sequence) &+ 77)
        return Data((0..<(64 + Int(rng.next() % 2_000))).map { _ in UInt8(truncatingIfNeeded: rng.next()) })
    }

    /// Row numbers are sequence + 1.
    package static func operations(sequence: Int) -> [LogOperation] {
        let row = RowNumber(sequence + 1)
        var operations: [LogOperation] = [.insert(entity: 1, row: row, values: [
            PropertyValue(1, .int(Int64(sequence))), PropertyValue(2, .string(label(sequence))), PropertyValue(3, .data(payload(sequence))),
        ])]
        if sequence > 0 { operations.append(.link(relationship: 4, source: row, target: row - 1)) }
        // Every third commit also rewrites an older item's label, so old segments hold dead data.
        if sequence % 3 == 2 { operations.append(.update(entity: 1, row: row - 2, values: [PropertyValue(2, .string(label(sequence - 2)))])) }
        return operations
    }
}

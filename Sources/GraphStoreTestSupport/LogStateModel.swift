@_spi(GraphStoreInternals) import GraphStoreCore

/// The state a sequence of operations describes, computed the simplest possible way: the
/// reference the property tests compare the store against.
package struct LogStateModel: Equatable, Sendable {
    package struct Row: Equatable, Sendable {
        package var entity: EntityNumber
        package var values: [PropertyNumber: Value]
    }

    package private(set) var rows: [RowNumber: Row] = [:]
    /// Ordered targets of each (relationship, source).
    package private(set) var links: [PropertyNumber: [RowNumber: [RowNumber]]] = [:]
    package private(set) var schemaRecords: [[UInt8]] = []

    package init() {}

    package mutating func apply(_ operations: [LogOperation]) {
        for operation in operations { apply(operation) }
    }

    package mutating func apply(_ operation: LogOperation) {
        switch operation {
        case let .insert(entity, row, values):
            rows[row] = Row(entity: entity, values: Dictionary(values.map { ($0.property, $0.value) }, uniquingKeysWith: { $1 }))
        case let .update(_, row, values):
            for pv in values { rows[row]?.values[pv.property] = pv.value }
        case let .delete(_, row):
            rows[row] = nil
        case let .link(relationship, source, target):
            links[relationship, default: [:]][source, default: []].append(target)
        case let .unlink(relationship, source, target):
            if let index = links[relationship]?[source]?.firstIndex(of: target) {
                links[relationship]![source]!.remove(at: index)
            }
        case let .schema(payload):
            schemaRecords.append(payload)
        }
    }
}

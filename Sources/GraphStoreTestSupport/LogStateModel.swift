import GraphStore

/// The state a sequence of operations describes, computed the simplest possible way: the
/// reference the property tests compare the store against.
public struct LogStateModel: Equatable, Sendable {
    public struct Row: Equatable, Sendable {
        public var entity: EntityNumber
        public var values: [PropertyNumber: Value]
    }

    public private(set) var rows: [RowNumber: Row] = [:]
    /// Ordered targets of each (relationship, source).
    public private(set) var links: [PropertyNumber: [RowNumber: [RowNumber]]] = [:]
    public private(set) var schemaRecords: [[UInt8]] = []

    public init() {}

    public mutating func apply(_ operations: [LogOperation]) {
        for operation in operations { apply(operation) }
    }

    public mutating func apply(_ operation: LogOperation) {
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

/// The numbers the log uses for schema elements. The schema layer assigns them and records the
/// mapping in schema operations; the log only carries them.
@_spi(GraphStoreInternals) public typealias EntityNumber = UInt32
@_spi(GraphStoreInternals) public typealias PropertyNumber = UInt32
/// A row's number, unique within its store across all entities, never reused.
@_spi(GraphStoreInternals) public typealias RowNumber = UInt64

/// One change inside a transaction.
@_spi(GraphStoreInternals) public enum LogOperation: Hashable, Sendable {
    /// A new row with its initial attribute values.
    case insert(entity: EntityNumber, row: RowNumber, values: [PropertyValue])
    /// New values for some attributes of an existing row.
    case update(entity: EntityNumber, row: RowNumber, values: [PropertyValue])
    case delete(entity: EntityNumber, row: RowNumber)
    /// Appends `target` to the relationship of `source` (to-many order is the order of links).
    case link(relationship: PropertyNumber, source: RowNumber, target: RowNumber)
    case unlink(relationship: PropertyNumber, source: RowNumber, target: RowNumber)
    /// A schema record (its encoding belongs to the schema layer).
    case schema(payload: [UInt8])
}

/// An attribute's new value in an insert or an update.
@_spi(GraphStoreInternals) public struct PropertyValue: Hashable, Sendable {
    /// The number of the attribute.
    @_spi(GraphStoreInternals) public var property: PropertyNumber
    /// Its value.
    @_spi(GraphStoreInternals) public var value: Value

    /// `value` for the attribute numbered `property`.
    @_spi(GraphStoreInternals) public init(_ property: PropertyNumber, _ value: Value) {
        self.property = property
        self.value = value
    }
}

/// A committed transaction as it is in the log.
@_spi(GraphStoreInternals) public struct LogTransaction: Hashable, Sendable {
    /// Monotonic from 1, without gaps, for the life of the store.
    @_spi(GraphStoreInternals) public var number: UInt64
    /// Commit time, microseconds since 1970 (UTC).
    @_spi(GraphStoreInternals) public var timestampMicros: Int64
    /// Who committed it (a context's name), empty when unnamed.
    @_spi(GraphStoreInternals) public var author: String
    @_spi(GraphStoreInternals) public var operations: [LogOperation]

    package init(number: UInt64, timestampMicros: Int64, author: String = "", operations: [LogOperation]) {
        self.number = number
        self.timestampMicros = timestampMicros
        self.author = author
        self.operations = operations
    }
}

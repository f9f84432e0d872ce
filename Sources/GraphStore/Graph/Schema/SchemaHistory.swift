/// One schema the store has recorded: the transaction that recorded it and the record itself.
/// A store keeps every one it ever had (in its log, and carried in each checkpoint so that
/// compaction never loses them): `graphstore info` lists them, history and time-travel opens read
/// old transactions through the schema that was current when they were written.
@_spi(GraphStoreInternals) public struct SchemaHistoryEntry: Equatable, Sendable {
    @_spi(GraphStoreInternals) public var transaction: UInt64
    @_spi(GraphStoreInternals) public var timestampMicros: Int64
    @_spi(GraphStoreInternals) public var record: SchemaRecord

    package init(transaction: UInt64, timestampMicros: Int64, record: SchemaRecord) {
        self.transaction = transaction
        self.timestampMicros = timestampMicros
        self.record = record
    }
}

extension Array where Element == SchemaHistoryEntry {
    /// The schema in effect for operations of `transaction` (the newest recorded at or before it).
    package func record(at transaction: UInt64) -> SchemaRecord? {
        last(where: { $0.transaction <= transaction })?.record
    }
}

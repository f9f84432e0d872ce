import GraphStoreCore

/// A consistent view of the committed graph, valid only inside `Graph.read`.
@_spi(GraphStoreInternals) public struct GraphView {
    @usableFromInline package let tables: [EntityTable]
    package let lastTransaction: UInt64

    @usableFromInline init(tables: [EntityTable], lastTransaction: UInt64) {
        self.tables = tables
        self.lastTransaction = lastTransaction
    }

    /// The table of the entity at position `entity`.
    @inlinable @_spi(GraphStoreInternals) public func table(_ entity: Int) -> EntityTable { tables[entity] }

    package func isLive(entity: Int, row: UInt64) -> Bool { tables[entity].isLive(row) }

    package func value(entity: Int, row: UInt64, attribute: Int) -> Value {
        tables[entity].value(row: row, attribute: attribute)
    }

    /// Whether an attribute of the row is nil (`value(…) == .null`), without making the value.
    package func isNull(entity: Int, row: UInt64, attribute: Int) -> Bool {
        tables[entity].columns[attribute].holdsNull(at: Int(row - 1))
    }

    /// The target row of a to-one relationship, or nil.
    package func toOne(entity: Int, row: UInt64, relationship: Int) -> UInt64? {
        tables[entity].toOneTarget(row: row, relationship: relationship)
    }

    /// The ordered target rows of a to-many relationship.
    package func toMany(entity: Int, row: UInt64, relationship: Int) -> [UInt32] {
        tables[entity].toMany[relationship].members(of: Int(row - 1))
    }

    /// The rows whose `relationship` points at `target`, whichever side stores it.
    package func sources(of relationship: RelationshipSide, pointingAt target: UInt64) -> [UInt32] {
        if let inverse = relationship.inverse {
            guard tables[inverse.entity].isLive(target) else { return [] }
            if inverse.isToMany { return tables[inverse.entity].toMany[inverse.index].members(of: Int(target - 1)) }
            let one = tables[inverse.entity].toOne[inverse.index][Int(target - 1)]
            return one == 0 ? [] : [one]
        }
        return tables[relationship.entity].reverse[relationship.index][UInt32(target)] ?? []
    }

    /// The row holding `value` in a unique attribute.
    package func row(entity: Int, uniqueAttribute: Int, value: Value) -> UInt64? {
        tables[entity].uniqueRow(attribute: uniqueAttribute, value: value)
    }
}

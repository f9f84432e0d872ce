@_spi(GraphStoreInternals) import GraphStoreCore

/// The unsaved changes of a context's inserts, entity by entity, by column: attribute values in
/// typed storage (`BatchColumn`: a date or a number in 9 bytes, a string in 17), relationship
/// changes one column per relationship. Kept in each object, as arrays of optionals, a flight's
/// thirteen values and three links took two allocations and 456 bytes, and a save copied the
/// values into columns like these beside them; a million unsaved flights held both.
///
/// An insert has a slot here (`ModelBacking.insertedSlot`, its row in the columns) from its
/// insert until it is saved, rolled back or deleted; a save hands an entity's attribute columns
/// to the transaction as its insert block, uncopied, with the slots of the objects it saves as
/// the block's sources. Slots are never reused before the whole table is emptied, once no
/// object holds one.
struct InsertedValues {
    private struct Table {
        var attributes: BatchColumns
        var relationships: [[PendingRelationship?]]
        /// Slots handed out.
        var count = 0
    }

    private var tables: [Table] = []

    /// A new slot of `entity`, which has `attributes` attributes and `relationships` relationships.
    mutating func newSlot(entity: Int, attributes: Int, relationships: Int) -> Int {
        if entity >= tables.count {
            tables.append(contentsOf: repeatElement(Table(attributes: BatchColumns(columns: 0), relationships: []),
                                                    count: entity + 1 - tables.count))
        }
        if tables[entity].attributes.columns.count < attributes { tables[entity].attributes = BatchColumns(columns: attributes) }
        if tables[entity].relationships.count < relationships {
            tables[entity].relationships = Array(repeating: [], count: relationships)
        }
        defer { tables[entity].count += 1 }
        return tables[entity].count
    }

    /// The value slot `slot` of `entity` was given for attribute `attribute`; nil when unset.
    @inline(__always) func value(entity: Int, slot: Int, attribute: Int) -> Value? {
        tables[entity].attributes.columns[attribute][slot]
    }

    /// Sets (nil: unsets) attribute `attribute` of slot `slot`.
    @inline(__always) mutating func set(_ value: Value?, entity: Int, slot: Int, attribute: Int) {
        if let value {
            tables[entity].attributes.columns[attribute].set(value, row: slot)
        } else if slot < tables[entity].attributes.columns[attribute].count {
            tables[entity].attributes.columns[attribute].setSlowly(nil, row: slot)
        }
    }

    /// Whether slot `slot` of `entity` has a value for any attribute.
    func hasValues(entity: Int, slot: Int) -> Bool {
        tables[entity].attributes.columns.contains { $0.state(ofRow: slot) != BatchColumn.unset }
    }

    /// The change slot `slot` of `entity` has for relationship `relationship`; nil when none.
    @inline(__always) func relationship(entity: Int, slot: Int, relationship: Int) -> PendingRelationship? {
        let column = tables[entity].relationships[relationship]
        return slot < column.count ? column[slot] : nil
    }

    /// Records (nil: forgets) the change of relationship `relationship` of slot `slot`.
    @inline(__always) mutating func setRelationship(_ change: PendingRelationship?, entity: Int, slot: Int, relationship: Int) {
        let count = tables[entity].relationships[relationship].count
        if slot >= count {
            guard change != nil else { return }
            tables[entity].relationships[relationship].append(contentsOf: repeatElement(nil, count: slot - count))
            tables[entity].relationships[relationship].append(change)
        } else {
            tables[entity].relationships[relationship][slot] = change
        }
    }

    /// Every attribute's column of `entity` (the rows are slots).
    func columns(of entity: Int) -> [BatchColumn] {
        entity < tables.count ? tables[entity].attributes.columns : []
    }

    /// Forgets every slot (once no object holds one).
    mutating func removeAll() {
        tables = []
    }
}

@_spi(GraphStoreInternals) import GraphStoreCore

/// The attribute values of a context's unsaved inserts, entity by entity, by column
/// (`BatchColumn`: a date or a number in 9 bytes, a string in 17). Kept in each object, as an
/// array of optional `Value`s, a flight's thirteen values took 344 bytes, and a save copied them
/// into columns like these beside it; a million unsaved flights held both.
///
/// An insert has a slot here (`ModelBacking.insertedSlot`, its row in the columns) from its
/// insert until it is saved, rolled back or deleted; a save hands an entity's columns to the
/// transaction as its insert block, uncopied, with the slots of the objects it saves as the
/// block's sources. Slots are never reused before the whole table is emptied, after a save.
struct InsertedValues {
    private var tables: [BatchColumns] = []
    /// Slots handed out, by entity.
    private var slotCounts: [Int] = []

    /// A new slot of `entity`, which has `attributes` attributes.
    mutating func newSlot(entity: Int, attributes: Int) -> Int {
        if entity >= tables.count {
            tables.append(contentsOf: repeatElement(BatchColumns(columns: 0), count: entity + 1 - tables.count))
            slotCounts.append(contentsOf: repeatElement(0, count: entity + 1 - slotCounts.count))
        }
        if tables[entity].columns.count < attributes { tables[entity] = BatchColumns(columns: attributes) }
        defer { slotCounts[entity] += 1 }
        return slotCounts[entity]
    }

    /// The value slot `slot` of `entity` was given for attribute `attribute`; nil when unset.
    @inline(__always) func value(entity: Int, slot: Int, attribute: Int) -> Value? {
        tables[entity].columns[attribute][slot]
    }

    /// Sets (nil: unsets) attribute `attribute` of slot `slot`.
    @inline(__always) mutating func set(_ value: Value?, entity: Int, slot: Int, attribute: Int) {
        if let value {
            tables[entity].columns[attribute].set(value, row: slot)
        } else if slot < tables[entity].columns[attribute].count {
            tables[entity].columns[attribute].setSlowly(nil, row: slot)
        }
    }

    /// Whether slot `slot` of `entity` has a value for any attribute.
    func hasValues(entity: Int, slot: Int) -> Bool {
        tables[entity].columns.contains { $0.state(ofRow: slot) != BatchColumn.unset }
    }

    /// Every attribute's column of `entity` (the rows are slots).
    func columns(of entity: Int) -> [BatchColumn] {
        entity < tables.count ? tables[entity].columns : []
    }

    /// Forgets every slot (after a save, when no object holds one any more).
    mutating func removeAll() {
        tables = []
        slotCounts = []
    }
}

@_spi(GraphStoreInternals) import GraphStoreCore

/// The unsaved changes of a context's objects (its inserts, and the committed objects it
/// changed), entity by entity, by column: attribute values in typed storage (`BatchColumn`: a
/// date or a number in 9 bytes, a string in 17), relationship changes one column per
/// relationship. Kept in each object, as arrays of optionals, a flight's thirteen values and
/// three links took two allocations and 456 bytes, and a save copied the values into columns
/// like these beside them; a million unsaved flights held both.
///
/// An object has a slot here (`ModelBacking.unsavedSlot`, its row in the columns) from its
/// first change or its insert until it is saved, rolled back, or (an insert) deleted; a save
/// hands an entity's attribute columns to the transaction as its insert and update blocks,
/// uncopied, with the slots of the objects it saves as the blocks' sources. Slots are never
/// reused before the whole table is emptied; emptying it takes every slot back from the
/// objects still holding one, so none can read another's later.
struct UnsavedValues {
    private struct Table {
        var attributes: BatchColumns
        var relationships: [[PendingRelationship?]]
        /// Each slot's object (held: every one is an unsaved insert or change the context holds
        /// anyway).
        var owners: [ModelBacking] = []

        /// No slots, the storage kept. Only the columns holding values are touched: the
        /// others are empty already.
        mutating func empty() {
            owners.removeAll(keepingCapacity: true)
            for column in attributes.columns.indices where !attributes.columns[column].isEmpty { attributes.columns[column].removeAll() }
            for relationship in relationships.indices { relationships[relationship].removeAll(keepingCapacity: true) }
        }
    }

    private var tables: [Table] = []

    /// A new slot of `entity` for `owner`; `entity` has `attributes` attributes and
    /// `relationships` relationships.
    mutating func newSlot(for owner: ModelBacking, entity: Int, attributes: Int, relationships: Int) -> Int {
        if entity >= tables.count {
            tables.append(contentsOf: repeatElement(Table(attributes: BatchColumns(columns: 0), relationships: []),
                                                    count: entity + 1 - tables.count))
        }
        if tables[entity].attributes.columns.count < attributes { tables[entity].attributes = BatchColumns(columns: attributes) }
        if tables[entity].relationships.count < relationships {
            tables[entity].relationships = Array(repeating: [], count: relationships)
        }
        tables[entity].owners.append(owner)
        return tables[entity].owners.count - 1
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

    /// Whether `owner`, which took slot `slot` of `entity`, still holds it (an object that took
    /// several holds only its last).
    @inline(__always)
    private static func holds(_ owner: ModelBacking, slot: Int, of entity: Int) -> Bool {
        owner.unsavedSlot == Int32(slot) && owner.entityIndex == entity
    }

    /// The object that holds slot `slot` of `entity`; nil when there is no such slot or its
    /// object gave it back.
    func holder(entity: Int, slot: Int) -> ModelBacking? {
        guard entity < tables.count, slot < tables[entity].owners.count else { return nil }
        let owner = tables[entity].owners[slot]
        return Self.holds(owner, slot: slot, of: entity) ? owner : nil
    }

    /// The entities with a table (0 ..< this).
    var entityCount: Int { tables.count }

    /// Each object of `entity` that holds the slot it took, in the order they took them.
    func forEachHolder(of entity: Int, _ body: (ModelBacking) throws -> Void) rethrows {
        guard entity < tables.count else { return }
        for (slot, owner) in tables[entity].owners.enumerated() where Self.holds(owner, slot: slot, of: entity) { try body(owner) }
    }

    /// Each object that took a slot (some more than once), in place.
    func forEachOwner(_ body: (ModelBacking) -> Void) {
        for table in tables { table.owners.forEach(body) }
    }

    /// Forgets every slot, taking back those objects still hold (their unsaved changes were
    /// saved or discarded: an object whose changes must outlive the table takes them back
    /// first, `ModelBacking.takeBackChanges`).
    mutating func removeAll() {
        for entity in tables.indices {
            forEachHolder(of: entity) { $0.unsavedSlot = -1 }
            // A table of a few slots is emptied where it is, so that the next save's few
            // changes find their storage made (freeing a small save's columns and making them
            // again was most of finishing it); a larger one is let go, with its memory.
            if tables[entity].owners.count <= Self.slotsKeptAfterEmptying {
                tables[entity].empty()
            } else {
                tables[entity] = Table(attributes: BatchColumns(columns: 0), relationships: [])
            }
        }
    }

    /// How many slots' storage a table keeps when emptied.
    static let slotsKeptAfterEmptying = 256
}

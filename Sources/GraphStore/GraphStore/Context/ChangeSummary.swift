@_spi(GraphStoreInternals) import GraphStoreCore
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Which properties of which rows a committed transaction changed, derived from its operations:
/// what other contexts need to tell the observers of their registered objects.
///
/// One commit's summary is handed to every other context (with 16 writers, 15 copies per
/// commit), so its contents live in one immutable object: a copy is one retain, not four.
struct ChangeSummary {
    /// Nothing changed (used to prompt a live query to apply what is waiting).
    static let empty = ChangeSummary(contents: Contents(Computed(changes: [:], inserted: [], updated: [], deleted: [])))

    /// A worked-out summary. A class, so that handing one out (to each context told of a
    /// commit) is a retain, not a copy of its four collections.
    final class Computed: Sendable {
        /// entity position → row → property names.
        let changes: [Int: [UInt64: Set<String>]]
        let inserted, updated, deleted: [PersistentIdentifier]

        init(changes: [Int: [UInt64: Set<String>]], inserted: [PersistentIdentifier], updated: [PersistentIdentifier],
             deleted: [PersistentIdentifier]) {
            (self.changes, self.inserted, self.updated, self.deleted) = (changes, inserted, updated, deleted)
        }
    }

    /// Worked out from the operations when first asked for, once, by whichever context asks:
    /// a transaction nobody holds objects of, watches or is notified of (a batch import beside
    /// contexts holding nothing) never pays for a row-by-row summary. Once worked out, the
    /// operations are let go (a summary waiting in an inbox must not keep an import's records).
    ///
    /// The identifiers alone (what save notifications carry) are worked out apart, without the
    /// map of names: a save of a million updates notifies its observers without a million-entry
    /// map that only a context holding those rows would read.
    private final class Contents: Sendable {
        /// The transaction, until the summary is worked out; guarded by the state's lock.
        private final class Pending {
            let changes: TransactionChanges
            let schema: Schema
            var identifiers: Computed?

            init(changes: TransactionChanges, schema: Schema) {
                self.changes = changes
                self.schema = schema
            }

            /// Asked through the object's own method, which reads `changes` in place: read from
            /// outside (`pending.changes.mayChange`), the transaction's arrays were copied first.
            func mayChange(anyOf isHeld: (Int, UInt64) -> Bool) -> Bool {
                changes.mayChange(anyOf: isHeld, schema: schema)
            }
        }

        /// Each case holds one reference: every other context reads the state of each commit,
        /// and binding a case's payload copies it.
        private enum State {
            case pending(Pending)
            case computed(Computed)
        }

        private let state: Locked<State>

        init(_ computed: Computed) {
            state = Locked(.computed(computed))
        }

        init(changes: TransactionChanges, schema: Schema) {
            state = Locked(.pending(Pending(changes: changes, schema: schema)))
        }

        var isSettled: Bool {
            state.withLock { if case .computed = $0 { true } else { false } }
        }

        /// See `ChangeSummary.mayChange(anyOf:)`. Answered under the lock, without taking the
        /// state out.
        func mayChange(anyOf isHeld: (Int, UInt64) -> Bool) -> Bool {
            state.withLock { state in
                switch state {
                case let .computed(computed):
                    return computed.changes.contains { entity, rows in rows.keys.contains { isHeld(entity, $0) } }
                case let .pending(pending):
                    return pending.mayChange(anyOf: isHeld)
                }
            }
        }

        /// The inserted, updated and deleted identifiers (`changes` is empty unless the whole
        /// summary was worked out already).
        var identifiers: Computed {
            state.withLock { state in
                switch state {
                case let .computed(computed):
                    return computed
                case let .pending(pending):
                    if let identifiers = pending.identifiers { return identifiers }
                    let identifiers = Computed(changes: pending.changes, schema: pending.schema, keepingNames: false)
                    pending.identifiers = identifiers
                    return identifiers
                }
            }
        }

        var value: Computed {
            state.withLock { state in
                switch state {
                case let .computed(computed):
                    return computed
                case let .pending(pending):
                    let computed = Computed(changes: pending.changes, schema: pending.schema, keepingNames: true)
                    state = .computed(computed)
                    return computed
                }
            }
        }
    }

    private let contents: Contents

    private init(contents: Contents) { self.contents = contents }

    init(operations: [LogOperation], schema: Schema) {
        self.init(changes: TransactionChanges(operations: operations), schema: schema)
    }

    init(changes: TransactionChanges, schema: Schema) {
        contents = Contents(changes: changes, schema: schema)
    }

    /// entity position → row → property names.
    var changes: [Int: [UInt64: Set<String>]] { contents.value.changes }
    var inserted: [PersistentIdentifier] { contents.identifiers.inserted }
    var updated: [PersistentIdentifier] { contents.identifiers.updated }
    var deleted: [PersistentIdentifier] { contents.identifiers.deleted }
    /// The three lists at once (a save's `didSave`): one read of the worked-out identifiers.
    var identifiers: (inserted: [PersistentIdentifier], updated: [PersistentIdentifier], deleted: [PersistentIdentifier]) {
        let computed = contents.identifiers
        return (computed.inserted, computed.updated, computed.deleted)
    }

    /// Whether the transaction may have changed a row for which `isHeld(entity position, row)`
    /// is true: never false when it did; true for a row it inserted or wrote nothing known to.
    /// Answered from the operations without working the summary out, so that a context holding
    /// none of the rows (16 writers each on their own flights: 15 merges per save) pays for a
    /// lookup per row, not for names and identifiers.
    func mayChange(anyOf isHeld: (Int, UInt64) -> Bool) -> Bool { contents.mayChange(anyOf: isHeld) }

    /// Works the summary out now (to be kept: see `Contents`).
    func settle() { _ = contents.value }

    /// The same summary, worked out (tests).
    var settled: ChangeSummary {
        settle()
        return self
    }

    /// Whether it is worked out (and holds no operations).
    var isSettled: Bool { contents.isSettled }
}

extension ChangeSummary.Computed {
    /// `keepingNames`: whether to make the map of names (else only the identifiers).
    convenience init(changes transaction: TransactionChanges, schema: Schema, keepingNames: Bool) {
        let operations = transaction.operations
        var changes: [Int: [UInt64: Set<String>]] = [:]
        var inserted: [PersistentIdentifier] = []
        var updated: [PersistentIdentifier] = []
        var deleted: [PersistentIdentifier] = []
        func entity(_ number: EntityNumber) -> Schema.Entity? { schema.entityIndexByNumber[number].map { schema.entities[$0] } }
        // Rows this transaction inserts are reported as inserted only: nobody can hold an older
        // version of them, so their own links need no entry (an import's links are most of its
        // operations). Rows are told apart by entity position and number, not by identifier
        // (hashing an identifier hashes its entity's name).
        var insertedRows = EntityRowFlags()
        // Without the names map, the rows listed as updated so far.
        var updatedRows = EntityRowFlags()
        func noteInserted(_ entity: Schema.Entity, _ row: UInt64) {
            inserted.append(PersistentIdentifier(entityName: entity.name, row: row))
            insertedRows.insert(row, of: entity.index)
        }
        for block in transaction.blocks where block.kind == .insert {
            guard let entity = entity(block.entity) else { continue }
            inserted.reserveCapacity(inserted.count + block.count)
            for row in block.rows { noteInserted(entity, row) }
        }
        for case let .insert(number, row, _) in operations {
            if let entity = entity(number) { noteInserted(entity, row) }
        }
        /// The names of the attributes these numbers name.
        func attributeNames(_ numbers: [PropertyNumber]) -> Set<String> {
            Set(numbers.compactMap { number in schema.attributeByNumber[number].map { schema.entities[$0.0].attributes[$0.1].name } })
        }
        var namesByProperties: [[PropertyNumber]: Set<String>] = [:]
        /// The last update's property numbers and their names: an upsert's updates all name the
        /// same properties, recognised without making and hashing an array per row.
        var lastProperties: [PropertyNumber] = [], lastNames: Set<String> = []
        /// Adds `names` to the row's entry; true when the row had none.
        func add(_ names: Set<String>, row: UInt64, to rows: inout [UInt64: Set<String>]) -> Bool {
            if let i = rows.index(forKey: row) {
                rows.values[i].formUnion(names)
                return false
            }
            rows[row] = names
            return true
        }
        /// `names` of a row changed (unless the transaction inserts it). A row is listed as
        /// updated when it first gets an entry (a row deleted here, which has one already, is
        /// reported as deleted instead).
        func note(_ entity: Int, _ row: UInt64, _ names: @autoclosure () -> Set<String>) {
            if insertedRows.contains(row, of: entity) { return }
            if keepingNames ? add(names(), row: row, to: &changes[entity, default: [:]]) : !updatedRows.contains(row, of: entity) {
                if !keepingNames { updatedRows.insert(row, of: entity) }
                updated.append(PersistentIdentifier(entityName: schema.entities[entity].name, row: row))
            }
        }
        // An update block's rows mostly write the same columns (an upsert's): one set of names
        // per combination of columns, shared by its rows.
        for block in transaction.blocks where block.kind == .update {
            guard let entity = entity(block.entity) else { continue }
            guard keepingNames else {
                // Identifiers only: a row is updated when it writes an attribute the schema knows.
                func isKnown(_ column: Int) -> Bool { schema.attributeByNumber[block.properties[column]] != nil }
                let known = block.properties.count <= 64
                    ? block.properties.indices.reduce(UInt64(0)) { isKnown($1) ? $0 | 1 << UInt64($1) : $0 } : 0
                for index in 0..<block.count {
                    let writesKnown = if let bits = block.writtenColumnBits(ofRow: index) { bits & known != 0 }
                                      else { block.writtenColumns(ofRow: index).contains(where: isKnown) }
                    if writesKnown { note(entity.index, block.rows[index], []) }
                }
                continue
            }
            func names(_ columns: [Int]) -> Set<String> { attributeNames(columns.map { block.properties[$0] }) }
            var namesByBits: [UInt64: Set<String>] = [:]
            for index in 0..<block.count {
                let rowNames: Set<String>
                if let bits = block.writtenColumnBits(ofRow: index) {
                    if let known = namesByBits[bits] {
                        rowNames = known
                    } else {
                        rowNames = names(block.writtenColumns(ofRow: index))
                        namesByBits[bits] = rowNames
                    }
                } else {
                    rowNames = names(block.writtenColumns(ofRow: index))
                }
                if !rowNames.isEmpty { note(entity.index, block.rows[index], rowNames) }
            }
        }
        /// A link or unlink: both rows' relationships changed.
        func noteLink(_ number: PropertyNumber, _ source: UInt64, _ target: UInt64) {
            guard let (e, r) = schema.relationshipByNumber[number] else { return }
            note(e, source, schema.relationshipNameSets[e][r])
            if let inverse = schema.entities[e].relationships[r].inverse {
                note(inverse.entity, target, schema.relationshipNameSets[inverse.entity][inverse.relationship])
            }
        }
        for block in transaction.links {
            for (source, target) in block.links { noteLink(block.relationship, source, target) }
        }
        for operation in operations {
            switch operation {
            case .insert, .schema:
                continue
            case let .update(number, row, values):
                guard let entity = entity(number) else { continue }
                guard keepingNames else {
                    if values.contains(where: { schema.attributeByNumber[$0.property] != nil }) { note(entity.index, row, []) }
                    continue
                }
                // An upsert of many rows updates the same attributes in each: their set of names
                // is made once and shared by the rows (no set allocated and hashed per row).
                let names: Set<String>
                if values.count == lastProperties.count, zip(values, lastProperties).allSatisfy({ $0.property == $1 }) {
                    names = lastNames
                } else {
                    let properties = values.map(\.property)
                    if let known = namesByProperties[properties] {
                        names = known
                    } else {
                        names = attributeNames(properties)
                        namesByProperties[properties] = names
                    }
                    (lastProperties, lastNames) = (properties, names)
                }
                if !names.isEmpty { note(entity.index, row, names) }
            case let .delete(number, row):
                guard let entity = entity(number) else { continue }
                deleted.append(PersistentIdentifier(entityName: entity.name, row: row))
                guard keepingNames else { continue }
                for a in entity.attributes { changes[entity.index, default: [:]][row, default: []].insert(a.name) }
                for r in entity.relationships { changes[entity.index, default: [:]][row, default: []].insert(r.name) }
            case let .link(number, source, target), let .unlink(number, source, target):
                noteLink(number, source, target)
            }
        }
        // A row deleted in this transaction counts as deleted, not updated.
        if !deleted.isEmpty {
            let deletedRows = Set(deleted)
            updated.removeAll { deletedRows.contains($0) }
        }
        self.init(changes: changes, inserted: inserted, updated: updated, deleted: deleted)
    }
}

extension TransactionChanges {
    /// See `ChangeSummary.mayChange(anyOf:)`: the rows updated, deleted and linked or
    /// unlinked (both sides), without telling the inserted ones apart.
    fileprivate func mayChange(anyOf isHeld: (Int, UInt64) -> Bool, schema: Schema) -> Bool {
        for block in blocks where block.kind == .update {
            guard let entity = schema.entityIndexByNumber[block.entity] else { continue }
            if block.rows.contains(where: { isHeld(entity, $0) }) { return true }
        }
        /// Whether a link or unlink touches a held row, on either side.
        func touchesHeld(_ number: PropertyNumber, _ source: UInt64, _ target: UInt64) -> Bool {
            guard let (e, r) = schema.relationshipByNumber[number] else { return false }
            if isHeld(e, source) { return true }
            if let inverse = schema.entities[e].relationships[r].inverse, isHeld(inverse.entity, target) { return true }
            return false
        }
        for block in links {
            for (source, target) in block.links where touchesHeld(block.relationship, source, target) { return true }
        }
        for operation in operations {
            switch operation {
            case .insert, .schema:
                continue
            case let .update(number, row, _), let .delete(number, row):
                if let entity = schema.entityIndexByNumber[number], isHeld(entity, row) { return true }
            case let .link(number, source, target), let .unlink(number, source, target):
                if touchesHeld(number, source, target) { return true }
            }
        }
        return false
    }
}

/// Which properties of which rows a committed transaction changed, derived from its operations:
/// what other contexts need to tell the observers of their registered objects.
struct ChangeSummary {
    /// Nothing changed (used to prompt a live query to apply what is waiting).
    static let empty = ChangeSummary()

    private init() {}

    /// entity position → row → property names.
    private(set) var changes: [Int: [UInt64: Set<String>]] = [:]
    private(set) var inserted: [PersistentIdentifier] = []
    private(set) var updated: [PersistentIdentifier] = []
    private(set) var deleted: [PersistentIdentifier] = []

    init(operations: [LogOperation], schema: Schema) {
        func entity(_ number: EntityNumber) -> Schema.Entity? { schema.entityIndexByNumber[number].map { schema.entities[$0] } }
        // Rows this transaction inserts are reported as inserted only: nobody can hold an older
        // version of them, so their own links need no entry (an import's links are most of its
        // operations). Rows are told apart by entity position and number, not by identifier
        // (hashing an identifier hashes its entity's name).
        var insertedRows: [Int: Set<UInt64>] = [:]
        for case let .insert(number, row, _) in operations {
            if let entity = entity(number) {
                inserted.append(PersistentIdentifier(entityName: entity.name, row: row))
                insertedRows[entity.index, default: []].insert(row)
            }
        }
        struct RowKey: Hashable { var entity: Int; var row: UInt64 }
        var updatedRows: Set<RowKey> = []
        func note(_ entity: Int, _ row: UInt64, _ name: String) {
            if insertedRows[entity]?.contains(row) == true { return }
            changes[entity, default: [:]][row, default: []].insert(name)
            if updatedRows.insert(RowKey(entity: entity, row: row)).inserted {
                updated.append(PersistentIdentifier(entityName: schema.entities[entity].name, row: row))
            }
        }
        for operation in operations {
            switch operation {
            case .insert, .schema:
                continue
            case let .update(number, row, values):
                guard let entity = entity(number) else { continue }
                for pv in values {
                    if let (e, a) = schema.attributeByNumber[pv.property] { note(entity.index, row, schema.entities[e].attributes[a].name) }
                }
            case let .delete(number, row):
                guard let entity = entity(number) else { continue }
                deleted.append(PersistentIdentifier(entityName: entity.name, row: row))
                for a in entity.attributes { changes[entity.index, default: [:]][row, default: []].insert(a.name) }
                for r in entity.relationships { changes[entity.index, default: [:]][row, default: []].insert(r.name) }
            case let .link(number, source, target), let .unlink(number, source, target):
                guard let (e, r) = schema.relationshipByNumber[number] else { continue }
                let relationship = schema.entities[e].relationships[r]
                note(relationship.entityIndex, source, relationship.name)
                if let inverse = relationship.inverse {
                    note(inverse.entity, target, schema.entities[inverse.entity].relationships[inverse.relationship].name)
                }
            }
        }
        // A row deleted in this transaction counts as deleted, not updated.
        if !deleted.isEmpty {
            let deletedRows = Set(deleted)
            updated.removeAll { deletedRows.contains($0) }
        }
    }
}

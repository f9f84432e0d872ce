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
        var updatedSet: Set<PersistentIdentifier> = []
        func note(_ entity: Int, _ row: UInt64, _ name: String) {
            changes[entity, default: [:]][row, default: []].insert(name)
            let id = PersistentIdentifier(entityName: schema.entities[entity].name, row: row)
            if updatedSet.insert(id).inserted { updated.append(id) }
        }
        var insertedRows: Set<PersistentIdentifier> = []
        for operation in operations {
            switch operation {
            case let .insert(number, row, _):
                if let entity = entity(number) {
                    let id = PersistentIdentifier(entityName: entity.name, row: row)
                    inserted.append(id)
                    insertedRows.insert(id)
                }
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
            case .schema:
                continue
            }
        }
        // A row inserted in this transaction counts as inserted, not updated.
        updated.removeAll { insertedRows.contains($0) }
        let deletedRows = Set(deleted)
        updated.removeAll { deletedRows.contains($0) }
    }
}

/// Maps the numbers of a recorded schema (a `.schema` operation in the log) onto the running
/// schema's numbers, by entity and property name (or `originalName`). Data written under an older
/// numbering is read through the translation of the schema record that preceded it.
struct SchemaTranslation {
    private(set) var entities: [EntityNumber: EntityNumber] = [:]
    private(set) var properties: [PropertyNumber: PropertyNumber] = [:]
    /// Differences that stored data cannot follow without a migration (type changes).
    private(set) var incompatibilities: [String] = []

    init(record: SchemaRecord, schema: Schema) {
        for recorded in record.entities {
            guard let entity = schema.entity(named: recorded.name)
                ?? schema.entities.first(where: { $0.originalName == recorded.name }) else { continue }
            entities[recorded.number] = entity.number
            for a in recorded.attributes {
                guard let attribute = entity.attribute(named: a.name) ?? entity.attributes.first(where: { $0.originalName == a.name }) else { continue }
                if attribute.type.description != a.type {
                    incompatibilities.append("\(entity.name).\(attribute.name) is stored as \(a.type) but declared as \(attribute.type)")
                    continue
                }
                properties[a.number] = attribute.number
            }
            for r in recorded.relationships {
                guard let relationship = entity.relationship(named: r.name)
                    ?? entity.relationships.first(where: { $0.originalName == r.name }) else { continue }
                let targetMatches = relationship.targetName == r.type
                    || schema.entity(named: relationship.targetName)?.originalName == r.type
                if !targetMatches || relationship.isToMany != r.isToMany {
                    incompatibilities.append("\(entity.name).\(relationship.name) is stored as \(r.isToMany ? "to-many" : "to-one") \(r.type) but declared as \(relationship.isToMany ? "to-many" : "to-one") \(relationship.targetName)")
                    continue
                }
                properties[r.number] = relationship.number
            }
        }
    }

    /// Whether the record numbers everything exactly as the running schema does.
    static func isIdentity(record: SchemaRecord, schema: Schema) -> Bool {
        record == SchemaRecord(schema: schema)
    }

    /// The operation in the running schema's numbers; nil when it names something the models no longer have.
    func translate(_ operation: LogOperation) -> LogOperation? {
        switch operation {
        case let .insert(entity, row, values):
            guard let e = entities[entity] else { return nil }
            return .insert(entity: e, row: row, values: translate(values))
        case let .update(entity, row, values):
            guard let e = entities[entity] else { return nil }
            return .update(entity: e, row: row, values: translate(values))
        case let .delete(entity, row):
            guard let e = entities[entity] else { return nil }
            return .delete(entity: e, row: row)
        case let .link(relationship, source, target):
            guard let r = properties[relationship] else { return nil }
            return .link(relationship: r, source: source, target: target)
        case let .unlink(relationship, source, target):
            guard let r = properties[relationship] else { return nil }
            return .unlink(relationship: r, source: source, target: target)
        case .schema:
            return nil
        }
    }

    private func translate(_ values: [PropertyValue]) -> [PropertyValue] {
        values.compactMap { pv in properties[pv.property].map { PropertyValue($0, pv.value) } }
    }
}

@_spi(GraphStoreInternals) import GraphStoreCore

/// Maps the numbers of a recorded schema (a `.schema` operation in the log) onto the running
/// schema's numbers, by entity and property name (or `originalName`). Data written under an older
/// numbering is read through the translation of the schema record that preceded it.
///
/// Changes stored data can follow are *lightweight*: added, removed and renamed entities and
/// properties, indexes and unique constraints added or dropped, external storage switched,
/// an integer widened, a non-optional attribute made optional, a delete rule changed. Anything
/// else is an *incompatibility*: the property is not mapped (its stored values are dropped) and
/// the difference is listed, so that an open whose current schema needs it can refuse
/// (`SchemaError.incompatible`) and a migration stage can accept it.
package struct SchemaTranslation {
    package private(set) var entities: [EntityNumber: EntityNumber] = [:]
    package private(set) var properties: [PropertyNumber: PropertyNumber] = [:]
    /// Differences that stored data cannot follow without a migration (type changes).
    package private(set) var incompatibilities: [String] = []
    /// Attributes unique in the running schema but not in the record (entity, attribute numbers):
    /// stored rows must be checked for duplicates before the constraint is recorded.
    package private(set) var newlyUnique: [(EntityNumber, PropertyNumber)] = []

    /// Whether values stored as `recorded` read losslessly as `declared`: a wider integer of the
    /// same signedness, an unsigned one into a wider signed one, or the same type made optional.
    package static func widens(from recorded: String, to declared: AttributeType) -> Bool {
        guard let stored = AttributeType(recorded: recorded) else { return false }
        if stored.isOptional && !declared.isOptional { return false }
        if stored.kind == declared.kind { return true }
        switch (stored.kind, declared.kind) {
        case let (.int(a), .int(b)), let (.uint(a), .uint(b)): return b > a
        case let (.uint(a), .int(b)): return b > a
        default: return false
        }
    }

    package init(record: SchemaRecord, schema: Schema) {
        for recorded in record.entities {
            guard let entity = schema.entity(named: recorded.name)
                ?? schema.entities.first(where: { $0.originalName == recorded.name }) else { continue }
            entities[recorded.number] = entity.number
            for a in recorded.attributes {
                guard let attribute = entity.attribute(named: a.name) ?? entity.attributes.first(where: { $0.originalName == a.name }) else { continue }
                if attribute.type.description != a.type, !Self.widens(from: a.type, to: attribute.type) {
                    incompatibilities.append("\(entity.name).\(attribute.name) is stored as \(a.type) but declared as \(attribute.type)")
                    continue
                }
                if attribute.isUnique && AttributeOptions(rawValue: UInt32(a.options)).contains(.unique) == false {
                    newlyUnique.append((entity.number, attribute.number))
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
                if !r.inverseName.isEmpty, let inverseName = relationship.inverseName,
                   inverseName != r.inverseName, schema.entity(named: relationship.targetName)?.relationship(named: inverseName)?.originalName != r.inverseName {
                    incompatibilities.append("\(entity.name).\(relationship.name) is stored with inverse \(r.inverseName) but declared with inverse \(inverseName)")
                    continue
                }
                properties[r.number] = relationship.number
            }
        }
    }

    /// Whether the record numbers everything exactly as the running schema does.
    package static func isIdentity(record: SchemaRecord, schema: Schema) -> Bool {
        record.hasSameShape(as: SchemaRecord(schema: schema))
    }

    /// The operation in the running schema's numbers; nil when it names something the models no longer have.
    package func translate(_ operation: LogOperation) -> LogOperation? {
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

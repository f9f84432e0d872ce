/// A schema rebuilt from the record a store keeps in its log, for tools that open a store
/// without its model classes (`graphstore dump`, `export`, `compact`). Entities have no type,
/// so no context can make objects of them; the graph, checkpoints and history work as usual.
extension Schema {
    public convenience init(record: SchemaRecord) throws {
        let indexByName = Dictionary(record.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [Schema.Entity] = []
        for (entityIndex, recorded) in record.entities.enumerated() {
            var attributes: [Schema.Attribute] = []
            for (i, a) in recorded.attributes.enumerated() {
                guard let type = AttributeType(recorded: a.type) else {
                    throw SchemaError.unreadableRecord(reason: "\(recorded.name).\(a.name) has unknown type \(String(reflecting: a.type))")
                }
                attributes.append(Schema.Attribute(name: a.name, index: i, number: a.number, type: type,
                                                   options: AttributeOptions(rawValue: a.options), originalName: nil,
                                                   defaultValue: .null))
            }
            var relationships: [Schema.Relationship] = []
            for (i, r) in recorded.relationships.enumerated() {
                guard let target = indexByName[r.type] else {
                    throw SchemaError.unreadableRecord(reason: "\(recorded.name).\(r.name) targets unknown entity \(String(reflecting: r.type))")
                }
                var inverse: RelationshipReference?
                if !r.inverseName.isEmpty, let j = record.entities[target].relationships.firstIndex(where: { $0.name == r.inverseName }) {
                    inverse = RelationshipReference(entity: target, relationship: j)
                }
                relationships.append(Schema.Relationship(
                    name: r.name, index: i, number: r.number, entityIndex: entityIndex, targetIndex: target, targetName: r.type,
                    isToMany: r.isToMany, deleteRule: DeleteRule(rawValue: r.deleteRule) ?? .nullify, inverse: inverse,
                    inverseName: inverse == nil ? nil : r.inverseName, minimumCount: nil, maximumCount: nil, originalName: nil))
            }
            entities.append(Schema.Entity(name: recorded.name, index: entityIndex, number: recorded.number, type: nil,
                                          attributes: attributes, relationships: relationships, originalName: nil,
                                          propertyNamer: { _ in nil }))
        }
        self.init(entities: entities, nextEntityNumber: record.nextEntityNumber, nextPropertyNumber: record.nextPropertyNumber)
    }
}

extension AttributeType {
    /// Parses the type text a schema record holds ("String?", "[Int]", "[String: Date]").
    init?(recorded text: String) {
        var body = Substring(text)
        let optional = body.hasSuffix("?")
        if optional { body = body.dropLast() }
        guard let kind = StorageKind(recorded: body) else { return nil }
        self.init(kind: kind, isOptional: optional)
    }
}

extension StorageKind {
    init?(recorded text: Substring) {
        switch text {
        case "Bool": self = .bool
        case "Int": self = .int(bits: 64)
        case "UInt": self = .uint(bits: 64)
        case "Double": self = .double
        case "Float": self = .float
        case "String": self = .string
        case "Date": self = .date
        case "Data": self = .data
        case "UUID": self = .uuid
        case "URL": self = .url
        case "Decimal": self = .decimal
        default:
            if text.hasPrefix("Int"), let bits = Int(text.dropFirst(3)) {
                self = .int(bits: bits)
            } else if text.hasPrefix("UInt"), let bits = Int(text.dropFirst(4)) {
                self = .uint(bits: bits)
            } else if text.hasPrefix("Codable("), text.hasSuffix(")") {
                self = .codable(typeName: String(text.dropFirst(8).dropLast()))
            } else if text.hasPrefix("[String: "), text.hasSuffix("]"), let value = StorageKind(recorded: text.dropFirst(9).dropLast()) {
                self = .dictionary(value)
            } else if text.hasPrefix("["), text.hasSuffix("]"), let element = StorageKind(recorded: text.dropFirst().dropLast()) {
                self = .array(element)
            } else {
                return nil
            }
        }
    }
}

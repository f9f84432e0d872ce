@_spi(GraphStoreInternals) import GraphStoreCore

/// A schema rebuilt from the record a store keeps in its log, for tools that open a store
/// without its model classes (`graphstore dump`, `export`, `compact`). Entities have no type,
/// so no context can make objects of them; the graph, checkpoints and history work as usual.
extension Schema {
    /// The schema a record describes, without model types (what tools open a store with).
    /// Throws when the record does not describe a valid schema.
    @_spi(GraphStoreInternals) public convenience init(record: SchemaRecord) throws {
        try record.validate()
        let indexByName = Dictionary(record.entities.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        var entities: [Schema.Entity] = []
        for (entityIndex, recorded) in record.entities.enumerated() {
            var attributes: [Schema.Attribute] = []
            for (i, a) in recorded.attributes.enumerated() {
                guard let type = AttributeType(recorded: a.type) else {
                    throw SchemaError.unreadableRecord(reason: "\(recorded.name).\(a.name) has unknown type \(String(reflecting: a.type))")
                }
                attributes.append(Schema.Attribute(name: a.name, index: i, number: a.number, type: type,
                                                   options: AttributeOptions(rawValue: UInt32(a.options)), originalName: nil,
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

extension SchemaRecord {
    /// The longest type text, and the deepest nesting of arrays and dictionaries, a record may
    /// hold: far beyond any model's, and small enough that parsing one costs nothing.
    package static let longestTypeText = 256
    package static let deepestTypeNesting = 16

    /// Throws `SchemaError.unreadableRecord` naming the first thing no schema can be built from:
    /// a name used twice (entities; properties of one entity), a number used twice, an empty
    /// name, a type text that is too long or nested too deep.
    package func validate() throws {
        func fail(_ reason: String) -> SchemaError { .unreadableRecord(reason: reason) }
        var entityNames = Set<String>(), entityNumbers = Set<EntityNumber>()
        for entity in entities {
            guard !entity.name.isEmpty else { throw fail("an entity has no name") }
            guard entityNames.insert(entity.name).inserted else { throw fail("two entities are named \(entity.name)") }
            guard entityNumbers.insert(entity.number).inserted else { throw fail("two entities have the number \(entity.number)") }
            var names = Set<String>(), numbers = Set<PropertyNumber>()
            for property in entity.attributes + entity.relationships {
                guard !property.name.isEmpty else { throw fail("a property of \(entity.name) has no name") }
                guard names.insert(property.name).inserted else { throw fail("\(entity.name) has two properties named \(property.name)") }
                guard numbers.insert(property.number).inserted else { throw fail("\(entity.name) has two properties numbered \(property.number)") }
            }
            for attribute in entity.attributes {
                let nesting = attribute.type.reduce(0) { $0 + ($1 == "[" ? 1 : 0) }
                guard attribute.type.utf8.count <= Self.longestTypeText, nesting <= Self.deepestTypeNesting else {
                    throw fail("\(entity.name).\(attribute.name) has a type too long or nested too deep to be a model's")
                }
            }
        }
    }
}

extension AttributeType {
    /// Parses the type text a schema record holds ("String?", "[Int]", "[String: Date]").
    package init?(recorded text: String) {
        var body = Substring(text)
        let optional = body.hasSuffix("?")
        if optional { body = body.dropLast() }
        guard let kind = StorageKind(recorded: body) else { return nil }
        self.init(kind: kind, isOptional: optional)
    }
}

extension StorageKind {
    package init?(recorded text: Substring) {
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
            if text.hasPrefix("Int"), let bits = Int(text.dropFirst(3)), [8, 16, 32, 64].contains(bits) {
                self = .int(bits: bits)
            } else if text.hasPrefix("UInt"), let bits = Int(text.dropFirst(4)), [8, 16, 32, 64].contains(bits) {
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

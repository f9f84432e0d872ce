import Foundation

/// Models are Codable through their schema (SwiftData's @Model is not): each attribute under its
/// name, in its natural Codable form (so the encoder's date, data and key strategies apply);
/// each to-one relationship as the target's `PersistentIdentifier`; and the object's own
/// identifier under "persistentModelID" once it has one. To-many relationships are left out
/// (they are the inverse of to-ones, which carry them). Codable-typed attributes travel as
/// their JSON text.
enum ModelCoding {
    struct Key: CodingKey {
        var stringValue: String
        var intValue: Int? { nil }
        init(_ string: String) { stringValue = string }
        init?(stringValue: String) { self.stringValue = stringValue }
        init?(intValue: Int) { nil }
    }

    static let identifierKey = Key("persistentModelID")

    static func encode(_ model: Model, to encoder: any Encoder) throws {
        let declaration = try ModelDiscovery.declaration(for: type(of: model))
        var container = encoder.container(keyedBy: Key.self)
        if !model.persistentModelID.isTemporary { try container.encode(model.persistentModelID, forKey: identifierKey) }
        // An object in no context has its own `= UUID()` values (made now if not yet).
        let own = model.modelContext == nil ? model.persistentInitialValues() : [:]
        for (index, attribute) in declaration.attributes.enumerated() {
            let value = model.persistentBacking.attributeValue(at: index) ?? own[attribute.name] ?? attribute.defaultValue
            try encode(value, kind: attribute.type.kind, into: &container, forKey: Key(attribute.name))
        }
        for (index, relationship) in declaration.relationships.enumerated() where !relationship.isToMany {
            let target = model.persistentBacking.toOne(at: index)
            try container.encodeIfPresent(target.flatMap { $0.persistentModelID.isTemporary ? nil : $0.persistentModelID },
                                          forKey: Key(relationship.name))
        }
    }

    static func decode(_ model: Model, from decoder: any Decoder) throws {
        let declaration = try ModelDiscovery.declaration(for: type(of: model))
        let container = try decoder.container(keyedBy: Key.self)
        for (index, attribute) in declaration.attributes.enumerated() {
            let key = Key(attribute.name)
            guard container.contains(key) else { continue }
            let value = try decodeValue(kind: attribute.type.kind, optional: attribute.type.isOptional, from: container, forKey: key)
            model.persistentBacking.setAttributeValue(value, at: index, of: model)
        }
        for (index, relationship) in declaration.relationships.enumerated() where !relationship.isToMany {
            if let identifier = try container.decodeIfPresent(PersistentIdentifier.self, forKey: Key(relationship.name)) {
                model.persistentBacking.setUnresolvedToOne(identifier, at: index)
            }
        }
    }

    private static func encode(_ value: Value, kind: StorageKind, into container: inout KeyedEncodingContainer<Key>, forKey key: Key) throws {
        switch value {
        case .null: try container.encodeNil(forKey: key)
        case let .bool(v): try container.encode(v, forKey: key)
        case let .int(v): try container.encode(v, forKey: key)
        case let .uint(v): try container.encode(v, forKey: key)
        case let .double(v): try container.encode(v, forKey: key)
        case let .float(v): try container.encode(v, forKey: key)
        case let .string(v): try container.encode(v, forKey: key)
        case let .data(v):
            if case .codable = kind { try container.encode(String(decoding: v, as: UTF8.self), forKey: key) } else { try container.encode(v, forKey: key) }
        case let .date(v): try container.encode(v, forKey: key)
        case let .uuid(v): try container.encode(v, forKey: key)
        case let .url(v): try container.encode(v, forKey: key)
        case let .decimal(v): try container.encode(v, forKey: key)
        case .array, .dictionary: try container.encode(CodableValue(value: value, kind: kind), forKey: key)
        case .blob:
            // Reads resolve blob references to their bytes; one here means the blob file could not be read.
            throw EncodingError.invalidValue(value, .init(codingPath: container.codingPath + [key], debugDescription: "unreadable external-storage value"))
        }
    }

    private static func decodeValue(kind: StorageKind, optional: Bool, from container: KeyedDecodingContainer<Key>, forKey key: Key) throws -> Value {
        if optional, try container.decodeNil(forKey: key) { return .null }
        switch kind {
        case .bool: return .bool(try container.decode(Bool.self, forKey: key))
        case .int: return .int(try container.decode(Int64.self, forKey: key))
        case .uint: return .uint(try container.decode(UInt64.self, forKey: key))
        case .double: return .double(try container.decode(Double.self, forKey: key))
        case .float: return .float(try container.decode(Float.self, forKey: key))
        case .string: return .string(try container.decode(String.self, forKey: key))
        case .date: return .date(try container.decode(Date.self, forKey: key))
        case .data: return .data(try container.decode(Data.self, forKey: key))
        case .uuid: return .uuid(try container.decode(UUID.self, forKey: key))
        case .url: return .url(try container.decode(URL.self, forKey: key))
        case .decimal: return .decimal(try container.decode(Decimal.self, forKey: key))
        case .codable: return .data(Data(try container.decode(String.self, forKey: key).utf8))
        case .array, .dictionary:
            return try CodableValue.decode(kind: kind, from: container.superDecoder(forKey: key))
        }
    }
}

/// Arrays and dictionaries of storable values, in their natural JSON form.
struct CodableValue: Encodable {
    let value: Value
    let kind: StorageKind

    func encode(to encoder: any Encoder) throws {
        switch (value, kind) {
        case let (.array(items), .array(element)):
            var c = encoder.unkeyedContainer()
            for item in items { try c.encode(CodableValue(value: item, kind: element)) }
        case let (.dictionary(entries), .dictionary(element)):
            var c = encoder.container(keyedBy: ModelCoding.Key.self)
            for (k, v) in entries { try c.encode(CodableValue(value: v, kind: element), forKey: ModelCoding.Key(k)) }
        default:
            var c = encoder.singleValueContainer()
            switch value {
            case .null: try c.encodeNil()
            case let .bool(v): try c.encode(v)
            case let .int(v): try c.encode(v)
            case let .uint(v): try c.encode(v)
            case let .double(v): try c.encode(v)
            case let .float(v): try c.encode(v)
            case let .string(v): try c.encode(v)
            case let .data(v): try c.encode(v)
            case let .date(v): try c.encode(v)
            case let .uuid(v): try c.encode(v)
            case let .url(v): try c.encode(v)
            case let .decimal(v): try c.encode(v)
            case .array, .dictionary: try c.encode(CodableValue(value: value, kind: kind))
            case .blob:
                throw EncodingError.invalidValue(value, .init(codingPath: c.codingPath, debugDescription: "unreadable external-storage value"))
            }
        }
    }

    static func decode(kind: StorageKind, from decoder: any Decoder) throws -> Value {
        switch kind {
        case let .array(element):
            var c = try decoder.unkeyedContainer()
            var items: [Value] = []
            while !c.isAtEnd { items.append(try decode(kind: element, from: try c.superDecoder())) }
            return .array(items)
        case let .dictionary(element):
            let c = try decoder.container(keyedBy: ModelCoding.Key.self)
            var entries: [String: Value] = [:]
            for key in c.allKeys { entries[key.stringValue] = try decode(kind: element, from: try c.superDecoder(forKey: key)) }
            return .dictionary(entries)
        default:
            let c = try decoder.singleValueContainer()
            if c.decodeNil() { return .null }
            switch kind {
            case .bool: return .bool(try c.decode(Bool.self))
            case .int: return .int(try c.decode(Int64.self))
            case .uint: return .uint(try c.decode(UInt64.self))
            case .double: return .double(try c.decode(Double.self))
            case .float: return .float(try c.decode(Float.self))
            case .string: return .string(try c.decode(String.self))
            case .date: return .date(try c.decode(Date.self))
            case .data: return .data(try c.decode(Data.self))
            case .uuid: return .uuid(try c.decode(UUID.self))
            case .url: return .url(try c.decode(URL.self))
            case .decimal: return .decimal(try c.decode(Decimal.self))
            default: return .data(Data(try c.decode(String.self).utf8))
            }
        }
    }
}

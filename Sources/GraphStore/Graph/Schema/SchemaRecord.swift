@_spi(GraphStoreInternals) import GraphStoreCore

/// The schema as the store records it: the payload of a `.schema` log operation. It carries the
/// numbers the log uses for entities and properties, so a reopened store maps its data to the
/// models by name whatever order they are declared in.
///
///     u8      record version (2; version 1 lacks the version identifier)
///     string  fingerprint
///     varint  next entity number, varint next property number
///     varint  entity count, then per entity:
///       string name, varint number
///       varint attribute count, then per attribute: string name, varint number, string type, u8 options
///       varint relationship count, then per relationship: string name, varint number, string target,
///              u8 to-many, string delete rule, string inverse name (empty for none)
///     string  version identifier ("1.2.0" of a VersionedSchema; empty for none) — version 2 only
@_spi(GraphStoreInternals) public struct SchemaRecord: Equatable, Sendable {
    @_spi(GraphStoreInternals) public struct Property: Equatable, Sendable {
        @_spi(GraphStoreInternals) public var name: String
        @_spi(GraphStoreInternals) public var number: PropertyNumber
        /// For attributes the type ("String?"); for relationships the target entity name.
        @_spi(GraphStoreInternals) public var type: String
        @_spi(GraphStoreInternals) public var options: UInt8
        @_spi(GraphStoreInternals) public var isToMany: Bool
        @_spi(GraphStoreInternals) public var deleteRule: String
        @_spi(GraphStoreInternals) public var inverseName: String

        /// A property as a schema record lists it.
        @_spi(GraphStoreInternals) public init(name: String, number: PropertyNumber, type: String, options: UInt8 = 0, isToMany: Bool = false,
                    deleteRule: String = "", inverseName: String = "") {
            self.name = name
            self.number = number
            self.type = type
            self.options = options
            self.isToMany = isToMany
            self.deleteRule = deleteRule
            self.inverseName = inverseName
        }
    }

    /// An entity as a schema record lists it: its name, number and properties.
    @_spi(GraphStoreInternals) public struct EntityRecord: Equatable, Sendable {
        /// The entity's name.
        @_spi(GraphStoreInternals) public var name: String
        /// The number the log uses for the entity.
        @_spi(GraphStoreInternals) public var number: EntityNumber
        /// Its attributes.
        @_spi(GraphStoreInternals) public var attributes: [Property]
        /// Its relationships.
        @_spi(GraphStoreInternals) public var relationships: [Property]

        /// An entity record.
        @_spi(GraphStoreInternals) public init(name: String, number: EntityNumber, attributes: [Property], relationships: [Property]) {
            self.name = name
            self.number = number
            self.attributes = attributes
            self.relationships = relationships
        }
    }

    package static let version: UInt8 = 2
    /// The schema's `Schema.fingerprint` when it was recorded: a digest of what shapes stored data.
    @_spi(GraphStoreInternals) public var fingerprint: String
    /// The `VersionedSchema.versionIdentifier` the models declared ("" when none).
    @_spi(GraphStoreInternals) public var versionIdentifier: String = ""
    @_spi(GraphStoreInternals) public var nextEntityNumber: EntityNumber
    @_spi(GraphStoreInternals) public var nextPropertyNumber: PropertyNumber
    @_spi(GraphStoreInternals) public var entities: [EntityRecord]

    package init(schema: Schema) {
        fingerprint = schema.fingerprint
        versionIdentifier = schema.versionIdentifier?.description ?? ""
        nextEntityNumber = schema.nextEntityNumber
        nextPropertyNumber = schema.nextPropertyNumber
        entities = schema.entities.map { entity in
            EntityRecord(
                name: entity.name, number: entity.number,
                attributes: entity.attributes.map {
                    Property(name: $0.name, number: $0.number, type: $0.type.description, options: $0.options.recordedFlags,
                             isToMany: false, deleteRule: "", inverseName: "")
                },
                relationships: entity.relationships.map {
                    Property(name: $0.name, number: $0.number, type: $0.targetName, options: 0, isToMany: $0.isToMany,
                             deleteRule: $0.deleteRule.rawValue, inverseName: $0.inverseName ?? "")
                })
        }
    }

    package func encoded() -> [UInt8] {
        var w = ByteWriter()
        w.u8(Self.version)
        w.string(fingerprint)
        w.varint(UInt64(nextEntityNumber))
        w.varint(UInt64(nextPropertyNumber))
        w.varint(entities.count)
        for entity in entities {
            w.string(entity.name)
            w.varint(UInt64(entity.number))
            w.varint(entity.attributes.count)
            for a in entity.attributes {
                w.string(a.name)
                w.varint(UInt64(a.number))
                w.string(a.type)
                w.u8(a.options)
            }
            w.varint(entity.relationships.count)
            for r in entity.relationships {
                w.string(r.name)
                w.varint(UInt64(r.number))
                w.string(r.type)
                w.u8(r.isToMany ? 1 : 0)
                w.string(r.deleteRule)
                w.string(r.inverseName)
            }
        }
        w.string(versionIdentifier)
        return w.bytes
    }

    package init(decoding bytes: [UInt8]) throws {
        self = try bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            let version = try r.u8()
            guard version == 1 || version == Self.version else { throw r.fail("unknown schema record version \(version)") }
            let fingerprint = try r.string()
            let nextEntity = try r.varintUInt32()
            let nextProperty = try r.varintUInt32()
            var entities: [EntityRecord] = []
            for _ in 0..<(try r.count(limit: r.remaining)) {
                let name = try r.string()
                let number = try r.varintUInt32()
                var attributes: [Property] = []
                for _ in 0..<(try r.count(limit: r.remaining)) {
                    attributes.append(Property(name: try r.string(), number: try r.varintUInt32(), type: try r.string(),
                                               options: try r.u8(), isToMany: false, deleteRule: "", inverseName: ""))
                }
                var relationships: [Property] = []
                for _ in 0..<(try r.count(limit: r.remaining)) {
                    relationships.append(Property(name: try r.string(), number: try r.varintUInt32(), type: try r.string(), options: 0,
                                                  isToMany: try r.u8() != 0, deleteRule: try r.string(), inverseName: try r.string()))
                }
                entities.append(EntityRecord(name: name, number: number, attributes: attributes, relationships: relationships))
            }
            var record = SchemaRecord(fingerprint: fingerprint, nextEntityNumber: nextEntity, nextPropertyNumber: nextProperty, entities: entities)
            if version >= 2 { record.versionIdentifier = try r.string() }
            guard r.isAtEnd else { throw r.fail("stray bytes after the schema record") }
            return record
        }
        // Bytes that decode are not yet a schema: a name used twice, say, is refused here.
        try validate()
    }

    /// Whether the two record the same entities, properties and numbers (the version identifier aside).
    package func hasSameShape(as other: SchemaRecord) -> Bool {
        var a = self, b = other
        a.versionIdentifier = ""
        b.versionIdentifier = ""
        return a == b
    }

    /// A record with the given numbering and entities.
    @_spi(GraphStoreInternals) public init(fingerprint: String, nextEntityNumber: EntityNumber, nextPropertyNumber: PropertyNumber, entities: [EntityRecord]) {
        self.fingerprint = fingerprint
        self.nextEntityNumber = nextEntityNumber
        self.nextPropertyNumber = nextPropertyNumber
        self.entities = entities
    }
}

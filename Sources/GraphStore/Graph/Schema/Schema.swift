import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// The resolved schema of a container: every entity with its attributes and relationships,
/// inverses paired, and the numbers the store's log uses for each. Immutable once built.
public final class Schema: Sendable {
    /// Every entity, in the order the schema numbers them.
    public let entities: [Schema.Entity]
    private let byName: [String: Int]
    private let byType: [ObjectIdentifier: Int]
    /// Each entity's model type identity, by position, for a schema small enough to scan: every
    /// fetch and insert asks for its type's entity, and comparing a few identities costs less
    /// than hashing one.
    private let typeIdentifiers: [ObjectIdentifier?]
    private static let scannedEntityLimit = 16
    /// Numbers the store has used, so removed properties' numbers are never reused.
    package let nextEntityNumber: EntityNumber
    package let nextPropertyNumber: PropertyNumber
    /// The declaring `VersionedSchema`'s version, when the models came with a migration plan.
    public let versionIdentifier: Version?
    /// Positions by the numbers the log uses: what applying, summarising and decoding every
    /// stored operation looks up.
    package let entityIndexByNumber: NumberIndex<Int>
    package let attributeByNumber: NumberIndex<(entity: Int, index: Int)>
    package let relationshipByNumber: NumberIndex<(entity: Int, index: Int)>
    /// `writesLinks` by entity and relationship position, worked out once (a save asks it for
    /// every link it encodes).
    private let linkWriters: [[Bool]]
    /// Each relationship's name as a one-element set, by entity and relationship position: a
    /// commit's change summary notes one per link (an import links every row it inserts).
    package let relationshipNameSets: [[Set<String>]]

    /// Why the models could not be made a schema, for a `Schema` made without throwing
    /// (SwiftData's `Schema([Trip.self])`): the container made from it throws this.
    package let failure: (any Error)?
    /// The names of the entities of the types the schema was made of (the others came along
    /// through relationships): what a configuration with this schema stores for certain.
    package let declaredEntityNames: Set<String>

    package init(entities: [Schema.Entity], nextEntityNumber: EntityNumber, nextPropertyNumber: PropertyNumber, versionIdentifier: Version? = nil,
         failure: (any Error)? = nil, declaredEntityNames: Set<String>? = nil) {
        self.failure = failure
        self.declaredEntityNames = declaredEntityNames ?? Set(entities.map(\.name))
        self.versionIdentifier = versionIdentifier
        self.entities = entities
        entityIndexByNumber = NumberIndex(entities.map { ($0.number, $0.index) })
        attributeByNumber = NumberIndex(entities.flatMap { e in e.attributes.map { ($0.number, (e.index, $0.index)) } })
        relationshipByNumber = NumberIndex(entities.flatMap { e in e.relationships.map { ($0.number, (e.index, $0.index)) } })
        self.byName = Dictionary(uniqueKeysWithValues: entities.enumerated().map { ($1.name, $0) })
        self.byType = Dictionary(uniqueKeysWithValues: entities.enumerated().compactMap { i, e in e.declaredType.map { (ObjectIdentifier($0), i) } })
        typeIdentifiers = entities.count <= Self.scannedEntityLimit ? entities.map { $0.declaredType.map(ObjectIdentifier.init) } : []
        self.nextEntityNumber = nextEntityNumber
        self.nextPropertyNumber = nextPropertyNumber
        linkWriters = entities.map { entity in
            entity.relationships.map { relationship in
                guard let inverse = relationship.inverse else { return true }
                let other = entities[inverse.entity].relationships[inverse.relationship]
                if relationship.isToMany != other.isToMany { return relationship.isToMany }
                return relationship.number <= other.number
            }
        }
        relationshipNameSets = entities.map { $0.relationships.map { [$0.name] } }
    }

    /// The entity named `name`, if the schema has one.
    public func entity(named name: String) -> Schema.Entity? { byName[name].map { entities[$0] } }

    /// The entity of the model type with this identity (`ObjectIdentifier(Trip.self)`).
    package func entity(forTypeIdentifier identifier: ObjectIdentifier) -> Schema.Entity? {
        guard entities.count <= Self.scannedEntityLimit else { return byType[identifier].map { entities[$0] } }
        for index in typeIdentifiers.indices where typeIdentifiers[index] == identifier { return entities[index] }
        return nil
    }

    /// A digest of everything that shapes stored data (names, types, options, relationships),
    /// recorded in the store to tell at open whether the models changed.
    public var fingerprint: String {
        var hash: UInt64 = 0xCBF2_9CE4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 {
                hash ^= UInt64(byte)
                hash &*= 0x100_0000_01B3
            }
            hash ^= 0xFF
            hash &*= 0x100_0000_01B3
        }
        for entity in entities.sorted(by: { $0.name < $1.name }) {
            mix("entity \(entity.name)")
            for a in entity.attributes.sorted(by: { $0.name < $1.name }) { mix("attribute \(a.name) \(a.type) \(a.options.recordedFlags)") }
            for r in entity.relationships.sorted(by: { $0.name < $1.name }) {
                mix("relationship \(r.name) \(r.targetName) \(r.isToMany) \(r.deleteRule) \(r.inverseName ?? "-") \(r.minimumCount ?? -1) \(r.maximumCount ?? -1)")
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }
}

extension Schema {
    /// A schema version, as SwiftData spells it: `Schema.Version(1, 2, 0)`.
    public struct Version: Comparable, Hashable, Sendable, CustomStringConvertible {
        /// Incremented for changes that need a migration.
        public var major: Int
        /// Incremented for additions.
        public var minor: Int
        /// Incremented for fixes.
        public var patch: Int

        /// The version `major.minor.patch`.
        public init(_ major: Int, _ minor: Int, _ patch: Int) {
            self.major = major
            self.minor = minor
            self.patch = patch
        }

        /// By major, then minor, then patch.
        public static func < (a: Version, b: Version) -> Bool { (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch) }
        /// `major.minor.patch`.
        public var description: String { "\(major).\(minor).\(patch)" }
    }

    /// The relationship on the other side of `relationship`, when it has one.
    public func inverse(of relationship: Relationship) -> Relationship? {
        relationship.inverse.map { entities[$0.entity].relationships[$0.relationship] }
    }

    /// Whether links of `relationship` are written from its side. Each pair is written from one
    /// side only (the graph keeps the other in step): the to-many side when there is one, so the
    /// order of a to-many is the order of its links; otherwise the side with the lower number.
    package func writesLinks(_ relationship: Relationship) -> Bool {
        linkWriters[relationship.entityIndex][relationship.index]
    }
}

extension Schema {
    /// A stored attribute of an entity. A class, immutable: every save, fetch and key path
    /// lookup passes attribute descriptions around, and copying one as a struct retained each of
    /// its strings and values; a reference is one retain. Equal by value.
    public final class Attribute: Sendable, Hashable {
        /// The property's name in the model class.
        public let name: String
        /// Position among the entity's attributes (declaration order).
        public let index: Int
        /// The number the log uses for this attribute.
        @_spi(GraphStoreInternals) public let number: PropertyNumber
        /// Its stored type, and whether it may be nil.
        public let type: AttributeType
        /// The options it was declared with (`@Attribute(.unique)`).
        public let options: AttributeOptions
        /// The name it had in an earlier version of the model (`originalName:`), for lightweight migration.
        public let originalName: String?
        /// The value a row stored before the attribute existed takes: the declared initial value.
        public let defaultValue: Value

        /// Whether each value belongs to one object at most (`.unique`, with upsert).
        public var isUnique: Bool { options.contains(.unique) }
        /// Whether the attribute has hash and sorted indexes (`.indexed`).
        public var isIndexed: Bool { options.contains(.indexed) }
        /// Never saved: its value lives in the object (`AttributeOptions.ephemeral`).
        public var isEphemeral: Bool { options.contains(.ephemeral) }

        package init(name: String, index: Int, number: PropertyNumber, type: AttributeType, options: AttributeOptions,
             originalName: String?, defaultValue: Value) {
            self.name = name
            self.index = index
            self.number = number
            self.type = type
            self.options = options
            self.originalName = originalName
            self.defaultValue = defaultValue
        }

        /// Equal when every part of the description is.
        public static func == (a: Attribute, b: Attribute) -> Bool {
            a === b || (a.name == b.name && a.index == b.index && a.number == b.number && a.type == b.type && a.options == b.options
                        && a.originalName == b.originalName && a.defaultValue == b.defaultValue)
        }

        /// Hashes every part of the description.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(index)
            hasher.combine(number)
            hasher.combine(type)
            hasher.combine(options)
            hasher.combine(originalName)
            hasher.combine(defaultValue)
        }
    }

    /// A relationship of an entity. A class for the same reason as `Attribute`; equal by value.
    public final class Relationship: Sendable, Hashable {
        /// The property's name in the model class.
        public let name: String
        /// Position among the entity's relationships (declaration order).
        public let index: Int
        /// The number the log uses for this relationship.
        @_spi(GraphStoreInternals) public let number: PropertyNumber
        /// Position of the owning entity and of the target entity in the schema.
        public let entityIndex: Int
        /// The target entity's position in `Schema.entities`.
        public let targetIndex: Int
        /// The target entity's name.
        public let targetName: String
        /// Whether the relationship holds an array of models.
        public let isToMany: Bool
        /// What deleting the owning object does to the related ones.
        public let deleteRule: DeleteRule
        /// The other side, as (entity position, relationship position), when there is one.
        public let inverse: RelationshipReference?
        /// The name of the relationship on the other side, when it has one.
        public let inverseName: String?
        /// The fewest related models a save accepts (`minimumModelCount`), if limited.
        public let minimumCount: Int?
        /// The most related models a save accepts (`maximumModelCount`), if limited.
        public let maximumCount: Int?
        /// The name it had in an earlier version of the model, for lightweight migration.
        public let originalName: String?

        package init(name: String, index: Int, number: PropertyNumber, entityIndex: Int, targetIndex: Int, targetName: String,
             isToMany: Bool, deleteRule: DeleteRule, inverse: RelationshipReference?, inverseName: String?,
             minimumCount: Int?, maximumCount: Int?, originalName: String?) {
            self.name = name
            self.index = index
            self.number = number
            self.entityIndex = entityIndex
            self.targetIndex = targetIndex
            self.targetName = targetName
            self.isToMany = isToMany
            self.deleteRule = deleteRule
            self.inverse = inverse
            self.inverseName = inverseName
            self.minimumCount = minimumCount
            self.maximumCount = maximumCount
            self.originalName = originalName
        }

        /// Equal when every part of the description is.
        public static func == (a: Relationship, b: Relationship) -> Bool {
            a === b || (a.name == b.name && a.index == b.index && a.number == b.number && a.entityIndex == b.entityIndex
                        && a.targetIndex == b.targetIndex && a.targetName == b.targetName && a.isToMany == b.isToMany
                        && a.deleteRule == b.deleteRule && a.inverse == b.inverse && a.inverseName == b.inverseName
                        && a.minimumCount == b.minimumCount && a.maximumCount == b.maximumCount && a.originalName == b.originalName)
        }

        /// Hashes the parts that identify the relationship.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(name)
            hasher.combine(index)
            hasher.combine(number)
            hasher.combine(entityIndex)
            hasher.combine(targetIndex)
            hasher.combine(isToMany)
            hasher.combine(deleteRule)
            hasher.combine(inverse)
        }
    }


    /// A persistent property a key path can name.

    /// One model type in the schema.
    public final class Entity: @unchecked Sendable {
        // Immutable after init except the key path cache, which is guarded by its mutex.
        /// The model class's name.
        public let name: String
        /// Position in `Schema.entities`.
        public let index: Int
        /// The number the log uses for this entity.
        @_spi(GraphStoreInternals) public let number: EntityNumber
        /// The model class (a `PersistentModel` type); nil in a schema read back from a store
        /// without its models (`Schema(record:)`). The layers that know models read it as `type`.
        package let declaredType: Any.Type?
        /// The stored attributes, in declaration order.
        public let attributes: [Schema.Attribute]
        /// The unique attributes (kept: every insert and save walks them).
        public let uniqueAttributes: [Schema.Attribute]
        /// By position, whether an attribute is unique: what a context checks on every value set,
        /// without copying an attribute's description (its names are reference counted).
        package let isUniqueAttribute: [Bool]
        /// The positions of the attributes that are never saved.
        package let ephemeralAttributes: [Int]
        /// Indexes over several properties (`Schema.Unique`, `Schema.Index`).
        public let compoundIndexes: [CompoundIndex]
        /// The unique ones among them.
        package let compoundUniques: [CompoundIndex]
        /// Each attribute's log number, by position (a save encodes one per changed value).
        package let attributeNumbers: [PropertyNumber]
        /// The relationships, in declaration order.
        public let relationships: [Schema.Relationship]
        /// The name the class had in an earlier version of the models, for lightweight migration.
        public let originalName: String?
        private let attributeByName: [String: Int]
        private let relationshipByName: [String: Int]
        private let propertyNamer: (AnyKeyPath) -> String?
        private let cacheLock = NSLock()
        /// Answers by key path equality, nil ones (computed properties) included.
        private var keyPathCache: [AnyKeyPath: PropertyReference?] = [:]
        /// The same answers by key path identity (the compiler passes one object per key path
        /// literal, and comparing identity is far cheaper than hashing a key path: hashing was a
        /// tenth of a small fetch). Each entry keeps its key path alive, so an identity is never
        /// reused while it is a key here.
        private var keyPathIdentityCache: [ObjectIdentifier: (keyPath: AnyKeyPath, property: PropertyReference?)] = [:]

        package init(name: String, index: Int, number: EntityNumber, type: Any.Type?, attributes: [Schema.Attribute],
             relationships: [Schema.Relationship], originalName: String?, compoundIndexes: [CompoundIndex] = [],
             propertyNamer: @escaping (AnyKeyPath) -> String?) {
            self.compoundIndexes = compoundIndexes
            self.compoundUniques = compoundIndexes.filter(\.isUnique)
            self.name = name
            self.index = index
            self.number = number
            self.declaredType = type
            self.attributes = attributes
            self.uniqueAttributes = attributes.filter(\.isUnique)
            self.isUniqueAttribute = attributes.map(\.isUnique)
            self.ephemeralAttributes = attributes.filter(\.isEphemeral).map(\.index)
            self.attributeNumbers = attributes.map(\.number)
            self.relationships = relationships
            self.originalName = originalName
            self.propertyNamer = propertyNamer
            attributeByName = Dictionary(uniqueKeysWithValues: attributes.map { ($0.name, $0.index) })
            relationshipByName = Dictionary(uniqueKeysWithValues: relationships.map { ($0.name, $0.index) })
        }

        /// The attribute named `name`, if the entity has one.
        public func attribute(named name: String) -> Schema.Attribute? { attributeByName[name].map { attributes[$0] } }
        /// The relationship named `name`, if the entity has one.
        public func relationship(named name: String) -> Schema.Relationship? { relationshipByName[name].map { relationships[$0] } }

        /// The attribute or relationship named `name`.
        public func property(named name: String) -> PropertyReference? {
            if let a = attribute(named: name) { return .attribute(a) }
            if let r = relationship(named: name) { return .relationship(r) }
            return nil
        }

        /// The persistent property `keyPath` reads (`\Flight.routeDistance` → the routeDistance
        /// attribute), or nil when it reads something else (a computed or transient property).
        public func property(for keyPath: AnyKeyPath) -> PropertyReference? {
            let identity = ObjectIdentifier(keyPath)
            let known: PropertyReference?? = cacheLock.withLock {
                if let entry = keyPathIdentityCache[identity] { return .some(entry.property) }
                // An equal key path from another literal: answer, and remember this object too.
                guard let property = keyPathCache[keyPath] else { return .none }
                if keyPathIdentityCache.count < 4_096 { keyPathIdentityCache[identity] = (keyPath, property) }
                return .some(property)
            }
            if let known { return known }
            var property: PropertyReference?
            if let name = propertyNamer(keyPath) { property = self.property(named: name) }
            cacheLock.withLock {
                if keyPathCache.count < 4_096 { keyPathCache[keyPath] = property }
                if keyPathIdentityCache.count < 4_096 { keyPathIdentityCache[identity] = (keyPath, property) }
            }
            return property
        }
    }
}

/// A relationship by position: its entity's in `Schema.entities`, its own among the entity's relationships.
public struct RelationshipReference: Sendable, Hashable {
    /// The entity's position.
    public let entity: Int
    /// The relationship's position in the entity.
    public let relationship: Int

    package init(entity: Int, relationship: Int) {
        self.entity = entity
        self.relationship = relationship
    }
}

/// A persistent property of an entity: an attribute or a relationship.
public enum PropertyReference: Sendable, Hashable {
    /// A stored attribute.
    case attribute(Schema.Attribute)
    /// A relationship.
    case relationship(Schema.Relationship)

    /// The property's name.
    public var name: String {
        switch self {
        case let .attribute(a): return a.name
        case let .relationship(r): return r.name
        }
    }
}

extension Schema {
    /// An index over several properties of one entity (`Schema.Unique`, `Schema.Index`). Its key
    /// is the members' values, a to-one relationship counting as its target's row (a nil
    /// target, or a nil attribute, leaves a row out of a unique one's claims).
    public struct CompoundIndex: Sendable, Hashable, CustomStringConvertible {
        /// One property of a compound index.
        public enum Member: Sendable, Hashable {
            /// An attribute, by its position in the entity.
            case attribute(Int)
            /// A to-one relationship, by its position; its key is the target's row.
            case toOne(Int)
        }

        /// Its position among the entity's compound indexes.
        public let index: Int
        /// The properties, in the order declared.
        public let members: [Member]
        /// Whether it is a `Schema.Unique` (one object per key) rather than a `Schema.Index`.
        public let isUnique: Bool
        /// The members' property names, in order.
        public let memberNames: [String]

        /// The members' names, comma-separated.
        public var description: String { memberNames.joined(separator: ", ") }

        package init(index: Int, members: [Member], isUnique: Bool, memberNames: [String]) {
            self.index = index
            self.members = members
            self.isUnique = isUnique
            self.memberNames = memberNames
        }
    }
}

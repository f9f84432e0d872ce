import GraphStoreCore

/// What to do with related objects when an object is deleted (SwiftData's `Schema.Relationship.DeleteRule`).
public enum DeleteRule: String, Sendable, Codable, CaseIterable {
    /// Remove the deleted object from the related objects' inverse (the default).
    case nullify
    /// Delete the related objects too.
    case cascade
    /// Refuse the delete (save throws) while any related object remains.
    case deny
    /// Leave the related objects as they are.
    case noAction
}

/// Schema.Attribute options, as SwiftData spells them, plus `.indexed`.
///
/// The low byte holds flags; the schema record keeps those that shape stored data
/// (`recordedFlags`). A transformable attribute's transformer is kept by number above them
/// (`ValueTransformers`), for the life of the process.
public struct AttributeOptions: OptionSet, Hashable, Sendable {
    public let rawValue: UInt32
    @inlinable public init(rawValue: UInt32) { self.rawValue = rawValue }

    // Computed and inlinable, not stored: every object made evaluates its wrappers' options
    // (`@Attribute(.unique)`), and a stored static is a one-time-initialisation check each time.
    /// One object per value: inserting another with the same value updates the existing one (upsert).
    @inlinable public static var unique: AttributeOptions { AttributeOptions(rawValue: 1 << 0) }
    /// Kept in a hash index and a sorted index, for equality, IN, ranges and order.
    @inlinable public static var indexed: AttributeOptions { AttributeOptions(rawValue: 1 << 1) }
    /// Data kept in a blob file beside the log rather than inline.
    @inlinable public static var externalStorage: AttributeOptions { AttributeOptions(rawValue: 1 << 2) }
    /// Its value at deletion is kept in history, in the delete's tombstone (`HistoryTombstone`).
    @inlinable public static var preserveValueOnDeletion: AttributeOptions { AttributeOptions(rawValue: 1 << 3) }
    /// Observed like any attribute but never saved: its value lives in the object, and every
    /// other context, and every later open, sees the initial value.
    @inlinable public static var ephemeral: AttributeOptions { AttributeOptions(rawValue: 1 << 4) }
    /// Accepted for source compatibility; Spotlight indexing does not exist here, so it has no effect.
    @inlinable public static var spotlight: AttributeOptions { AttributeOptions(rawValue: 1 << 5) }
    /// Accepted for source compatibility; there is no CloudKit here, so it has no effect.
    @inlinable public static var allowsCloudEncryption: AttributeOptions { AttributeOptions(rawValue: 1 << 6) }
    /// Stored as the `Data` a `ValueTransformer` turns the value into (set by `transformable(by:)`).
    @inlinable public static var transformable: AttributeOptions { AttributeOptions(rawValue: 1 << 7) }

    /// Stores the value as the `Data` that `transformer` makes of it, and reads it back with the
    /// transformer's reverse transformation.
    public static func transformable(by transformer: ValueTransformer.Type) -> AttributeOptions {
        AttributeOptions(rawValue: AttributeOptions.transformable.rawValue | ValueTransformers.number(for: .type(transformer)) << 8)
    }

    /// The same with the transformer registered under `name` (`ValueTransformer.setValueTransformer`).
    public static func transformable(by transformerName: String) -> AttributeOptions {
        AttributeOptions(rawValue: AttributeOptions.transformable.rawValue | ValueTransformers.number(for: .named(transformerName)) << 8)
    }

    /// The flags the schema record keeps: those that say how values are stored.
    public var recordedFlags: UInt8 {
        UInt8(truncatingIfNeeded: rawValue) & ~UInt8(truncatingIfNeeded: AttributeOptions.spotlight.rawValue | AttributeOptions.allowsCloudEncryption.rawValue)
    }

    /// Whether the transformer is given as a type (not by a registered name).
    var transformerIsAType: Bool { rawValue >> 8 != 0 && ValueTransformers.isType(number: rawValue >> 8) }

    /// The transformer of a transformable attribute (nil if it names none, or one not registered).
    public var transformer: ValueTransformer? {
        rawValue >> 8 == 0 ? nil : ValueTransformers.transformer(number: rawValue >> 8)
    }
}

/// An attribute as a model type declares it; the declaring layer (GraphStoreMacrosFree) produces these.
public struct AttributeDeclaration: Sendable {
    public var name: String
    public var type: AttributeType
    public var options: AttributeOptions
    public var originalName: String?
    /// The value a new object starts with (the property's initial value).
    public var defaultValue: Value

    public init(name: String, type: AttributeType, options: AttributeOptions, originalName: String?, defaultValue: Value) {
        self.name = name
        self.type = type
        self.options = options
        self.originalName = originalName
        self.defaultValue = defaultValue
    }
}

/// A relationship as a model type declares it.
public struct RelationshipDeclaration: @unchecked Sendable {
    public var name: String
    public var target: any PersistentModel.Type
    public var isToMany: Bool
    public var deleteRule: DeleteRule
    /// The other side, as a key path on `target`, when declared.
    public var inverse: AnyKeyPath?
    public var minimumCount: Int?
    public var maximumCount: Int?
    public var originalName: String?

    public init(name: String, target: any PersistentModel.Type, isToMany: Bool, deleteRule: DeleteRule, inverse: AnyKeyPath?,
                minimumCount: Int?, maximumCount: Int?, originalName: String?) {
        self.name = name
        self.target = target
        self.isToMany = isToMany
        self.deleteRule = deleteRule
        self.inverse = inverse
        self.minimumCount = minimumCount
        self.maximumCount = maximumCount
        self.originalName = originalName
    }
}

/// An entity as a model type declares it, with a way to name the property a key path reads.
public struct EntityDeclaration: @unchecked Sendable {
    public var name: String
    public var originalName: String?
    public var type: any PersistentModel.Type
    public var attributes: [AttributeDeclaration]
    public var relationships: [RelationshipDeclaration]
    /// The persistent property a key path on this type reads, by name; nil for anything else.
    public var propertyName: (AnyKeyPath) -> String?
    /// Uniqueness and indexes over several properties (`Schema.Unique`, `Schema.Index`).
    public var constraints: [any SchemaConstraint]

    public init(name: String, originalName: String? = nil, type: any PersistentModel.Type, attributes: [AttributeDeclaration],
                relationships: [RelationshipDeclaration], constraints: [any SchemaConstraint] = [],
                propertyName: @escaping (AnyKeyPath) -> String?) {
        self.constraints = constraints
        self.name = name
        self.originalName = originalName
        self.type = type
        self.attributes = attributes
        self.relationships = relationships
        self.propertyName = propertyName
    }
}

/// A uniqueness or index declaration of a model class over one or more of its properties:
/// SwiftData's `#Unique` and `#Index`, without macros. A model class lists its own:
///
///     final class Trip: Model {
///         override class var constraints: [any SchemaConstraint] {
///             [Schema.Unique<Trip>([\.name, \.startDate, \.endDate]),
///              Schema.Index<Trip>([\.name], [\.startDate, \.endDate])]
///         }
///     }
///
/// Each key-path list is one constraint; its members are attributes or to-one relationships.
public protocol SchemaConstraint {
    /// Whether no two objects may share the values of a list (an insert that does takes the
    /// existing object's place, as with `@Attribute(.unique)`).
    var isUnique: Bool { get }
    /// The constrained property lists.
    var keyPaths: [[AnyKeyPath]] { get }
}

extension Schema {
    /// `#Unique<Model>([\.a, \.b], [\.c])`: no two objects share the values of any one list.
    public struct Unique<Model: PersistentModel>: SchemaConstraint {
        public let keyPaths: [[AnyKeyPath]]
        public var isUnique: Bool { true }
        public init(_ keyPaths: [PartialKeyPath<Model>]...) { self.keyPaths = keyPaths.map { $0.map { $0 as AnyKeyPath } } }
    }

    /// `#Index<Model>([\.a], [\.b, \.c])`: each list is kept in an index, which fetches whose
    /// predicates compare every member of a list for equality use.
    public struct Index<Model: PersistentModel>: SchemaConstraint {
        public let keyPaths: [[AnyKeyPath]]
        public var isUnique: Bool { false }
        public init(_ keyPaths: [PartialKeyPath<Model>]...) { self.keyPaths = keyPaths.map { $0.map { $0 as AnyKeyPath } } }
    }
}


/// An attribute as a model type declares it; the declaring layer (GraphStoreMacrosFree) produces these.
public struct AttributeDeclaration: Sendable {
    /// The property's name.
    public var name: String
    /// The stored type: its kind and whether it is optional.
    public var type: AttributeType
    /// `.unique`, `.indexed`, `.externalStorage` and the others.
    public var options: AttributeOptions
    /// The name the attribute had in stores written before it was renamed.
    public var originalName: String?
    /// The value a new object starts with (the property's initial value).
    public var defaultValue: Value

    /// An attribute declaration.
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
    /// The property's name.
    public var name: String
    /// The model type it points at.
    public var target: any PersistentModel.Type
    /// Whether it holds several targets (`[Flight]`) rather than one (`Airport?`).
    public var isToMany: Bool
    /// What deleting the source does to the targets.
    public var deleteRule: DeleteRule
    /// The other side, as a key path on `target`, when declared.
    public var inverse: AnyKeyPath?
    /// The fewest targets a to-many may have at save (nil: no bound).
    public var minimumCount: Int?
    /// The most targets a to-many may have at save (nil: no bound).
    public var maximumCount: Int?
    /// The name the relationship had in stores written before it was renamed.
    public var originalName: String?

    /// A relationship declaration.
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
    /// The entity's name: the class name, unless renamed.
    public var name: String
    /// The name the entity had in stores written before the class was renamed.
    public var originalName: String?
    /// The model class.
    public var type: any PersistentModel.Type
    /// The stored attributes, in declaration order.
    public var attributes: [AttributeDeclaration]
    /// The relationships, in declaration order.
    public var relationships: [RelationshipDeclaration]
    /// The persistent property a key path on this type reads, by name; nil for anything else.
    public var propertyName: (AnyKeyPath) -> String?
    /// Uniqueness and indexes over several properties (`Schema.Unique`, `Schema.Index`).
    public var constraints: [any SchemaConstraint]

    /// An entity declaration.
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
        /// The constrained lists of key paths.
        public let keyPaths: [[AnyKeyPath]]
        /// Always true: no two objects may share a list's values.
        public var isUnique: Bool { true }
        /// One uniqueness constraint per key-path list: `Schema.Unique<Trip>([\.name, \.startDate])`.
        public init(_ keyPaths: [PartialKeyPath<Model>]...) { self.keyPaths = keyPaths.map { $0.map { $0 as AnyKeyPath } } }
    }

    /// `#Index<Model>([\.a], [\.b, \.c])`: each list is kept in an index, which fetches whose
    /// predicates compare every member of a list for equality use.
    public struct Index<Model: PersistentModel>: SchemaConstraint {
        /// The indexed lists of key paths.
        public let keyPaths: [[AnyKeyPath]]
        /// Always false: objects may share a list's values.
        public var isUnique: Bool { false }
        /// One index per key-path list: `Schema.Index<Trip>([\.name], [\.startDate, \.endDate])`.
        public init(_ keyPaths: [PartialKeyPath<Model>]...) { self.keyPaths = keyPaths.map { $0.map { $0 as AnyKeyPath } } }
    }
}

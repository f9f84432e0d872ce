import GraphStoreCore
import GraphStoreGraph

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

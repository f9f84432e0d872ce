/// A model declaration GraphStore cannot store, found when the container is created. Each case
/// names the class and the property.
public enum SchemaError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A property of a type GraphStore cannot store.
    case unsupportedType(entity: String, property: String, type: String)
    /// A relationship with no declared inverse and more than one relationship that could be it.
    case ambiguousInverse(entity: String, relationship: String, candidates: [String])
    /// A declared inverse that does not point back, or starts at another type.
    case invalidInverse(entity: String, relationship: String, reason: String)
    /// Two model classes with one name.
    case duplicateEntity(name: String)
    /// A model class with no stored attribute and no relationship.
    case noPersistentProperties(entity: String)
    /// A key path (in a predicate, a sort or a constraint) that names no persistent property.
    case unknownKeyPath(entity: String, keyPath: String)
    /// The store's recorded schema and the declared one differ in a way that needs a migration.
    case incompatible(differences: [String])
    /// A schema record in the store cannot be turned back into a schema (a tool opening a store without its models).
    case unreadableRecord(reason: String)
    /// A container with several configurations: a relationship between models that live in
    /// different stores (each store is a graph of its own).
    case crossStoreRelationship(entity: String, relationship: String, target: String, stores: [String])
    /// A container with several configurations: a model no configuration stores, or one that two name.
    case notInOneConfiguration(entity: String, configurations: [String])
    /// A stored property declared with no `@Attribute`, `@Relationship` or `@Transient`: its
    /// value would never be saved.
    case unstoredProperty(entity: String, property: String)
    /// A `Schema.Unique` or `Schema.Index` list that names something other than the entity's
    /// attributes and to-one relationships.
    case invalidConstraint(entity: String, reason: String)
    /// `@Attribute` on a property holding model objects, which would store a copy of them
    /// rather than relate to them.
    case modelAsAttribute(entity: String, property: String, model: String)

    /// What is wrong, naming the class and the property.
    public var description: String {
        switch self {
        case let .unsupportedType(entity, property, type):
            return "\(entity).\(property): type \(type) is not storable (use a Storable, RawRepresentable or Codable type, or mark it @Transient)"
        case let .ambiguousInverse(entity, relationship, candidates):
            return "\(entity).\(relationship): the inverse is ambiguous (\(candidates.joined(separator: ", "))); declare it with inverse:"
        case let .invalidInverse(entity, relationship, reason):
            return "\(entity).\(relationship): invalid inverse: \(reason)"
        case let .duplicateEntity(name):
            return "two model types are named \(name)"
        case let .noPersistentProperties(entity):
            return "\(entity) declares no persistent properties"
        case let .unknownKeyPath(entity, keyPath):
            return "\(keyPath) is not a persistent property of \(entity)"
        case let .incompatible(differences):
            return "the store's schema differs from the models' and needs a migration:\n" + differences.map { "  - \($0)" }.joined(separator: "\n")
        case let .unreadableRecord(reason):
            return "the store's schema record cannot be read: \(reason)"
        case let .crossStoreRelationship(entity, relationship, target, stores):
            return "\(entity).\(relationship) relates \(entity) (in store \(stores[0])) to \(target) (in store \(stores[1])): "
                + "a relationship cannot cross stores; put both models in one configuration"
        case let .unstoredProperty(entity, property):
            return "\(entity).\(property) is a stored property with no @Attribute, @Relationship or @Transient: "
                + "it would never be saved; declare which it is"
        case let .invalidConstraint(entity, reason):
            return "\(entity): invalid Schema.Unique or Schema.Index: \(reason)"
        case let .modelAsAttribute(entity, property, model):
            return "\(entity).\(property) holds \(model) model objects but is declared @Attribute, which would store a copy of them: "
                + "declare it @Relationship"
        case let .notInOneConfiguration(entity, configurations):
            return configurations.isEmpty ? "\(entity) is in no configuration's schema, and every configuration names its models"
                : "\(entity) is in the schemas of several configurations (\(configurations.joined(separator: ", "))): each model lives in one store"
        }
    }
}

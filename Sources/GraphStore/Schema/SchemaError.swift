/// A model declaration GraphStore cannot store, found when the container is created. Each case
/// names the class and the property.
public enum SchemaError: Error, Equatable, Sendable, CustomStringConvertible {
    case unsupportedType(entity: String, property: String, type: String)
    case ambiguousInverse(entity: String, relationship: String, candidates: [String])
    case invalidInverse(entity: String, relationship: String, reason: String)
    case duplicateEntity(name: String)
    case noPersistentProperties(entity: String)
    case unknownKeyPath(entity: String, keyPath: String)
    /// The store's recorded schema and the declared one differ in a way that needs a migration.
    case incompatible(differences: [String])
    /// A schema record in the store cannot be turned back into a schema (a tool opening a store without its models).
    case unreadableRecord(reason: String)

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
        }
    }
}

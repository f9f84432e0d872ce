
/// What `ModelContext.model(for:)` returns for an identifier whose entity the context's schema
/// does not have (an identifier from another container): an object with no properties, in no
/// context, deleted.
final class UnknownEntityModel: ModelBacking, PersistentModel {
    var persistentBacking: ModelBacking { self }

    required override init() { super.init() }

    static func entityDeclaration() throws -> EntityDeclaration {
        throw SchemaError.noPersistentProperties(entity: "\(Self.self)")
    }

    func persistentPropertyDidChange(named name: String) {}

    static func == (lhs: UnknownEntityModel, rhs: UnknownEntityModel) -> Bool { lhs === rhs }
    func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

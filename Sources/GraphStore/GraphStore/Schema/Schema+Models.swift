
/// SwiftData's ways of naming a schema by its model types.
extension Schema {
    /// The schema of `types` and every model they relate to: `Schema([Trip.self, Person.self])`.
    /// It never throws, as SwiftData's does not: a model that cannot be stored makes the
    /// container created from this schema throw the reason.
    public convenience init(_ types: [any PersistentModel.Type], version: Schema.Version? = nil) {
        do {
            let built = try SchemaBuilder.build(types: types, version: version)
            let declared = Set(types.compactMap { built.entity(for: $0)?.name })
            self.init(entities: built.entities, nextEntityNumber: built.nextEntityNumber,
                      nextPropertyNumber: built.nextPropertyNumber, versionIdentifier: version, declaredEntityNames: declared)
        } catch {
            self.init(entities: [], nextEntityNumber: 1, nextPropertyNumber: 1, versionIdentifier: version,
                      failure: error)
        }
    }

    /// The schema of `types` and every model they reach through relationships (Xcode's template
    /// builds one to pass to `ModelContainer`).
    public convenience init(_ types: any PersistentModel.Type..., version: Schema.Version? = nil) {
        self.init(types, version: version)
    }

    /// The models of one version of a migration plan, with its version identifier.
    public convenience init(versionedSchema: any VersionedSchema.Type) {
        self.init(versionedSchema.models, version: versionedSchema.versionIdentifier)
    }

    /// The entity `type` is stored as, if it is in this schema.
    public func entity(for type: any PersistentModel.Type) -> Schema.Entity? { entity(forTypeIdentifier: ObjectIdentifier(type)) }

    /// The model types, in entity order (empty for a schema read from a store without its models).
    public var types: [any PersistentModel.Type] { entities.compactMap(\.type) }

    /// The schema, or the reason it could not be built.
    func checked() throws -> Schema {
        if let failure { throw failure }
        return self
    }
}

extension Schema.Entity {
    /// The model class; nil in a schema read back from a store without its models (`Schema(record:)`).
    public var type: (any PersistentModel.Type)? { declaredType as? any PersistentModel.Type }
}

/// Lookups by unique value in O(1): the graph's unique index for committed rows, and this
/// context's map of unsaved inserts. Importers use `findOrInsert` to upsert without fetching.
extension ModelContext {
    /// The object whose unique attribute `keyPath` equals `value`: an unsaved insert of this
    /// context, else a committed row (unless this context deleted it). Throws when `keyPath` is
    /// not a unique attribute of `T`.
    public func fetchUnique<T: PersistentModel, V: Storable>(_ keyPath: KeyPath<T, V>, equals value: V) throws -> T? {
        let (entity, attribute) = try uniqueAttribute(keyPath, of: T.self)
        let stored = value.storedValue
        if let pending = pendingUnique[entity.index]?[attribute.index]?[stored] as? T { return pending }
        guard let row = graph.read({ $0.row(entity: entity.index, uniqueAttribute: attribute.index, value: stored) }) else { return nil }
        let model = object(entity: entity.index, row: row)
        guard model.persistentBacking.state != .deleted else { return nil }
        // An unsaved change may have given this object another value.
        if let changed = model.persistentBacking.attributeChanges[attribute.index], changed != stored { return nil }
        return model as? T
    }

    /// The object whose unique attribute equals `value`, or a new one from `create` (inserted
    /// into this context). O(1) either way.
    public func findOrInsert<T: PersistentModel, V: Storable>(_ keyPath: KeyPath<T, V>, equals value: V, create: () -> T) throws -> T {
        if let existing = try fetchUnique(keyPath, equals: value) { return existing }
        let model = create()
        insert(model)
        return model
    }

    private func uniqueAttribute<T: PersistentModel>(_ keyPath: AnyKeyPath, of type: T.Type = T.self) throws -> (Schema.Entity, Schema.Attribute) {
        guard let entity = schema.entity(for: T.self) else { throw ModelContextError.typeNotInSchema("\(T.self)") }
        guard case let .attribute(attribute)? = entity.property(for: keyPath), attribute.isUnique else {
            throw ModelContextError.notUnique(entity: entity.name, keyPath: "\(keyPath)")
        }
        return (entity, attribute)
    }
}

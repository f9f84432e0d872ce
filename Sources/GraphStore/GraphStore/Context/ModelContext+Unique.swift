@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// Lookups by unique value in O(1): the graph's unique index for committed rows, and this
/// context's map of unsaved inserts. Importers use `findOrInsert` to upsert without fetching.
extension ModelContext {
    /// The object whose unique attribute `keyPath` equals `value`: an unsaved insert of this
    /// context, else a committed row (unless this context deleted it). Throws when `keyPath` is
    /// not a unique attribute of `T`.
    public func fetchUnique<T: PersistentModel, V: Storable>(_ keyPath: KeyPath<T, V>, equals value: V) throws -> T? {
        if let partitions { return try partitions.context(for: T.self, in: schema).fetchUnique(keyPath, equals: value) }
        let entered = try link.enter("fetchUnique")
        defer { link.leave(entered) }
        let key = try uniqueAttribute(keyPath, of: T.self)
        let stored = value.storedValue
        if let owner = pendingUniqueOwner(entity: key.entity, attribute: key.attribute, value: stored),
           let pending = downcast(owner, to: T.self) { return pending }
        // The attributes this context's objects are usually read for start loading as soon as the
        // row is known, while the object is made (AttributeReadAhead).
        let loading = link.readAhead.attributesToLoad(entity: key.entity)
        guard let row = committedGraph({ $0.row(entity: key.entity, uniqueAttribute: key.attribute, value: stored, loading: loading) }) else {
            return nil
        }
        let model = object(entity: key.entity, row: row)
        let changedAway = model.unretainedBacking.with { $0.isDeletedOrChangedAway(attribute: key.attribute, from: stored) }
        guard !changedAway else { return nil }
        return downcast(model, to: T.self)
    }

    /// The object whose unique attribute equals `value`, or a new one from `create` (inserted
    /// into this context). O(1) either way.
    public func findOrInsert<T: PersistentModel, V: Storable>(_ keyPath: KeyPath<T, V>, equals value: V, create: () -> T) throws -> T {
        if let partitions { return try partitions.context(for: T.self, in: schema).findOrInsert(keyPath, equals: value, create: create) }
        let entered = try link.enter("findOrInsert")
        defer { link.leave(entered) }
        if let existing = try fetchUnique(keyPath, equals: value) { return existing }
        let model = create()
        insert(model)
        return model
    }

    /// The unique attribute `keyPath` reads. Kept per context by key path identity: the
    /// compiler passes one key path object per literal, and resolving it through the schema
    /// copies whole attribute descriptions.
    private func uniqueAttribute<T: PersistentModel>(_ keyPath: AnyKeyPath, of type: T.Type = T.self) throws -> UniqueKey {
        // Known before the entity is looked up: a key path's identity fixes its root type.
        if let known = knownUniqueKey(keyPath) { return known }
        guard let entity = schema.entity(for: T.self) else { throw ModelContextError.typeNotInSchema("\(T.self)") }
        guard let key = uniqueKey(keyPath, in: entity) else {
            throw ModelContextError.notUnique(entity: entity.name, keyPath: "\(keyPath)")
        }
        return key
    }

    /// The unique attribute of `entity` that `keyPath` reads, if it is one (and kept per context).
    func uniqueKey(_ keyPath: AnyKeyPath, in entity: Schema.Entity) -> UniqueKey? {
        if let known = knownUniqueKey(keyPath), known.entity == entity.index { return known }
        guard case let .attribute(attribute)? = entity.property(for: keyPath), attribute.isUnique else { return nil }
        let key = UniqueKey(entity: entity.index, attribute: attribute.index, isExternal: attribute.options.contains(.externalStorage))
        // Bounded, in case key paths are made afresh for each call.
        if uniqueKeys.count >= 64 { uniqueKeys = [] }
        uniqueKeys.append((ObjectIdentifier(keyPath), key, keyPath))
        return key
    }

    /// By identity alone: `uniqueKeys` keeps every key path it lists alive, so no other object
    /// can have its identity while it is listed (and identities and keys, plain numbers, are
    /// read without a retain).
    private func knownUniqueKey(_ keyPath: AnyKeyPath) -> UniqueKey? {
        let identity = ObjectIdentifier(keyPath)
        for index in uniqueKeys.indices where uniqueKeys[index].identity == identity { return uniqueKeys[index].key }
        return nil
    }
}

/// A unique attribute by position (`ModelContext.uniqueKeys` keeps the key path that named it).
struct UniqueKey {
    let entity: Int
    let attribute: Int
    /// Held in blob files (`.externalStorage`): not looked up by value here.
    let isExternal: Bool
}

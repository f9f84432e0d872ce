import GraphStoreEngine

/// Many rows of one model, written in one transaction without a model object per row: Core
/// Data's `NSBatchInsertRequest`, with SwiftData's upsert. For imports and bulk updates, where
/// making, tracking and freeing an object per row costs more than the row itself.
///
///     var flights = try BatchInsert(Flight.self, in: container)
///     let ident = try flights.attribute(\.ident)
///     let distance = try flights.attribute(\.routeDistance)
///     let origin = try flights.toOne(\.origin, by: \Airport.icao)
///     for record in records {
///         flights.appendRow()
///         flights.set(ident, record.ident)
///         flights.set(distance, record.distance)
///         flights.set(origin, record.originCode)
///     }
///     try context.execute(flights)
///
/// Properties are resolved once, as a prepared statement's parameters are, and checked then
/// (settable key paths only: a read-only computed property is not a column to write):
/// an attribute whose stored form is not its Swift type's (a custom coder, external storage),
/// or a relationship the batch cannot keep consistent on its own (one-to-one, or with a
/// minimum or maximum count), is refused with `ModelContextError.batchPropertyUnsupported`.
///
/// What a row does when the batch runs:
/// - A row whose unique attribute matches a committed row, or an earlier row of the batch,
///   updates that row: the attributes and relationships it sets change, the others keep
///   their values (several rows for one key: the later values win).
/// - Any other row is inserted; attributes it leaves unset take their declared initial value
///   (a per-object initial value such as `UUID()` is not run for a batch row: set it).
/// - A unique value another row keeps is a `uniqueConstraintViolation`, a target that does
///   not exist a `batchTargetNotFound`; either way nothing of the transaction is written.
///
/// No model objects, undo or save notifications: like Core Data's batch requests, the rows go
/// straight to the store. Every context (the executing one too) merges the transaction as it
/// merges another context's save, so registered objects, observers and live queries see it.
public struct BatchInsert<Model: PersistentModel> {
    /// An attribute the batch sets.
    public struct Attribute<Stored: Storable> {
        @usableFromInline let index: Int
    }

    /// A to-one relationship the batch sets, by the target's identifier.
    public struct ToOne<Target: PersistentModel> {
        let index: Int
    }

    /// A to-one relationship the batch sets by a unique attribute of the target (an airport by
    /// its code): found among committed rows and the rows of batches executed before this one
    /// in the same `execute`.
    public struct ToOneByKey<Target: PersistentModel, Key: Storable> {
        @usableFromInline let index: Int
        @usableFromInline let keyAttribute: Int
    }

    let schema: Schema
    let entity: Schema.Entity
    /// Slots per row: the entity's attributes, and its relationships.
    @usableFromInline let width: Int
    @usableFromInline let linkWidth: Int
    // Filled by inlinable methods, so that a caller's loop is specialised for its model and
    // its values (one flight is fifteen calls).
    /// By attribute position, what each row sets (see BatchColumn).
    @usableFromInline var values: BatchColumns
    /// By relationship position, what each row links.
    @usableFromInline var links: BatchSlots<BatchLinkTarget>
    /// The first misuse met while filling the batch (a `set` before any row, an identifier of
    /// another entity than the relationship's target or a temporary one): `execute` throws it.
    private(set) var misuse: String?
    @usableFromInline var rowCount = 0
    /// The rows appended so far.
    public var count: Int { rowCount }

    /// An empty batch of `type`'s rows for `container` (the store that holds the type, when the
    /// container has several). Throws when the type is not in the container's schema.
    public init(_ type: Model.Type = Model.self, in container: ModelContainer) throws {
        // With several stores, the batch is the store's that holds the type.
        let container = container.partition(for: type) ?? container
        guard let entity = container.schema.entity(for: type) else { throw ModelContextError.typeNotInSchema("\(type)") }
        // A batch upserts by one unique attribute; uniqueness over several it cannot keep.
        if let compound = entity.compoundUniques.first {
            throw ModelContextError.batchPropertyUnsupported(entity: entity.name, property: compound.description,
                                                     reason: "unique together (Schema.Unique): insert these objects through a context")
        }
        schema = container.schema
        self.entity = entity
        width = entity.attributes.count
        linkWidth = entity.relationships.count
        values = BatchColumns(columns: width)
        links = BatchSlots(columns: linkWidth)
    }

    /// Room for `rows` rows without reallocating.
    public mutating func reserveCapacity(_ rows: Int) {
        values.reservedRows = rows
        links.reservedRows = rows
    }

    // MARK: Properties

    /// The attribute `keyPath` reads, when its stored form is its Swift type's.
    public func attribute<Stored: Storable>(_ keyPath: ReferenceWritableKeyPath<Model, Stored>) throws -> Attribute<Stored> {
        guard case let .attribute(attribute)? = entity.property(for: keyPath) else {
            throw unsupported("\(keyPath)", "not a stored attribute")
        }
        guard !attribute.options.contains(.externalStorage) else { throw unsupported(attribute.name, "kept in external storage") }
        guard !attribute.isEphemeral else { throw unsupported(attribute.name, "ephemeral (never saved)") }
        guard attribute.type == Stored.storageType else {
            throw unsupported(attribute.name, "stored as \(attribute.type), not as \(Stored.self) (\(Stored.storageType))")
        }
        return Attribute(index: attribute.index)
    }

    /// The to-one relationship `keyPath` reads, set by the target's identifier.
    public func toOne<Target: PersistentModel>(_ keyPath: ReferenceWritableKeyPath<Model, Target?>) throws -> ToOne<Target> {
        ToOne(index: try relationship(keyPath, to: Target.self).index)
    }

    /// The to-one relationship `keyPath` reads, set by the target's unique attribute `key`.
    public func toOne<Target: PersistentModel, Key: Storable>(_ keyPath: ReferenceWritableKeyPath<Model, Target?>,
                                                             by key: ReferenceWritableKeyPath<Target, Key>) throws -> ToOneByKey<Target, Key> {
        let relationship = try relationship(keyPath, to: Target.self)
        let target = schema.entities[relationship.targetIndex]
        guard case let .attribute(attribute)? = target.property(for: key), attribute.isUnique,
              !attribute.options.contains(.externalStorage), attribute.type.kind == Key.storageType.kind else {
            throw unsupported(relationship.name, "\(key) is not a unique attribute of \(target.name) stored as \(Key.self)")
        }
        return ToOneByKey(index: relationship.index, keyAttribute: attribute.index)
    }

    private func relationship<Target: PersistentModel>(_ keyPath: AnyKeyPath, to: Target.Type) throws -> Schema.Relationship {
        guard case let .relationship(relationship)? = entity.property(for: keyPath), !relationship.isToMany else {
            throw unsupported("\(keyPath)", "not a to-one relationship")
        }
        guard schema.entity(for: Target.self)?.index == relationship.targetIndex else {
            throw unsupported(relationship.name, "its target is not \(Target.self)")
        }
        let inverse = schema.inverse(of: relationship)
        if let inverse, !inverse.isToMany {
            throw unsupported(relationship.name, "one-to-one (a batch cannot take the target from its other source)")
        }
        for side in [relationship, inverse].compactMap({ $0 }) where side.minimumCount != nil || side.maximumCount != nil {
            throw unsupported(relationship.name, "\(side.name) has a minimum or maximum count")
        }
        return relationship
    }

    @usableFromInline mutating func noteMisuse(_ description: String) {
        if misuse == nil { misuse = description }
    }

    private func unsupported(_ property: String, _ reason: String) -> ModelContextError {
        .batchPropertyUnsupported(entity: entity.name, property: property, reason: reason)
    }

    // MARK: Rows

    /// Starts a row; `set` calls fill it.
    @inlinable public mutating func appendRow() {
        rowCount += 1
    }

    /// Sets an attribute of the last row.
    @inlinable public mutating func set<Stored: Storable>(_ attribute: Attribute<Stored>, _ value: Stored) {
        guard rowCount > 0 else { return noteMisuse("set before appendRow()") }
        values.set(value.storedValue, row: rowCount - 1, column: attribute.index)
    }

    /// Links the last row to `target` (nil: to nothing).
    public mutating func set<Target: PersistentModel>(_ relationship: ToOne<Target>, _ target: PersistentIdentifier?) {
        guard rowCount > 0 else { return noteMisuse("set before appendRow()") }
        let link: BatchLinkTarget
        if let target {
            let declared = entity.relationships[relationship.index]
            if target.isTemporary { return noteMisuse("\(declared.name) set to \(target), which was never saved") }
            if target.entityName != declared.targetName {
                return noteMisuse("\(declared.name) set to \(target), not a \(declared.targetName)")
            }
            link = .row(target.row)
        } else {
            link = .nothing
        }
        links.set(link, row: rowCount - 1, column: relationship.index)
    }

    /// Links the last row to the target whose unique attribute is `key` (nil: to nothing).
    @inlinable public mutating func set<Target: PersistentModel, Key: Storable>(_ relationship: ToOneByKey<Target, Key>, _ key: Key?) {
        guard rowCount > 0 else { return noteMisuse("set before appendRow()") }
        links.set(key.map { .key(attribute: relationship.keyAttribute, $0.storedValue) } ?? .nothing,
                  row: rowCount - 1, column: relationship.index)
    }
}

/// What `ModelContext.execute` wrote.
public struct BatchInsertResult: Sendable, Equatable {
    /// Rows inserted.
    public var inserted = 0
    /// Committed rows updated because an appended row had their unique value (upserts).
    public var updated = 0
    /// The transaction that holds them.
    public var transaction: UInt64 = 0
}

/// What a batch row links a relationship to. Outside `BatchInsert` so that it is one type for
/// every model: the encoder's reads of it are then specialised, not generic (a generic read
/// looked its metadata up each time).
@usableFromInline enum BatchLinkTarget {
    case nothing
    case row(UInt64)
    /// The target's unique attribute and its value.
    case key(attribute: Int, Value)
}

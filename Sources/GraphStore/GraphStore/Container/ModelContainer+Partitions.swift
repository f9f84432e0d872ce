import Foundation
import GraphStoreLog

/// A container made with several configurations (SwiftData's "trips in one store, people in
/// another"): each configuration's models live in a store of their own, a container each
/// (`partitions`), and this container and its contexts route every model by its entity.
/// Relationships never cross stores (refused when the container is made), so every operation on
/// a model belongs to one store. A save commits each store's share in turn; see
/// `PartialSaveError` for what a failure in a later store leaves.
extension ModelContainer {
    /// Builds the partitions. Every model is stored by exactly one configuration: the one whose
    /// schema was made of it, else the one whose schema it came into through a relationship,
    /// else the first configuration without a schema. A relationship between models that end up
    /// in different stores is refused, naming both.
    convenience init(partitioning types: [any PersistentModel.Type], migrationPlan: (any SchemaMigrationPlan.Type)?,
                     configurations: [ModelConfiguration]) throws {
        if migrationPlan != nil {
            throw SchemaError.unreadableRecord(reason: "a migration plan applies to one store; migrate each configuration's store in a container of its own")
        }
        let named = try configurations.map { try $0.schema?.checked() }
        let full = try SchemaBuilder.build(types: types + named.flatMap { $0?.types ?? [] })
        var owner: [String: Int] = [:]
        for (index, schema) in named.enumerated() {
            for name in (schema?.declaredEntityNames ?? []).sorted() {
                if let other = owner[name], other != index {
                    throw SchemaError.notInOneConfiguration(entity: name, configurations: [configurations[other].name, configurations[index].name])
                }
                owner[name] = index
            }
        }
        // Models a configuration's schema brought along through relationships: its own, unless
        // another configuration names them (then the relationship crosses stores: refused below).
        for (index, schema) in named.enumerated() {
            for entity in schema?.entities ?? [] where owner[entity.name] == nil { owner[entity.name] = index }
        }
        let fallback = named.firstIndex { $0 == nil }
        for entity in full.entities where owner[entity.name] == nil {
            guard let fallback else { throw SchemaError.notInOneConfiguration(entity: entity.name, configurations: []) }
            owner[entity.name] = fallback
        }
        for entity in full.entities {
            for relationship in entity.relationships where owner[entity.name] != owner[relationship.targetName] {
                throw SchemaError.crossStoreRelationship(entity: entity.name, relationship: relationship.name, target: relationship.targetName,
                                                         stores: [configurations[owner[entity.name]!].name, configurations[owner[relationship.targetName]!].name])
            }
        }
        let urls = configurations.compactMap { $0.isStoredInMemoryOnly ? nil : $0.url?.standardizedFileURL.path }
        if let repeated = urls.first(where: { url in urls.filter { $0 == url }.count > 1 }) {
            throw StorageError.io(operation: "open two configurations at one store (\(repeated))", path: repeated, errno: 22)
        }
        var partitions: [ModelContainer] = []
        var indexByEntity: [String: Int] = [:]
        for (index, configuration) in configurations.enumerated() {
            let mine = full.entities.filter { owner[$0.name] == index }
            guard !mine.isEmpty else { continue }
            let partition = try ModelContainer(for: mine.compactMap(\.type), configurations: configuration)
            for entity in mine { indexByEntity[entity.name] = partitions.count }
            partitions.append(partition)
        }
        self.init(facadeOver: partitions, indexByEntity: indexByEntity, schema: full, configuration: configurations[0])
    }

    /// The container that stores `type`'s models: this one, or its partition.
    func partition(for type: any PersistentModel.Type) -> ModelContainer? {
        guard let partitions else { return schema.entity(for: type) == nil ? nil : self }
        return schema.entity(for: type).flatMap { partitions.indexByEntity[$0.name] }.map { partitions.containers[$0] }
    }

    func partition(forEntityNamed name: String) -> ModelContainer? {
        guard let partitions else { return schema.entity(named: name) == nil ? nil : self }
        return partitions.indexByEntity[name].map { partitions.containers[$0] }
    }

    /// The containers that hold the stores: the partitions, or this one alone.
    var storeContainers: [ModelContainer] { partitions?.containers ?? [self] }
}

/// What a container with several configurations holds: a container per store, and which one
/// stores each entity.
struct ContainerPartitions: Sendable {
    let containers: [ModelContainer]
    let indexByEntity: [String: Int]
}

/// A save of a context over several stores failed in one of them: the stores before it kept
/// what they committed (their share of the context's changes is saved and no longer pending);
/// `store` and every store after it committed nothing, and their share of the changes is still
/// pending in the context, to save again.
public struct PartialSaveError: Error, CustomStringConvertible {
    /// The configuration whose store failed.
    public var store: String
    /// The configurations whose stores committed their share before it.
    public var savedStores: [String]
    /// The error the failed store's save threw.
    public var underlying: any Error

    /// Which store failed and why, which stores were saved, and that the rest is still unsaved.
    public var description: String {
        "saving to store \(store) failed: \(underlying)"
            + (savedStores.isEmpty ? "" : "; the changes to \(savedStores.joined(separator: ", ")) were saved")
            + "; the rest is still unsaved in the context"
    }
}


/// A context over a container with several stores (ModelContainer+Partitions.swift): a context
/// per store, by which every model and every fetch is routed by its entity. What a SwiftData user
/// calls on the context reaches the store that holds the model; settings (author, merge policy,
/// autosave, the undo manager) reach every store's context; a save saves each in turn.
final class ContextPartitions {
    let contexts: [ModelContext]
    let indexByEntity: [String: Int]

    init(_ partitions: ContainerPartitions, facade: ModelContext) {
        contexts = partitions.containers.map { ModelContext($0) }
        indexByEntity = partitions.indexByEntity
        for context in contexts { context.link.facade = facade }
    }

    func context(forEntityNamed name: String) -> ModelContext? {
        indexByEntity[name].map { contexts[$0] }
    }

    /// The context that holds `type`'s models; throws when no store has them.
    func context<T: PersistentModel>(for type: T.Type, in schema: Schema) throws -> ModelContext {
        guard let name = schema.entity(for: type)?.name, let context = context(forEntityNamed: name) else {
            throw ModelContextError.typeNotInSchema("\(type)")
        }
        return context
    }

    /// The context that holds `model`, for operations that cannot throw (a model of a type no
    /// store has stops the program, as inserting it into a one-store context does).
    func context(of model: any PersistentModel, in schema: Schema) -> ModelContext {
        guard let name = schema.entity(for: type(of: model))?.name, let context = context(forEntityNamed: name) else {
            fatalError("GraphStore: \(ModelContextError.typeNotInSchema("\(type(of: model))")); add it to the ModelContainer's types")
        }
        return context
    }

    /// Saves every store's share in turn (see `PartialSaveError`).
    func save(names: [String]) throws {
        var saved: [String] = []
        for (context, name) in zip(contexts, names) where context.hasChanges {
            do {
                try context.save()
            } catch {
                throw PartialSaveError(store: name, savedStores: saved, underlying: error)
            }
            saved.append(name)
        }
    }
}

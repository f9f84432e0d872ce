@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

extension ModelContext {
    /// Writes the batches' rows in one transaction (see `BatchInsert`), in the order given: a
    /// batch's `toOne(_:by:)` keys find the rows of the batches before it. Nothing is written
    /// if any row fails. The context's own unsaved changes are left as they are; like every
    /// other context, it merges the transaction (its merge policy decides conflicts).
    @discardableResult
    public func execute<each Model: PersistentModel>(_ batch: repeat BatchInsert<each Model>) throws -> BatchInsertResult {
        if let partitions {
            // One transaction is one store's: every batch must be of the same store.
            var schemas: [Schema] = []
            repeat schemas.append((each batch).schema)
            guard let part = partitions.contexts.first(where: { part in schemas.allSatisfy { $0 === part.schema } }) else {
                throw ModelContextError.batchInvalid(entity: "-", reason: "the batches are of models in different stores; execute each store's batches apart")
            }
            return try part.execute(repeat each batch)
        }
        let entered = try link.enter("execute")
        defer { link.leave(entered) }
        guard !container.configuration.isReadOnly else { throw ModelContextError.readOnly }
        var result = BatchInsertResult()
        let (number, _) = try container.commit(from: nil, author: author ?? "") {
            try graph.read { view in
                let transaction = BatchTransaction(schema: schema, view: view, graph: graph)
                repeat try transaction.encode(each batch)
                result = transaction.result
                return transaction.takeChanges()
            }
        }
        result.transaction = number
        return result
    }
}

import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog
import Synchronization

/// One open store directory: its transaction log, the committed graph (loaded from the newest
/// usable checkpoint, then the log after it), the schema history and the blob files.
/// `ModelContainer` owns one; the `graphstore` tool opens one without any model classes.
@_spi(GraphStoreInternals) public final class Store: @unchecked Sendable {
    // Immutable after open except `state` (its mutex) and the locks' critical sections.
    package let directory: String
    /// The schema the graph is in: the models' (a container) or the newest recorded one (a tool).
    package let schema: Schema
    package let options: StoreOptions
    /// What open found and did: torn tails, salvage, the checkpoint loaded and those skipped.
    package let report: OpenReport
    package let graph: Graph
    package let log: TransactionLog
    package let blobs: BlobStore
    package let fileIO: any FileIO
    /// Numbers of the attributes marked `.externalStorage`.
    package let externalAttributes: Set<PropertyNumber>

    package struct State {
        package var schemaHistory: [SchemaHistoryEntry]
        /// Log bytes committed since the last checkpoint (for the automatic policy).
        package var bytesSinceCheckpoint: UInt64 = 0
        package var maintenanceScheduled = false
        package var lastMaintenanceError: (any Error)?
        package var closed = false
    }
    package let state: Locked<State>
    /// One checkpoint or compaction at a time; `close()` waits for a running one.
    package let maintenanceLock = NSLock()
    /// Held while segments are deleted and while history reads them.
    package let segmentsLock = NSLock()
    /// How every commit to this store is made (`CommitPipeline`); made at open.
    package private(set) var pipeline: CommitPipeline!
    /// The pipeline's lock: held while a commit is encoded and applied.
    package var commitLock: YieldingLock { pipeline.lock }

    private init(directory: String, schema: Schema, options: StoreOptions, report: OpenReport, graph: Graph,
                 log: TransactionLog, history: [SchemaHistoryEntry]) {
        self.directory = directory
        self.schema = schema
        self.options = options
        self.report = report
        self.graph = graph
        self.log = log
        self.fileIO = options.log.fileIO
        externalAttributes = Store.externalAttributes(of: schema)
        self.blobs = BlobStore(storeDirectory: directory, fileIO: options.log.fileIO, syncs: options.log.durability != .none)
        self.state = Locked(State(schemaHistory: history))
        pipeline = CommitPipeline(store: self)
    }

    deinit { log.close() }

    /// Opens the store at `directory`. With `schema` (the models'), stored data is translated
    /// onto it by name and, for a writer, the schema is recorded when it changed. Without one,
    /// the newest recorded schema is used (`Store.recordedSchema`).
    ///
    /// Throws `StorageError` for damage, a held lock, I/O failure or compacted history, and
    /// `SchemaError.incompatible` when stored data cannot follow the declared schema.
    @_spi(GraphStoreInternals) public static func open(directory: String, schema declared: Schema? = nil, options: StoreOptions = StoreOptions()) throws -> Store {
        guard options.log.readOnly else { return try openOnce(directory: directory, schema: declared, options: options) }
        return try readingBesideAWriter(directory: directory, fileIO: options.log.fileIO) {
            try openOnce(directory: directory, schema: declared, options: options)
        }
    }

    private static func openOnce(directory: String, schema declared: Schema?, options: StoreOptions) throws -> Store {
        if options.asOfTransaction != nil && !options.log.readOnly {
            throw StorageError.io(operation: "open as of a past transaction (read-only opens only)", path: directory, errno: 22)
        }
        let schema: Schema
        if let declared {
            schema = declared
        } else {
            guard let record = try recordedSchema(directory: directory, fileIO: options.log.fileIO) else {
                throw StorageError.noStore(path: directory)
            }
            schema = try Schema(record: record)
        }
        let graph = Graph(schema: schema)
        let loader = StoreLoader(directory: directory, schema: schema, graph: graph, options: options)
        graph.beginLoading()
        defer { graph.finishLoading() }
        // Nothing on disk changes until the open has succeeded (`completeOpen` below).
        let log = try TransactionLog.open(directory: directory, options: options.log, completing: false,
                                          body: { try loader.apply($0) },
                                          loadCheckpoint: { try loader.loadCheckpoint() })
        // The store must be in a schema the models can read: differences that need a migration
        // refuse the open (nothing has been written), as do new unique constraints that stored
        // rows already break.
        if declared != nil, let current = loader.history.last?.record {
            let translation = SchemaTranslation(record: current, schema: schema)
            var problems = translation.incompatibilities
            problems += uniqueViolations(translation.newlyUnique, in: graph, schema: schema)
            if !problems.isEmpty {
                log.close()
                throw SchemaError.incompatible(differences: problems)
            }
        }
        var report = log.report
        report.checkpoint = loader.checkpoint
        report.skippedCheckpoints = loader.skipped
        if let asOf = options.asOfTransaction, asOf > log.lastTransaction {
            log.close()
            throw LogReplay.Failure.transactionNotInLog(requested: asOf, last: log.lastTransaction)
        }
        if !options.log.readOnly {
            do {
                try log.completeOpen()
                try CheckpointFile.removeTemporaries(directory: directory, fileIO: options.log.fileIO)
            } catch {
                log.close()
                throw error
            }
        }
        let store = Store(directory: directory, schema: schema, options: options, report: report, graph: graph,
                          log: log, history: loader.history)
        // Record the models' schema when the store is new or it changed.
        if declared != nil, !options.log.readOnly, needsSchemaRecord(current: loader.history.last?.record, declared: schema) {
            try store.commit([.schema(payload: SchemaRecord(schema: schema).encoded())], author: "schema")
        }
        return store
    }

    /// The schema history: every schema the store recorded, oldest first.
    package var schemaHistory: [SchemaHistoryEntry] { state.withLock { $0.schemaHistory } }

    /// The number of the newest transaction in the graph.
    package var lastTransaction: UInt64 { graph.lastTransaction }

    /// Commits one transaction through the pipeline (open's schema record, import, tools).
    @discardableResult
    @_spi(GraphStoreInternals) public func commit(_ operations: [LogOperation], author: String) throws -> UInt64 {
        try commit(TransactionChanges(operations: operations), author: author)
    }

    /// Blocks carry no external-storage values (batches refuse those attributes).
    @discardableResult
    package func commit(_ changes: TransactionChanges, author: String) throws -> UInt64 {
        try pipeline.commit(author: author) { changes }
    }

    /// Whether the pipeline writes a commit's record after releasing its lock: with `.grouped`
    /// durability, where the save waits for a shared sync anyway. With `.full` a save writes
    /// and syncs under the lock, one at a time.
    package var defersWrites: Bool { options.log.durability == .grouped }

    /// A commit's operations are in the log (or reserved there) and applied to the graph: the
    /// store's bookkeeping takes them (schema history, automatic maintenance).
    func noteCommitted(_ changes: TransactionChanges, receipt: TransactionLog.Receipt) {
        var schedule = false
        state.withLock { state in
            for case let .schema(payload) in changes.operations {
                if let record = try? SchemaRecord(decoding: payload) {
                    state.schemaHistory.append(SchemaHistoryEntry(transaction: receipt.number, timestampMicros: receipt.timestampMicros, record: record))
                }
            }
            state.bytesSinceCheckpoint += UInt64(receipt.recordBytes)
            if let limit = options.maintenance.checkpointAfterLogBytes, state.bytesSinceCheckpoint >= limit,
               !state.maintenanceScheduled, !state.closed {
                state.maintenanceScheduled = true
                schedule = true
            }
        }
        if schedule { scheduleMaintenance() }
    }

    /// A custom migration stage's one transaction: what the old models' context saved (in the
    /// store's current numbering), the new schema, then what the new models' context saved.
    /// Appended only; the store is closed and reopened with the new models afterwards.
    package func appendMigration(old: [LogOperation], schema: Schema, new: [LogOperation], author: String) throws {
        try commitLock.withLock {
            let operations = try externalizeBlobs(old)
                + [.schema(payload: SchemaRecord(schema: schema).encoded())]
                + externalizeBlobs(new, attributes: Self.externalAttributes(of: schema))
            _ = try log.append(operations, author: author)
        }
    }

    package static func externalAttributes(of schema: Schema) -> Set<PropertyNumber> {
        Set(schema.entities.flatMap { $0.attributes.filter { $0.options.contains(.externalStorage) }.map(\.number) })
    }

    /// A commit's changes with their external-storage values in blob files: a block that holds
    /// such an attribute goes as its operations, after the other blocks (rows of other
    /// entities, which do not depend on them), and is converted with the operations; link
    /// blocks then go as operations after them.
    func externalizeBlobs(_ changes: TransactionChanges) throws -> TransactionChanges {
        guard !externalAttributes.isEmpty else { return changes }
        var blocks: [RowBlock] = [], expanded: [LogOperation] = []
        for block in changes.blocks {
            if block.properties.contains(where: externalAttributes.contains) { expanded += block.operations } else { blocks.append(block) }
        }
        // Link blocks join rows the blocks insert: behind expanded rows, they go as operations.
        let links = expanded.isEmpty ? changes.links : []
        let linkOperations = expanded.isEmpty ? [] : changes.links.flatMap(\.operations)
        return TransactionChanges(blocks: blocks, links: links, operations: try externalizeBlobs(expanded + linkOperations + changes.operations))
    }

    /// External-storage `Data` values go to blob files, written and synced before the commit
    /// that names them; the log and the graph hold `.blob` references.
    func externalizeBlobs(_ operations: [LogOperation], attributes: Set<PropertyNumber>? = nil) throws -> [LogOperation] {
        let externalAttributes = attributes ?? self.externalAttributes
        guard !externalAttributes.isEmpty else { return operations }
        var wrote = false
        func convert(_ values: [PropertyValue]) throws -> [PropertyValue] {
            try values.map { pv in
                guard externalAttributes.contains(pv.property), case let .data(bytes) = pv.value else { return pv }
                wrote = true
                return PropertyValue(pv.property, .blob(try blobs.write(bytes)))
            }
        }
        let converted = try operations.map { operation -> LogOperation in
            switch operation {
            case let .insert(entity, row, values): return .insert(entity: entity, row: row, values: try convert(values))
            case let .update(entity, row, values): return .update(entity: entity, row: row, values: try convert(values))
            default: return operation
            }
        }
        if wrote { try blobs.syncDirectory() }
        return converted
    }

    /// Waits for running maintenance, then closes the log and releases the writer lock.
    @_spi(GraphStoreInternals) public func close() {
        state.withLock { $0.closed = true }
        maintenanceLock.lock()
        log.close()
        maintenanceLock.unlock()
    }

    /// The last failure of automatic (background) maintenance, if any.
    package var lastMaintenanceError: (any Error)? { state.withLock { $0.lastMaintenanceError } }

    /// The newest schema recorded in the store at `directory`, without loading any data; nil
    /// when there is no store or it holds no schema record.
    package static func recordedSchema(directory: String, fileIO: any FileIO = PosixFileIO()) throws -> SchemaRecord? {
        try recordedSchemaHistory(directory: directory, fileIO: fileIO).last?.record
    }

    /// Every schema the store at `directory` recorded, oldest first: the newest sound
    /// checkpoint's history, then schema records in the log after it. Loads no data.
    package static func recordedSchemaHistory(directory: String, fileIO: any FileIO = PosixFileIO()) throws -> [SchemaHistoryEntry] {
        guard fileIO.isDirectory(directory) else { return [] }
        var history: [SchemaHistoryEntry] = []
        var base: UInt64 = 0
        let logStart = try GraphStoreLog.logStart(directory: directory, fileIO: fileIO)
        for transaction in try CheckpointFile.list(directory: directory, fileIO: fileIO).reversed() where transaction >= logStart {
            let path = joinPath(directory, CheckpointFile.fileName(transaction: transaction))
            guard let payload = CheckpointFile.readSchemaHistoryRecord(path: path, fileIO: fileIO),
                  let recorded = try? CheckpointCodec.decodeSchemas(payload) else { continue }
            history = recorded
            base = transaction
            break
        }
        if base == 0 && logStart > 0 { base = logStart }
        let log = try TransactionLog.open(directory: directory, options: LogOptions(readOnly: true, fileIO: fileIO), body: { transaction in
            for case let .schema(payload) in transaction.operations {
                history.append(SchemaHistoryEntry(transaction: transaction.number, timestampMicros: transaction.timestampMicros,
                                                  record: try SchemaRecord(decoding: payload)))
            }
        }, loadCheckpoint: { base })
        log.close()
        return history
    }
}

/// The open-time work of a store: choosing and loading a checkpoint, then applying the log after
/// it through the schema translation in force at each transaction.
private final class StoreLoader {
    let directory: String
    let schema: Schema
    let graph: Graph
    let options: StoreOptions
    var fileIO: any FileIO { options.log.fileIO }
    var history: [SchemaHistoryEntry] = []
    var checkpoint: UInt64?
    var skipped: [String] = []
    private var translation: SchemaTranslation?
    private var identity = false

    init(directory: String, schema: Schema, graph: Graph, options: StoreOptions) {
        self.directory = directory
        self.schema = schema
        self.graph = graph
        self.options = options
    }

    /// Loads the newest checkpoint the log continues from (and, time travelling, at or before the
    /// wanted transaction); a damaged one is skipped, and said so. Returns its transaction, or 0.
    func loadCheckpoint() throws -> UInt64 {
        guard fileIO.isDirectory(directory) else { return 0 }
        let logStart = try GraphStoreLog.logStart(directory: directory, fileIO: fileIO)
        let limit = options.asOfTransaction ?? .max
        for transaction in try CheckpointFile.list(directory: directory, fileIO: fileIO).reversed() where transaction <= limit {
            let path = joinPath(directory, CheckpointFile.fileName(transaction: transaction))
            guard transaction >= logStart else {
                skipped.append("checkpoint at transaction \(transaction): the log continues only after transaction \(logStart)")
                continue
            }
            do {
                let contents = try CheckpointFile.read(path: path, fileIO: fileIO)
                let image = try CheckpointCodec.decode(contents, schema: schema)
                try CheckpointCodec.validateTargets(image, schema: schema)
                graph.install(image.tables, number: transaction)
                history = image.schemaHistory
                if let record = history.last?.record { adopt(record) }
                checkpoint = transaction
                return transaction
            } catch {
                skipped.append("checkpoint at transaction \(transaction): \(error)")
            }
        }
        if logStart > 0 {
            if let asOf = options.asOfTransaction, asOf < logStart {
                throw StorageError.historyCompacted(requested: asOf, oldestAvailable: logStart)
            }
            throw StorageError.checkpointUnavailable(logStartsAfter: logStart, problems: skipped)
        }
        return 0
    }

    private func adopt(_ record: SchemaRecord) {
        translation = SchemaTranslation(record: record, schema: schema)
        identity = SchemaTranslation.isIdentity(record: record, schema: schema)
    }

    func apply(_ transaction: LogTransaction) throws {
        if let asOf = options.asOfTransaction, transaction.number > asOf { return }
        var operations: [LogOperation] = []
        operations.reserveCapacity(transaction.operations.count)
        for operation in transaction.operations {
            if case let .schema(payload) = operation {
                let record = try SchemaRecord(decoding: payload)
                history.append(SchemaHistoryEntry(transaction: transaction.number, timestampMicros: transaction.timestampMicros, record: record))
                adopt(record)
                continue
            }
            guard let translation else {
                throw StorageError.damagedTransaction(number: transaction.number, reason: "it holds data before any schema record")
            }
            guard let translated = identity ? operation : translation.translate(operation) else { continue }
            // A row the graph cannot hold is damage, refused before the table grows to it.
            if case let .insert(entityNumber, row, _) = translated, let index = schema.entityIndexByNumber[entityNumber],
               let problem = RowLimits.problem(row: row, of: schema.entities[index]) {
                throw StorageError.damagedTransaction(number: transaction.number, reason: "an insert of \(schema.entities[index].name): \(problem)")
            }
            operations.append(translated)
        }
        graph.apply(operations, number: transaction.number)
    }
}

/// Whether opening with `declared` must record it: the store is new, its shape changed, or the
/// models name a version the store does not have recorded.
package func needsSchemaRecord(current: SchemaRecord?, declared: Schema) -> Bool {
    guard let current else { return true }
    let record = SchemaRecord(schema: declared)
    if !current.hasSameShape(as: record) { return true }
    return declared.versionIdentifier != nil && current.versionIdentifier != record.versionIdentifier
}

/// Values that more than one row holds in attributes about to become unique, as descriptions.
package func uniqueViolations(_ attributes: [(EntityNumber, PropertyNumber)], in graph: Graph, schema: Schema) -> [String] {
    var problems: [String] = []
    graph.read { view in
        for (entityNumber, attributeNumber) in attributes {
            guard let entity = schema.entities.first(where: { $0.number == entityNumber }),
                  let attribute = entity.attributes.first(where: { $0.number == attributeNumber }) else { continue }
            var seen: [Value: UInt64] = [:]
            var duplicates: [String] = []
            for row in view.table(entity.index).liveRows {
                let value = view.value(entity: entity.index, row: row, attribute: attribute.index)
                if value == .null { continue }
                if let first = seen[value] {
                    if duplicates.count < 5 { duplicates.append("\(value) (rows \(first) and \(row))") }
                } else {
                    seen[value] = row
                }
            }
            if !duplicates.isEmpty {
                problems.append("\(entity.name).\(attribute.name) cannot become unique: stored rows share values: " + duplicates.joined(separator: ", "))
            }
        }
    }
    return problems
}

extension Store {
    /// Whether `row` of the entity named `entity` exists (tools and tests without models).
    package func rowExists(entity name: String, row: RowNumber) throws -> Bool {
        guard let entity = schema.entity(named: name) else { throw SchemaError.unreadableRecord(reason: "no entity \(name)") }
        return graph.read { $0.isLive(entity: entity.index, row: row) }
    }
}

/// Runs a read of a store's files that takes no lock. The writer may compact meanwhile, so a
/// file the read listed can be gone when it opens it; the store is whole again on the next
/// look. Retries when the files changed under a failed attempt or one went missing, waiting a
/// little longer each time (a writer compacting in a loop on a busy machine can change the
/// files under several attempts in a row); after `attempts` the error stands.
package func readingBesideAWriter<T>(directory: String, fileIO: any FileIO, attempts: Int = 8, _ body: () throws -> T) throws -> T {
    var attempt = 0
    while true {
        let before = try? fileIO.listDirectory(directory)
        do {
            return try body()
        } catch let error as StorageError {
            attempt += 1
            let after = try? fileIO.listDirectory(directory)
            guard attempt < attempts, before.map(Set.init) != after.map(Set.init) || error.isMissingFile else { throw error }
            usleep(UInt32(1_000 << min(attempt, 6)))  // 2 ms, 4 ms, … 64 ms
        }
    }
}

@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog

extension Store {
    /// What `graphstore verify` found: the inspection, and the state a read-only open loaded.
    @_spi(GraphStoreInternals) public struct Verification: Sendable {
        @_spi(GraphStoreInternals) public var inspection: StoreInspection
        /// The transaction the loaded state is as of, and the checkpoint it loaded from.
        @_spi(GraphStoreInternals) public var loadedTransaction: UInt64
        @_spi(GraphStoreInternals) public var loadedCheckpoint: UInt64?
        /// What an open would pass over or cut (a torn tail, damaged checkpoints it can do
        /// without): the store is sound, these are said.
        @_spi(GraphStoreInternals) public var notes: [String]
        /// Blob files the graph names that are missing or damaged (verify fails on any).
        @_spi(GraphStoreInternals) public var blobProblems: [String]
    }

    /// Checks a store as hard as an open does, and more, without changing a byte: every record
    /// of the kept log and every checkpoint (inspection), the schema history (every schema
    /// record must decode), then a read-only open with the recorded schema — which needs a
    /// checkpoint wherever compaction dropped the log's start, replays every transaction, and
    /// fails where any open would — and every blob file the state names. Throws what the
    /// first failing step threw; a store that holds data but no schema record (no open can
    /// read it) throws `StorageError.corruption`.
    @_spi(GraphStoreInternals) public static func verify(directory: String, fileIO: any FileIO = PosixFileIO(),
                              blobProgress: (Int, Int) -> Void = { _, _ in }) throws -> Verification {
        let inspection = try StoreInspection.inspect(directory: directory, fileIO: fileIO)
        var notes: [String] = []
        if let tail = inspection.report.tornTail { notes.append("torn tail that open would cut: \(tail)") }
        for checkpoint in inspection.checkpoints {
            if let problem = checkpoint.problem { notes.append("damaged checkpoint: \(problem)") }
        }
        guard try recordedSchemaHistory(directory: directory, fileIO: fileIO).last != nil else {
            if inspection.transactionCount == 0 && inspection.logStart == 0 {
                // Nothing was ever committed: a new store, which any open can take.
                return Verification(inspection: inspection, loadedTransaction: 0, loadedCheckpoint: nil, notes: notes, blobProblems: [])
            }
            if inspection.logStart > 0 {
                throw StorageError.checkpointUnavailable(logStartsAfter: inspection.logStart,
                                                         problems: inspection.checkpoints.compactMap(\.problem))
            }
            throw StorageError.corruption(segment: inspection.segments.first?.number ?? 0, offset: UInt64(SegmentFormat.headerSize),
                                          reason: "the log holds \(inspection.transactionCount) transaction(s) but no schema record: no open can read it")
        }
        let store = try Store.open(directory: directory, options: StoreOptions(log: LogOptions(readOnly: true, fileIO: fileIO), maintenance: .manual))
        defer { store.close() }
        notes.append(contentsOf: store.report.skippedCheckpoints.map { "open skips \($0)" })
        return Verification(inspection: inspection, loadedTransaction: store.lastTransaction, loadedCheckpoint: store.report.checkpoint,
                            notes: notes, blobProblems: store.verifyBlobs(progress: blobProgress))
    }

    /// Reads every blob file the committed graph names and returns what is wrong with each that
    /// fails (missing, damaged), naming entity, row and attribute; empty when all are sound.
    package func verifyBlobs(progress: (Int, Int) -> Void = { _, _ in }) -> [String] {
        var references: [(String, BlobReference)] = []
        forEachBlobReference(in: graph.captureImage().tables) { entity, row, attribute, reference in
            references.append(("\(entity.name)/\(row).\(attribute.name)", reference))
        }
        var problems: [String] = []
        for (index, (name, reference)) in references.enumerated() {
            progress(index, references.count)
            do { _ = try blobs.read(reference) } catch { problems.append("\(name): \(error)") }
        }
        progress(references.count, references.count)
        return problems
    }

    /// Calls `body` for every blob reference the live rows of these tables hold. Wherever they
    /// are: not only in attributes marked `.externalStorage` now — a store keeps the blobs an
    /// attribute wrote before the mark was dropped (a lightweight change), and reads them.
    package func forEachBlobReference(in tables: [EntityTable.Image],
                              _ body: (Schema.Entity, _ row: UInt64, Schema.Attribute, BlobReference) -> Void) {
        for entity in schema.entities {
            let table = tables[entity.index]
            for attribute in entity.attributes {
                // Blob references are stored values: only value-layout columns can hold them.
                guard let column = table.columns[attribute.index], !column.values.isEmpty else { continue }
                for (slot, value) in column.values.enumerated() where table.live[slot] {
                    for reference in value.blobReferences { body(entity, UInt64(slot + 1), attribute, reference) }
                }
            }
        }
    }
}

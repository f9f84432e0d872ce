@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog

/// The one way a transaction is committed, wherever it goes: a store's log, an in-memory
/// container's graph alone, or a migration stage that keeps its operations.
///
/// The sequence is fixed. Under `lock`: encode (the caller's validation and encoding, which
/// must see no other commit in between), then for a log write the external-storage values to
/// blob files, reserve the record (its transaction number and its place in the log, in commit
/// order), and apply the transaction to the graph. Then write the record and sync it, and last
/// tell the caller's listener (`didCommit`), which merges it into other contexts.
///
/// Where the write happens depends on durability. With `.grouped` it runs after the lock is
/// released, so the next commit's encoding overlaps this write and concurrent commits share one
/// sync; until it returns other readers may see the commit, and a failed write poisons the log
/// (every later commit throws until reopen), so nothing is built on a lost commit. With `.full`
/// and `.none` the record is written (and synced) under the lock, before it is applied, so a
/// commit no one could read back is never visible.
package final class CommitPipeline: Sendable {
    package enum Destination: Sendable {
        /// The store's transaction log.
        case log
        /// Nowhere: the graph is all there is (an in-memory container).
        case memory
        /// Nowhere, keeping each commit's operations for the caller (a migration stage's side).
        case staging(Locked<[LogOperation]>)
    }

    package let graph: Graph
    /// Serialises commits: the graph changes in log order, and checkpoints and the blob sweep
    /// capture the graph under it so they see whole commits.
    package let lock = YieldingLock()
    private let destination: Destination
    /// The store of a `.log` pipeline; it owns the pipeline, so it outlives it.
    private unowned let store: Store?

    package init(graph: Graph, destination: Destination) {
        precondition({ if case .log = destination { return false } else { return true } }(), "a log pipeline belongs to its store")
        self.graph = graph
        self.destination = destination
        store = nil
    }

    init(store: Store) {
        graph = store.graph
        destination = .log
        self.store = store
    }

    /// Commits what `encode` makes and returns the transaction's number once it is as durable
    /// as the log's durability asks. `encode` runs under `lock`; `didCommit` runs after the
    /// write and sync, outside it. `cannotFail` runs under the lock once nothing can stop the
    /// commit any more (its record written, or no log to write) and before the graph takes it
    /// in: the caller may let go of what the transaction now carries, so that a large save's
    /// unsaved state need not stand beside the graph's new columns. With writes deferred past
    /// the lock (`.grouped`) the write can still fail, and it is not called.
    @discardableResult
    package func commit(author: String, encode: () throws -> TransactionChanges,
                        cannotFail: () -> Void = {},
                        didCommit: (UInt64, TransactionChanges) -> Void = { _, _ in }) throws -> UInt64 {
        lock.lock()
        let number: UInt64
        let changes: TransactionChanges
        var unwritten: TransactionLog.Reservation?
        do {
            defer { lock.unlock() }
            var encoded = try encode()
            switch destination {
            case .log:
                let store = store!
                encoded = try store.externalizeBlobs(encoded)
                // The record's bytes go once written, before the graph takes the changes in:
                // a large save's record (a hundred megabytes for a million rows) need not
                // stand beside the columns being filled.
                let receipt: TransactionLog.Receipt
                do {
                    // Written before the graph applies it (unless writes are deferred), so a
                    // large record is written as it is encoded, never held whole.
                    let reservation = try store.log.reserve(encoded, author: author, streaming: !store.defersWrites)
                    if store.defersWrites {
                        unwritten = reservation
                    } else {
                        try store.log.write(reservation)
                        cannotFail()
                    }
                    receipt = reservation.receipt
                }
                number = receipt.number
                graph.apply(encoded, number: number)
                store.noteCommitted(encoded, receipt: receipt)
            case .memory:
                number = graph.lastTransaction + 1
                cannotFail()
                graph.apply(encoded, number: number)
            case let .staging(captured):
                number = graph.lastTransaction + 1
                cannotFail()
                // Kept before it is applied: applying frees a save's insert columns.
                captured.withLock { $0.append(contentsOf: encoded.expandedOperations) }
                graph.apply(encoded, number: number)
            }
            changes = encoded
        }
        if let unwritten { try store!.log.write(unwritten) }
        didCommit(number, changes)
        return number
    }
}

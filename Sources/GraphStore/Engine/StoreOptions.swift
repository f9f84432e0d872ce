import Foundation
import GraphStoreLog

/// How long compaction keeps the log's transactions (the history `fetchHistory` reads and
/// time-travel opens start from) once a checkpoint holds their effect.
public enum HistoryRetention: Sendable, Equatable {
    /// Keep every transaction: compaction writes a checkpoint and sweeps blobs but drops no segment.
    case all
    /// Keep transactions committed within this many seconds of the compaction.
    case window(TimeInterval)
    /// Keep nothing a checkpoint covers.
    case none
    /// Keep the transactions after this one (`deleteHistory`): segments holding only
    /// transactions up to it go.
    case through(UInt64)
}

/// When a store writes checkpoints and compacts on its own (Docs/guides/recovery.md).
public struct MaintenancePolicy: Sendable, Equatable {
    /// Write a checkpoint in the background once this many log bytes were committed since the
    /// last one; nil for on demand only.
    public var checkpointAfterLogBytes: UInt64?
    /// Compact after a checkpoint when at least this fraction of the log's bytes is dead (already
    /// in the checkpoint and outside the retention); nil for on demand only.
    public var compactAtDeadSpaceRatio: Double?
    /// How much history compaction keeps.
    public var retention: HistoryRetention

    /// A policy; pass nil to a threshold to turn that automatic step off.
    public init(checkpointAfterLogBytes: UInt64? = 64 << 20, compactAtDeadSpaceRatio: Double? = 0.5,
                retention: HistoryRetention = .window(7 * 24 * 3600)) {
        self.checkpointAfterLogBytes = checkpointAfterLogBytes
        self.compactAtDeadSpaceRatio = compactAtDeadSpaceRatio
        self.retention = retention
    }

    /// Nothing automatic: checkpoints and compaction only when asked.
    public static let manual = MaintenancePolicy(checkpointAfterLogBytes: nil, compactAtDeadSpaceRatio: nil, retention: .all)
}

/// How a `Store` is opened.
public struct StoreOptions: Sendable {
    /// How the log is opened and written.
    public var log: LogOptions
    /// Open the state as of this transaction (read-only opens only): time travel.
    public var asOfTransaction: UInt64?
    /// When checkpoints and compaction run on their own.
    public var maintenance: MaintenancePolicy

    /// Options for opening a store.
    public init(log: LogOptions = LogOptions(), asOfTransaction: UInt64? = nil, maintenance: MaintenancePolicy = MaintenancePolicy()) {
        self.log = log
        self.asOfTransaction = asOfTransaction
        self.maintenance = maintenance
    }
}

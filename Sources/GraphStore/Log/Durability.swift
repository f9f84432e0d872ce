/// When a commit's bytes must be on stable storage.
public enum Durability: String, Sendable, CaseIterable {
    /// `append` returns after the commit is written and fdatasync'd (the default for stores on disk).
    case full
    /// Concurrent commits share syncs: each `append` still returns only after a sync that covers it,
    /// but one fdatasync serves every commit written while the previous sync ran.
    case grouped
    /// Written to the OS, never synced: a machine crash may lose recent commits (caches, tests).
    case none
}

/// How a transaction log is opened.
public struct LogOptions: Sendable {
    /// When a commit is on disk: see `Durability`.
    public var durability: Durability
    /// Segments are preallocated to this size and rolled when full (a larger record gets a segment
    /// of its own that grows past it).
    public var segmentSize: UInt64
    /// Read-only opens take no lock, change no byte, and can `refresh()` to see newer commits.
    public var readOnly: Bool
    /// On damage in the middle of the log, keep the longest valid prefix instead of failing
    /// (the dropped bytes are moved to a quarantine directory in the store).
    public var salvage: Bool
    /// The file system the log goes through (`PosixFileIO` for real files).
    public var fileIO: any FileIO
    /// Segments are preallocated this far ahead of the writes (at most the segment size).
    public var preallocationStep: UInt64 = LogOptions.defaultPreallocationStep
    /// 4 MiB.
    public static let defaultPreallocationStep: UInt64 = 4 << 20
    /// With `.grouped`: the longest a sync's leader waits for other commits on their way, once
    /// syncs are being shared (several writers are committing); it stops early when the
    /// writers it expects have committed. 0 never waits. The leader yields its thread while it
    /// waits (see TransactionLog.waitForSync).
    public var groupCommitDelayMicroseconds = 80
    /// With `.grouped`: a save waiting for another thread's sync first yields its thread,
    /// staying runnable, for about four recent syncs' time (this long at most), and only then
    /// sleeps until the sync's leader wakes it. A sleeping waiter costs its leader a wake-up
    /// system call and the waiter a trip through the scheduler (on a virtual machine, often an
    /// interrupt to an idle processor), and with many writers those wake-ups come one after
    /// another between syncs. 0 sleeps at once.
    /// A negative value counts as 0, and more than a second as a second.
    public var groupCommitYieldLimitMicroseconds = LogOptions.defaultGroupCommitYieldLimitMicroseconds
    /// 2 ms.
    public static let defaultGroupCommitYieldLimitMicroseconds = 2_000
    /// A record this large or larger (as estimated before it is encoded) is written as it is
    /// encoded, a piece at a time, rather than held whole until written, when its changes stay
    /// as they are until then (with `.full` and `.none` durability; `.grouped` writes a record
    /// after the graph has applied its changes).
    public var streamedRecordBytes = LogOptions.defaultStreamedRecordBytes
    /// 8 MiB.
    public static let defaultStreamedRecordBytes = 8 << 20

    /// Options for a log; the defaults are a writer with `.full` durability and 64 MiB segments.
    public init(
        durability: Durability = .full,
        segmentSize: UInt64 = 64 << 20,
        readOnly: Bool = false,
        salvage: Bool = false,
        fileIO: any FileIO = PosixFileIO()
    ) {
        self.durability = durability
        self.segmentSize = max(segmentSize, UInt64(SegmentFormat.headerSize + RecordFormat.headerSize + 64))
        self.readOnly = readOnly
        self.salvage = salvage
        self.fileIO = fileIO
    }
}

extension LogOptions {
    /// The group-commit waits in nanoseconds: a negative setting counts as 0, and more than a
    /// second as a second (so no setting can overflow).
    package var groupCommitDelayNanoseconds: UInt64 { Self.nanoseconds(groupCommitDelayMicroseconds) }
    package var groupCommitYieldLimitNanoseconds: UInt64 { Self.nanoseconds(groupCommitYieldLimitMicroseconds) }

    private static func nanoseconds(_ microseconds: Int) -> UInt64 { UInt64(min(max(microseconds, 0), 1_000_000)) * 1_000 }
}

import Foundation

/// Where and how a container keeps its store (SwiftData's ModelConfiguration, plus durability).
public struct ModelConfiguration: Sendable {
    /// The store directory; nil with `isStoredInMemoryOnly`.
    public var url: URL?
    public var isStoredInMemoryOnly: Bool
    /// false opens the store read-only: saves throw `ModelContextError.readOnly`.
    public var allowsSave: Bool
    public var durability: Durability
    /// Whether `mainContext` autosaves (true by default, as in SwiftData).
    public var autosaveEnabled: Bool
    /// Whether `mainContext` records undo (an `UndoStack` as its `undoManager`).
    public var isUndoEnabled: Bool = false
    /// Open a damaged store by keeping its longest valid prefix (Docs/guides/recovery.md).
    public var salvage: Bool
    public var segmentSize: UInt64
    /// The file system seam (tests inject faults through it). By default the POSIX file system,
    /// creating files 0600 and directories 0700 (`PosixFileIO(permissions:)` widens that).
    public var fileIO: any FileIO
    /// Automatic checkpoints, compaction and history retention (Docs/guides/recovery.md).
    public var maintenance = MaintenancePolicy()
    /// Open the store as it was after this transaction (read-only configurations only).
    public var asOfTransaction: UInt64?
    /// Whether saves post `ModelContext.willSave`/`didSave` to `NotificationCenter.default`
    /// (callbacks and `saveNotifications` streams are always delivered). Foundation's
    /// notification center takes one process-wide lock per post: with many threads saving at
    /// once on few cores that lock, not the store, limits throughput (Docs/BENCHMARKS.md), so
    /// such apps turn this off and use the per-context callbacks.
    public var postsSaveNotifications = true
    /// With `.grouped` durability: how long at most a save waiting for another thread's sync
    /// yields its thread (staying runnable, so that no wake-up is needed) before it sleeps; it
    /// yields for about four recent syncs' time within this limit. 0 sleeps at once and spends
    /// no processor time on the wait, at the cost of concurrent saves' throughput
    /// (`LogOptions.groupCommitYieldLimitMicroseconds`, Docs/guides/concurrency.md).
    public var groupCommitYieldLimitMicroseconds = LogOptions.defaultGroupCommitYieldLimitMicroseconds

    var storeOptions: StoreOptions {
        var log = LogOptions(durability: durability, segmentSize: segmentSize, readOnly: isReadOnly, salvage: salvage, fileIO: fileIO)
        log.groupCommitYieldLimitMicroseconds = groupCommitYieldLimitMicroseconds
        return StoreOptions(log: log, asOfTransaction: asOfTransaction, maintenance: maintenance)
    }

    public var isReadOnly: Bool { !allowsSave }

    /// A store at `url` (a directory, created on demand, readable by its owner only: pass
    /// `fileIO: PosixFileIO(permissions: .groupReadable)` to let the group read it).
    public init(url: URL, allowsSave: Bool = true, durability: Durability = .full, autosaveEnabled: Bool = true,
                isUndoEnabled: Bool = false, salvage: Bool = false, segmentSize: UInt64 = 64 << 20, fileIO: any FileIO = PosixFileIO()) {
        self.isUndoEnabled = isUndoEnabled
        self.url = url
        self.isStoredInMemoryOnly = false
        self.allowsSave = allowsSave
        self.durability = durability
        self.autosaveEnabled = autosaveEnabled
        self.salvage = salvage
        self.segmentSize = segmentSize
        self.fileIO = fileIO
    }

    /// In memory (writes nothing), or the default store location when false.
    public init(isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true, autosaveEnabled: Bool = true, isUndoEnabled: Bool = false) {
        self.isUndoEnabled = isUndoEnabled
        self.url = isStoredInMemoryOnly ? nil : ModelConfiguration.defaultStoreURL
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.durability = isStoredInMemoryOnly ? .none : .full
        self.autosaveEnabled = autosaveEnabled
        self.salvage = false
        self.segmentSize = 64 << 20
        self.fileIO = PosixFileIO()
    }

    /// `$HOME/.graphstore/default` (the account's home directory when HOME is unset).
    public static var defaultStoreURL: URL {
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".graphstore/default", isDirectory: true)
    }
}

import Foundation
import GraphStoreEngine
import GraphStoreLog

/// Where and how a container keeps its store (SwiftData's ModelConfiguration, plus durability).
public struct ModelConfiguration: Sendable {
    /// The store directory; nil with `isStoredInMemoryOnly`.
    public var url: URL?
    /// Whether the store lives in memory only (nothing is written; it ends with the container).
    public var isStoredInMemoryOnly: Bool
    /// false opens the store read-only: saves throw `ModelContextError.readOnly`.
    public var allowsSave: Bool
    /// When a save's bytes reach the disk: `.full` (synced before `save()` returns, the default),
    /// `.grouped` (concurrent saves share one sync) or `.none` (the system decides).
    /// Docs/guides/durability.md.
    public var durability: Durability
    /// Whether `mainContext` autosaves (true by default, as in SwiftData).
    public var autosaveEnabled: Bool
    /// Whether `mainContext` records undo (an `UndoManager` as its `undoManager`).
    public var isUndoEnabled: Bool = false
    /// Open a damaged store by keeping its longest valid prefix (Docs/guides/recovery.md).
    public var salvage: Bool
    /// The size, in bytes, at which the log moves on to a new segment file.
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

    /// `LogOptions.streamedRecordBytes` (tests stream every record).
    package var streamedRecordBytes = LogOptions.defaultStreamedRecordBytes

    var storeOptions: StoreOptions {
        var log = LogOptions(durability: durability, segmentSize: segmentSize, readOnly: isReadOnly, salvage: salvage, fileIO: fileIO)
        log.groupCommitYieldLimitMicroseconds = groupCommitYieldLimitMicroseconds
        log.streamedRecordBytes = streamedRecordBytes
        return StoreOptions(log: log, asOfTransaction: asOfTransaction, maintenance: maintenance)
    }

    /// Whether the store is opened read-only (`allowsSave` false).
    public var isReadOnly: Bool { !allowsSave }

    /// The configuration's name (SwiftData's): unless given, "default", or for a configuration
    /// with a URL its last path component ("trips" for `…/trips.store`). A container with
    /// several configurations names each store by it in errors.
    public var name: String
    /// The models this configuration stores, when the container has several configurations
    /// (nil: every model of the container's schema that no other configuration names).
    public var schema: Schema?
    /// Accepted so that SwiftData code compiles; GraphStore has no app groups (see `url`).
    public var groupContainer: GroupContainer
    /// Accepted so that SwiftData code compiles; GraphStore syncs with no CloudKit database.
    public var cloudKitDatabase: CloudKitDatabase
    /// Accepted so that SwiftData code compiles; GraphStore syncs with no CloudKit container.
    public var cloudKitContainerIdentifier: String?

    /// A store at `url`: a directory, created on demand (readable by its owner only: pass
    /// `fileIO: PosixFileIO(permissions: .groupReadable)` to let the group read it). SwiftData's
    /// URLs name a store *file* (`…/trips.store`): GraphStore makes its directory at that path
    /// (a file already there is refused: it is not a GraphStore store).
    public init(_ name: String? = nil, schema: Schema? = nil, url: URL, allowsSave: Bool = true,
                cloudKitDatabase: CloudKitDatabase = .automatic, cloudKitContainerIdentifier: String? = nil,
                durability: Durability = .full, autosaveEnabled: Bool = true, isUndoEnabled: Bool = false,
                salvage: Bool = false, segmentSize: UInt64 = 64 << 20, fileIO: any FileIO = PosixFileIO()) {
        // Named after its store when unnamed ("trips" for …/trips.store), so that errors of a
        // container with several stores say which.
        self.name = name ?? url.deletingPathExtension().lastPathComponent
        self.schema = schema
        self.groupContainer = .automatic
        self.cloudKitDatabase = cloudKitDatabase
        self.cloudKitContainerIdentifier = cloudKitContainerIdentifier
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

    /// In memory (writes nothing), or, when false, the store named `name` in the default
    /// location (`defaultStoreURL`: `~/.graphstore/default` for the unnamed one).
    public init(_ name: String? = nil, schema: Schema? = nil, isStoredInMemoryOnly: Bool = false, allowsSave: Bool = true,
                groupContainer: GroupContainer = .automatic, cloudKitDatabase: CloudKitDatabase = .automatic,
                autosaveEnabled: Bool = true, isUndoEnabled: Bool = false) {
        self.name = name ?? "default"
        self.schema = schema
        self.groupContainer = groupContainer
        self.cloudKitDatabase = cloudKitDatabase
        self.isUndoEnabled = isUndoEnabled
        self.url = isStoredInMemoryOnly ? nil : ModelConfiguration.defaultStoreURL(named: name)
        self.isStoredInMemoryOnly = isStoredInMemoryOnly
        self.allowsSave = allowsSave
        self.durability = isStoredInMemoryOnly ? .none : .full
        self.autosaveEnabled = autosaveEnabled
        self.salvage = false
        self.segmentSize = 64 << 20
        self.fileIO = PosixFileIO()
    }

    /// SwiftData's `ModelConfiguration(for: Trip.self, isStoredInMemoryOnly: true)`: a
    /// configuration for these models (and those they relate to).
    public init(for type: any PersistentModel.Type, _ more: any PersistentModel.Type..., isStoredInMemoryOnly: Bool = false) {
        self.init(schema: Schema([type] + more), isStoredInMemoryOnly: isStoredInMemoryOnly)
    }

    /// `$HOME/.graphstore/default` (the account's home directory when HOME is unset).
    public static var defaultStoreURL: URL { defaultStoreURL(named: nil) }

    /// `$HOME/.graphstore/NAME` (`default` when nil).
    public static func defaultStoreURL(named name: String?) -> URL {
        let home = ProcessInfo.processInfo.environment["HOME"].flatMap { $0.isEmpty ? nil : $0 }
            ?? FileManager.default.homeDirectoryForCurrentUser.path
        return URL(fileURLWithPath: home).appendingPathComponent(".graphstore/\(name ?? "default")", isDirectory: true)
    }

    /// SwiftData's app group containers; GraphStore has none, so every value stores alike.
    public enum GroupContainer: Sendable, Hashable {
        /// The app's default group container.
        case automatic
        /// No group container.
        case none
        /// The group container with this identifier.
        case identifier(String)
    }

    /// SwiftData's CloudKit databases; GraphStore never syncs, whatever the value.
    public enum CloudKitDatabase: Sendable, Hashable {
        /// The app's default CloudKit database.
        case automatic
        /// No CloudKit database.
        case none
        /// The private database of the CloudKit container with this identifier.
        case `private`(String)
    }
}

import Foundation
import GraphStoreEngine

/// What a save did (or, before it commits, is about to do): delivered as a callback, an
/// AsyncSequence, and a NotificationCenter notification named `ModelContext.willSave` /
/// `ModelContext.didSave` (SwiftData's names); the posted `didSave`'s userInfo holds the
/// identifier arrays under `ModelContext.NotificationKey` raw values.
public struct SaveNotification: Sendable, Equatable {
    /// Before or after the save commits.
    public enum Phase: Sendable, Equatable {
        /// The save is about to commit (`ModelContext.willSave`).
        case willSave
        /// The save has committed (`ModelContext.didSave`).
        case didSave
    }

    /// Whether the save is about to commit or has committed.
    public let phase: Phase
    /// The committed transaction's number (nil before it commits).
    public let transaction: UInt64?
    /// The saving context's `author`.
    public let author: String
    /// The objects the save inserts (their permanent identifiers after it commits).
    public let inserted: [PersistentIdentifier]
    /// The objects whose changes the save writes.
    public let updated: [PersistentIdentifier]
    /// The objects the save deletes.
    public let deleted: [PersistentIdentifier]
}

extension ModelContext {
    /// Posted before a save commits, with no `userInfo`, as SwiftData's and Core Data's are (a
    /// save of a million objects would otherwise list a million identifiers first, for nobody).
    /// `onWillSave` and `saveNotifications` hand over the identifiers about to be written.
    public static let willSave = Notification.Name("GraphStore.ModelContext.willSave")
    /// Posted after a save commits, with the saved identifiers in `userInfo`.
    public static let didSave = Notification.Name("GraphStore.ModelContext.didSave")

    /// The keys of a save notification's `userInfo`, with SwiftData's cases and raw values.
    /// Each identifier key holds a `[PersistentIdentifier]`.
    public enum NotificationKey: String, Sendable {
        /// Which generation of the store the context reads: the committed transaction's
        /// number (`UInt64`) on `didSave`.
        case queryGeneration
        /// Posted by SwiftData when every identifier of a context is invalidated; a GraphStore
        /// save never invalidates identifiers, so this key is never present.
        case invalidatedAllIdentifiers = "invalidatedAll"
        /// The inserted objects' identifiers.
        case insertedIdentifiers = "inserted"
        /// The updated objects' identifiers.
        case updatedIdentifiers = "updated"
        /// The deleted objects' identifiers.
        case deletedIdentifiers = "deleted"
    }

    /// Calls `handler` before each save of this context commits. Keep the token: dropping it, or
    /// calling `cancel()`, stops the calls.
    public func onWillSave(_ handler: @escaping (SaveNotification) -> Void) -> SaveObservation {
        if let partitions { return SaveObservation(combining: partitions.contexts.map { $0.onWillSave(handler) }) }
        return observers.add(phase: .willSave, handler)
    }

    /// Calls `handler` after each save of this context commits (with several stores, after each
    /// store's share commits).
    public func onDidSave(_ handler: @escaping (SaveNotification) -> Void) -> SaveObservation {
        if let partitions { return SaveObservation(combining: partitions.contexts.map { $0.onDidSave(handler) }) }
        return observers.add(phase: .didSave, handler)
    }

    /// Every will-save and did-save of this context, as an AsyncSequence. The stream ends when
    /// the context goes away.
    public var saveNotifications: AsyncStream<SaveNotification> {
        let (stream, continuation) = AsyncStream<SaveNotification>.makeStream(bufferingPolicy: .unbounded)
        for context in partitions?.contexts ?? [self] { context.observers.addStream(continuation) }
        return stream
    }

    /// Tells the handlers, streams and (if the configuration posts them) NotificationCenter.
    /// The notification is made only when someone needs it: its identifiers are the save's
    /// change summary worked out row by row.
    func announce(_ phase: SaveNotification.Phase, _ make: @autoclosure () -> SaveNotification) {
        let posts = container.configuration.postsSaveNotifications
        var notification: SaveNotification?
        if observers.isListening(to: phase) {
            notification = make()
            observers.deliver(notification!)
        }
        guard posts else { return }
        guard phase == .didSave else {
            NotificationCenter.default.post(name: Self.willSave, object: self, userInfo: nil)
            return
        }
        let saved = notification ?? make()
        NotificationCenter.default.post(name: Self.didSave, object: self, userInfo: DidSaveUserInfo.make(saved))
    }
}

/// The posted `didSave`'s userInfo. Made by copying a dictionary that has the keys already and
/// setting the values at their known places: built key by key, each save hashed its four
/// string keys.
private enum DidSaveUserInfo {
    typealias Info = [AnyHashable: Any]

    private struct Template: @unchecked Sendable {
        let info: Info
        let inserted, updated, deleted: Info.Index
        let generation: Info.Index?

        init(withGeneration: Bool) {
            typealias Key = ModelContext.NotificationKey
            var info: Info = [Key.insertedIdentifiers.rawValue: 0, Key.updatedIdentifiers.rawValue: 0,
                              Key.deletedIdentifiers.rawValue: 0]
            if withGeneration { info[Key.queryGeneration.rawValue] = 0 }
            self.info = info
            inserted = info.index(forKey: Key.insertedIdentifiers.rawValue)!
            updated = info.index(forKey: Key.updatedIdentifiers.rawValue)!
            deleted = info.index(forKey: Key.deletedIdentifiers.rawValue)!
            generation = withGeneration ? info.index(forKey: Key.queryGeneration.rawValue)! : nil
        }
    }

    private static let withGeneration = Template(withGeneration: true)
    private static let withoutGeneration = Template(withGeneration: false)

    static func make(_ saved: SaveNotification) -> Info {
        let template = saved.transaction == nil ? withoutGeneration : withGeneration
        // A copy of the template keeps its layout, so its indices hold for the copy.
        var info = template.info
        info.values[template.inserted] = saved.inserted
        info.values[template.updated] = saved.updated
        info.values[template.deleted] = saved.deleted
        if let generation = template.generation, let transaction = saved.transaction { info.values[generation] = transaction }
        return info
    }
}

/// A registration for save callbacks; cancelled when released.
public final class SaveObservation {
    private let cancellation: () -> Void
    init(_ cancellation: @escaping () -> Void) { self.cancellation = cancellation }

    /// One registration for several (a context over several stores).
    convenience init(combining observations: [SaveObservation]) {
        self.init { observations.forEach { $0.cancel() } }
    }
    /// Stops the callbacks; releasing the observation does too.
    public func cancel() { cancellation() }
    deinit { cancellation() }
}

/// The save callbacks and streams of one context. Every access is under `lock`, so none is
/// also checked for exclusivity at run time (each save asks twice whether anyone listens).
final class SaveObservers {
    @exclusivity(unchecked) private var handlers: [Int: (SaveNotification.Phase, (SaveNotification) -> Void)] = [:]
    @exclusivity(unchecked) private var streams: [AsyncStream<SaveNotification>.Continuation] = []
    @exclusivity(unchecked) private var next = 0
    private let lock = NSLock()

    func add(phase: SaveNotification.Phase, _ handler: @escaping (SaveNotification) -> Void) -> SaveObservation {
        let id = lock.withLock {
            next += 1
            handlers[next] = (phase, handler)
            return next
        }
        return SaveObservation { [weak self] in self?.lock.withLock { _ = self?.handlers.removeValue(forKey: id) } }
    }

    func addStream(_ continuation: AsyncStream<SaveNotification>.Continuation) {
        lock.withLock { streams.append(continuation) }
    }

    /// Whether a handler for `phase` or a stream is registered.
    func isListening(to phase: SaveNotification.Phase) -> Bool {
        lock.withLock { !streams.isEmpty || handlers.values.contains { $0.0 == phase } }
    }

    func deliver(_ notification: SaveNotification) {
        let (handlers, streams) = lock.withLock { (Array(self.handlers.values), self.streams) }
        for (phase, handler) in handlers where phase == notification.phase { handler(notification) }
        for stream in streams { stream.yield(notification) }
    }

    deinit {
        for stream in streams { stream.finish() }
    }
}

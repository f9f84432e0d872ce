import Foundation
import GraphStore
import GraphStoreMacrosFree
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// A store directory under the temporary directory, removed when the test is done.
package final class TemporaryStore {
    package let url: URL

    package init() {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("graphstore-models-\(UUID().uuidString)")
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    package func container(_ types: any PersistentModel.Type..., durability: Durability = .none,
                   fileIO: any FileIO = PosixFileIO()) throws -> ModelContainer {
        try ModelContainer(for: types, configurations: ModelConfiguration(url: url, durability: durability, segmentSize: 1 << 20, fileIO: fileIO))
    }
}

/// The POSIX file system, with a hook to wrap the handles it opens: a test changes one call of
/// one kind of file (slow writes, a read that fails once) by wrapping it in a PassThroughHandle subclass.
package final class PassThroughFileIO: FileIO, @unchecked Sendable {
    package let base = PosixFileIO()
    package let wrap: @Sendable (String, any FileHandleIO) -> any FileHandleIO

    package init(wrap: @escaping @Sendable (String, any FileHandleIO) -> any FileHandleIO) { self.wrap = wrap }

    package func open(_ path: String, mode: FileOpenMode) throws -> any FileHandleIO { wrap(path, try base.open(path, mode: mode)) }
    package func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    package func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    package func listDirectory(_ path: String) throws -> [String] { try base.listDirectory(path) }
    package func createDirectory(_ path: String) throws { try base.createDirectory(path) }
    package func removeFile(_ path: String) throws { try base.removeFile(path) }
    package func removeDirectory(_ path: String) throws { try base.removeDirectory(path) }
    package func checkOwnership(ofDirectory path: String) throws { try base.checkOwnership(ofDirectory: path) }
    package func rename(_ from: String, to: String) throws { try base.rename(from, to: to) }
    package func syncDirectory(_ path: String) throws { try base.syncDirectory(path) }
}

/// A file handle that passes every call to another; subclasses override the one they change.
open class PassThroughHandle: FileHandleIO, @unchecked Sendable {
    public let base: any FileHandleIO
    public init(_ base: any FileHandleIO) { self.base = base }
    open var path: String { base.path }
    open func read(at offset: UInt64, count: Int) throws -> [UInt8] { try base.read(at: offset, count: count) }
    open func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int { try base.write(bytes, at: offset) }
    open func sync() throws { try base.sync() }
    open func size() throws -> UInt64 { try base.size() }
    open func truncate(to size: UInt64) throws { try base.truncate(to: size) }
    open func preallocate(to size: UInt64) throws { try base.preallocate(to: size) }
    open func tryLockExclusive() throws -> Bool { try base.tryLockExclusive() }
    open func close() { base.close() }
}

/// Rounds of the tests that race merges against objects and contexts being freed
/// (`GRAPHSTORE_REGISTRY_ROUNDS`, default 300).
package let registryRaceRounds = ProcessInfo.processInfo.environment["GRAPHSTORE_REGISTRY_ROUNDS"].flatMap(Int.init) ?? 300

/// Runs `body` while another thread, with a context of its own, saves `edit`'s changes in a loop
/// (`edit` gets the context and the round), then stops that thread and waits for it.
package func whileCommittingElsewhere(in container: ModelContainer, edit: @escaping @Sendable (ModelContext, Int) -> Void,
                              _ body: () throws -> Void) async throws {
    let stop = Locked(false)
    let writer = Thread {
        let context = ModelContext(container)
        var round = 0
        while !stop.withLock({ $0 }) {
            round += 1
            edit(context, round)
            try? context.save()
        }
    }
    writer.start()
    defer { stop.withLock { $0 = true } }
    try body()
    stop.withLock { $0 = true }
    while !writer.isFinished { try await Task.sleep(for: .milliseconds(1)) }
}

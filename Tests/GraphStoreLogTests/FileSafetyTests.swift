import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A store touches only its own regular files: a symbolic link, a FIFO or another user's
/// directory is refused, never followed, read or written; and what it creates is its owner's
/// alone (0600 files, 0700 directories) unless the configuration widens it.
@Suite struct FileSafetyTests {
    func makeStore(_ dir: TemporaryDirectory, count: Int = 3) throws -> String {
        let store = dir.store()
        let log = try TransactionLog.open(directory: store, options: LogOptions(durability: .none, segmentSize: 1 << 20))
        for i in 0..<count { try log.append([.insert(entity: 0, row: UInt64(i + 1), values: [PropertyValue(0, .int(Int64(i)))])]) }
        log.close()
        return store
    }

    /// Runs `body` on another thread and waits at most `seconds`: nil if it did not finish.
    func finishing<R: Sendable>(within seconds: Double, _ body: @escaping @Sendable () -> R) -> R? {
        let result = Locked<R?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let value = body()
            result.withLock { $0 = value }
            done.signal()
        }.start()
        return done.wait(timeout: .now() + seconds) == .success ? result.value : nil
    }

    @Test func aLockFileThatIsASymbolicLinkIsRefusedAndItsTargetUntouched() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let outside = dir.path + "/precious.txt"
        try Data("precious".utf8).write(to: URL(fileURLWithPath: outside))
        try FileManager.default.removeItem(atPath: store + "/LOCK")
        try FileManager.default.createSymbolicLink(atPath: store + "/LOCK", withDestinationPath: outside)
        #expect(throws: StorageError.notRegularFile(path: store + "/LOCK", kind: "a symbolic link")) {
            _ = try TransactionLog.open(directory: store, options: LogOptions(fileIO: PosixFileIO()))
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == Data("precious".utf8))
    }

    /// A segment that is a symbolic link to a file outside the store, with a torn tail: the
    /// open refuses it, and the file outside is not zeroed.
    @Test func aSegmentThatIsASymbolicLinkIsRefusedAndNeverRepaired() throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        let segment = store + "/" + SegmentFormat.fileName(segment: 1)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: segment))
        let end = bytes.lastIndex { $0 != 0 }!
        for i in (end - 2)...end { bytes[i] = 0 }  // a torn last record
        let outside = dir.path + "/elsewhere.gslog"
        try bytes.write(to: URL(fileURLWithPath: outside))
        try FileManager.default.removeItem(atPath: segment)
        try FileManager.default.createSymbolicLink(atPath: segment, withDestinationPath: outside)
        for readOnly in [false, true] {
            #expect(throws: StorageError.notRegularFile(path: segment, kind: "a symbolic link")) {
                _ = try TransactionLog.open(directory: store, options: LogOptions(readOnly: readOnly))
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: outside)) == bytes)
    }

    /// A FIFO named like a segment, a checkpoint or a blob: opening, inspecting and reading the
    /// store refuse it at once instead of waiting for a writer that never comes.
    @Test(arguments: [SegmentFormat.fileName(segment: 2), "checkpoint-00000000000000000003.gsckpt"])
    func aFIFONamedLikeAStoreFileIsRefusedAtOnce(name: String) throws {
        let dir = TemporaryDirectory()
        let store = try makeStore(dir)
        #expect(mkfifo(store + "/" + name, 0o600) == 0)
        let outcome = finishing(within: 20) { () -> String in
            do {
                _ = try StoreInspection.inspect(directory: store)
                return "opened"
            } catch {
                return "\(error)"
            }
        }
        #expect(outcome?.contains("is a FIFO, not a regular file") == true, "\(outcome ?? "hung")")
    }

    @Test func aStoreDirectoryOfAnotherUserIsRefused() throws {
        let dir = TemporaryDirectory()
        let store: String
        let owner: UInt32
        if geteuid() == 0 {
            store = try makeStore(dir)
            #expect(chown(store, 65_534, 65_534) == 0)
            owner = 65_534
        } else {
            store = "/"  // root's
            owner = 0
        }
        for readOnly in [false, true] {
            #expect(throws: StorageError.notOwned(path: store, owner: owner)) {
                _ = try TransactionLog.open(directory: store, options: LogOptions(readOnly: readOnly))
            }
        }
    }

    /// Every file and directory a store makes, with their modes (permission bits).
    func modes(under path: String) throws -> [String: UInt16] {
        var modes: [String: UInt16] = [:]
        var info = stat()
        for name in [""] + (FileManager.default.subpaths(atPath: path) ?? []) {
            #expect(lstat(path + "/" + name, &info) == 0)
            modes[name] = UInt16(info.st_mode & 0o777)
        }
        return modes
    }

    @Test(arguments: [(FilePermissions.ownerOnly, UInt16(0o600), UInt16(0o700)), (.groupReadable, 0o640, 0o750)])
    func storesAreCreatedWithTheirPermissions(permissions: FilePermissions, file: UInt16, directory: UInt16) throws {
        let dir = TemporaryDirectory()
        let store = dir.store() + "/nested/store"
        let previous = umask(0o022)
        defer { umask(previous) }
        let io = PosixFileIO(permissions: permissions)
        let log = try TransactionLog.open(directory: store, options: LogOptions(durability: .none, fileIO: io))
        try log.append([.insert(entity: 0, row: 1, values: [])])
        _ = try BlobStore(storeDirectory: store, fileIO: io, syncs: false).write(Data(repeating: 7, count: 10))
        log.close()
        let found = try modes(under: store)
        #expect(found[""] == directory)
        #expect(found["blobs"] == directory)
        #expect(found.filter { $0.key != "" && $0.key != "blobs" }.values.allSatisfy { $0 == file }, "\(found)")
        #expect(found.count >= 4)  // the directory, LOCK, a segment, blobs/ and a blob
    }
}

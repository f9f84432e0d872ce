import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

/// A failed write or sync fails every commit it could cover, and a file whose sync failed is
/// never synced again: a commit is acknowledged only when its record is written and (as its
/// durability asks) synced.
@Suite struct LogFailurePathTests {
    let sample: [LogOperation] = [.insert(entity: 1, row: 1, values: [PropertyValue(0, .string("KSFO"))])]

    /// A log on `base` through a fault-injecting file system whose plan is set afterwards;
    /// segments of 64 KiB, preallocated 4 KiB at a time (so a commit can need more space).
    func openFaulty(durability: Durability, base: MemoryFileIO = MemoryFileIO()) throws -> (TransactionLog, FaultInjectingFileIO) {
        let faulty = FaultInjectingFileIO(base: base, plan: FaultPlan())
        var options = LogOptions(durability: durability, segmentSize: 64 << 10, fileIO: faulty)
        options.preallocationStep = 4096
        return (try TransactionLog.open(directory: "/s", options: options), faulty)
    }

    /// A commit big enough to need more preallocated space than the segment has.
    var large: [LogOperation] { [.insert(entity: 1, row: 2, values: [PropertyValue(0, .string(String(repeating: "x", count: 6_000)))])] }

    /// `.none`: a commit reserved before another's reservation failed is never written, so it
    /// must not be acknowledged.
    @Test func aCommitGivenUpAfterAFailedReservationIsNotAcknowledged() throws {
        let base = MemoryFileIO()
        let (log, faulty) = try openFaulty(durability: .none, base: base)
        let first = try log.reserve(sample)
        faulty.setPlan(FaultPlan(failPreallocate: 28))
        #expect(throws: StorageError.diskFull(path: segmentPath("/s", 1))) { try log.reserve(large) }
        #expect(throws: StorageError.writerPoisoned(cause: StorageError.diskFull(path: segmentPath("/s", 1)).description)) {
            try log.write(first)
        }
        log.close()
        #expect(try readAll("/s", fileIO: base).0.isEmpty)
    }

    /// `.full`: after a failed sync, a commit whose record was written but not synced fails
    /// without a second sync of the file.
    @Test func aCommitAfterAFailedSyncFailsWithoutSyncingAgain() throws {
        let (log, faulty) = try openFaulty(durability: .full)
        let first = try log.reserve(sample)
        let second = try log.reserve(sample)
        faulty.setPlan(FaultPlan(failSync: (index: faulty.syncCount, errno: 5)))
        let failure = StorageError.io(operation: "fdatasync", path: segmentPath("/s", 1), errno: 5)
        #expect(throws: failure) { try log.write(first) }
        let syncs = faulty.syncCount
        #expect(throws: StorageError.writerPoisoned(cause: failure.description)) { try log.write(second) }
        #expect(faulty.syncCount == syncs)
        log.close()
        #expect(faulty.syncCount == syncs)
    }

    /// `.full`: two records written in one go (the second handed in by another thread first),
    /// the first one's sync fails: the second, written but covered by no successful sync, fails
    /// too, and nothing syncs the file again.
    @Test func aRecordWrittenBeforeAFailedSyncIsNotAcknowledged() throws {
        let (log, faulty) = try openFaulty(durability: .full)
        let first = try log.reserve(sample)
        let second = try log.reserve(sample)
        let failure = StorageError.io(operation: "fdatasync", path: segmentPath("/s", 1), errno: 5)
        let syncsBefore = faulty.syncCount
        faulty.setPlan(FaultPlan(failSync: (index: syncsBefore, errno: 5)))
        let secondOutcome = Locked<Result<TransactionLog.Receipt, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        Thread {
            let outcome = Result { try log.write(second) }  // waits for `first` to be handed in
            secondOutcome.withLock { $0 = outcome }
            done.signal()
        }.start()
        usleep(50_000)
        #expect(throws: failure) { try log.write(first) }
        done.wait()
        #expect(throws: StorageError.writerPoisoned(cause: failure.description)) { try secondOutcome.value!.get() }
        #expect(faulty.syncCount == syncsBefore + 1)
        log.close()
        #expect(faulty.syncCount == syncsBefore + 1)
    }
}

/// `graphstore replay --into` reports success only once every segment it wrote, and the
/// directory, are durable.
@Suite struct ReplayDurabilityTests {
    /// A file system that records which files and directories were synced.
    final class SyncRecordingFileIO: FileIO, @unchecked Sendable {
        let base = MemoryFileIO()
        let synced = Locked<Set<String>>([])

        final class Handle: FileHandleIO, @unchecked Sendable {
            let base: any FileHandleIO
            let owner: SyncRecordingFileIO
            init(_ base: any FileHandleIO, _ owner: SyncRecordingFileIO) { self.base = base; self.owner = owner }
            var path: String { base.path }
            func read(at offset: UInt64, count: Int) throws -> [UInt8] { try base.read(at: offset, count: count) }
            func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int { try base.write(bytes, at: offset) }
            func sync() throws {
                try base.sync()
                owner.synced.withLock { _ = $0.insert(path) }
            }
            func size() throws -> UInt64 { try base.size() }
            func truncate(to size: UInt64) throws { try base.truncate(to: size) }
            func preallocate(to size: UInt64) throws { try base.preallocate(to: size) }
            func tryLockExclusive() throws -> Bool { try base.tryLockExclusive() }
            func close() { base.close() }
        }

        func open(_ path: String, mode: FileOpenMode) throws -> any FileHandleIO { Handle(try base.open(path, mode: mode), self) }
        func fileExists(_ path: String) -> Bool { base.fileExists(path) }
        func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
        func listDirectory(_ path: String) throws -> [String] { try base.listDirectory(path) }
        func createDirectory(_ path: String) throws { try base.createDirectory(path) }
        func removeFile(_ path: String) throws { try base.removeFile(path) }
        func removeDirectory(_ path: String) throws { try base.removeDirectory(path) }
        func rename(_ from: String, to: String) throws { try base.rename(from, to: to) }
        func syncDirectory(_ path: String) throws {
            try base.syncDirectory(path)
            synced.withLock { _ = $0.insert(path) }
        }
    }

    @Test func replaySyncsEverySegmentAndTheDirectory() throws {
        let io = SyncRecordingFileIO()
        let source = try TransactionLog.open(directory: "/source", options: LogOptions(durability: .none, segmentSize: 4096, fileIO: io))
        for i in 0..<200 {
            try source.append([.insert(entity: 1, row: UInt64(i + 1), values: [PropertyValue(0, .string(String(repeating: "x", count: 60)))])])
        }
        source.close()
        try LogReplay.replay(from: "/source", to: 200, into: "/copy", fileIO: io, segmentSize: 4096)
        let segments = try listSegments(fileIO: io, directory: "/copy")
        #expect(segments.count >= 3)
        let synced = io.synced.value
        for number in segments { #expect(synced.contains("/copy/" + SegmentFormat.fileName(segment: number)), "segment \(number)") }
        #expect(synced.contains("/copy"))
        #expect(try readAll("/copy", fileIO: io).0.count == 200)
    }
}

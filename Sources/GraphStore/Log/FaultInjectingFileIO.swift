import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// What a `FaultInjectingFileIO` does wrong. Counters are zero-based and count every call of that
/// kind through this file system, on any file.
package struct FaultPlan: Sendable {
    /// Every write stores at most this many bytes and reports a short write (callers must loop).
    package var shortWriteLimit: Int?
    /// The write with this index fails with `errno` (EIO = 5, ENOSPC = 28), storing nothing.
    package var failWrite: (index: Int, errno: Int32)?
    /// The sync with this index fails with `errno`.
    package var failSync: (index: Int, errno: Int32)?
    /// Preallocation fails with this errno (ENOSPC is the realistic one).
    package var failPreallocate: Int32?
    /// The process "dies" once this many bytes have been written: the write that crosses the limit
    /// stores only the bytes up to it, and it and every later call throw `StorageError.simulatedCrash`.
    package var crashAfterBytes: Int?
    /// Every sync takes at least this long (to make concurrent commits overlap deterministically).
    package var syncDelay: Duration?

    package init(
        shortWriteLimit: Int? = nil,
        failWrite: (index: Int, errno: Int32)? = nil,
        failSync: (index: Int, errno: Int32)? = nil,
        failPreallocate: Int32? = nil,
        crashAfterBytes: Int? = nil,
        syncDelay: Duration? = nil
    ) {
        self.syncDelay = syncDelay
        self.shortWriteLimit = shortWriteLimit
        self.failWrite = failWrite
        self.failSync = failSync
        self.failPreallocate = failPreallocate
        self.crashAfterBytes = crashAfterBytes
    }
}

/// A FileIO that passes calls to another one and injects the faults of a `FaultPlan`.
package final class FaultInjectingFileIO: FileIO, Sendable {
    package struct Counters {
        package var plan: FaultPlan
        package var writes = 0
        package var syncs = 0
        package var bytesWritten = 0
        package var crashed = false
    }

    package let base: any FileIO
    // Locked (a pthread mutex) rather than Synchronization.Mutex: ThreadSanitizer does not see
    // the latter's futex as synchronisation, and reports every concurrent write and sync.
    package let counters: Locked<Counters>

    package init(base: any FileIO, plan: FaultPlan) {
        self.base = base
        self.counters = Locked(Counters(plan: plan))
    }

    /// Replaces the plan (counters keep counting).
    package func setPlan(_ plan: FaultPlan) { counters.withLock { $0.plan = plan } }

    package var bytesWritten: Int { counters.withLock { $0.bytesWritten } }
    package var syncCount: Int { counters.withLock { $0.syncs } }
    package var writeCount: Int { counters.withLock { $0.writes } }
    package var hasCrashed: Bool { counters.withLock { $0.crashed } }

    package func checkAlive() throws {
        if counters.withLock({ $0.crashed }) { throw StorageError.simulatedCrash }
    }

    package func open(_ path: String, mode: FileOpenMode) throws -> any FileHandleIO {
        try checkAlive()
        return FaultInjectingHandle(base: try base.open(path, mode: mode), owner: self)
    }

    package func fileExists(_ path: String) -> Bool { base.fileExists(path) }
    package func isDirectory(_ path: String) -> Bool { base.isDirectory(path) }
    package func listDirectory(_ path: String) throws -> [String] {
        try checkAlive()
        return try base.listDirectory(path)
    }
    package func createDirectory(_ path: String) throws {
        try checkAlive()
        try base.createDirectory(path)
    }
    package func removeFile(_ path: String) throws {
        try checkAlive()
        try base.removeFile(path)
    }
    package func checkOwnership(ofDirectory path: String) throws { try base.checkOwnership(ofDirectory: path) }
    package func removeDirectory(_ path: String) throws {
        try checkAlive()
        try base.removeDirectory(path)
    }
    package func rename(_ from: String, to: String) throws {
        try checkAlive()
        try base.rename(from, to: to)
    }
    package func syncDirectory(_ path: String) throws {
        try checkAlive()
        try base.syncDirectory(path)
    }
}

package final class FaultInjectingHandle: FileHandleIO, Sendable {
    package let base: any FileHandleIO
    package let owner: FaultInjectingFileIO
    package var path: String { base.path }

    package init(base: any FileHandleIO, owner: FaultInjectingFileIO) {
        self.base = base
        self.owner = owner
    }

    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        try owner.checkAlive()
        return try base.read(at: offset, count: count)
    }

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int {
        enum Decision { case fail(Int32), crash(Int), write(Int) }
        let decision: Decision = try owner.counters.withLock { c in
            if c.crashed { throw StorageError.simulatedCrash }
            defer { c.writes += 1 }
            if let fault = c.plan.failWrite, fault.index == c.writes { return .fail(fault.errno) }
            var count = bytes.count
            if let limit = c.plan.shortWriteLimit { count = min(count, limit) }
            if let crashAt = c.plan.crashAfterBytes, c.bytesWritten + count >= crashAt {
                let allowed = max(0, crashAt - c.bytesWritten)
                c.bytesWritten += allowed
                c.crashed = true
                return .crash(allowed)
            }
            c.bytesWritten += count
            return .write(count)
        }
        switch decision {
        case let .fail(code):
            throw ioError("write", path, code)
        case let .crash(allowed):
            if allowed > 0 { try base.writeAll(UnsafeRawBufferPointer(rebasing: bytes[..<allowed]), at: offset) }
            throw StorageError.simulatedCrash
        case let .write(count):
            try base.writeAll(UnsafeRawBufferPointer(rebasing: bytes[..<count]), at: offset)
            return count
        }
    }

    package func sync() throws {
        let (failure, delay): (Int32?, Duration?) = try owner.counters.withLock { c in
            if c.crashed { throw StorageError.simulatedCrash }
            defer { c.syncs += 1 }
            if let fault = c.plan.failSync, fault.index == c.syncs { return (fault.errno, c.plan.syncDelay) }
            return (nil, c.plan.syncDelay)
        }
        // A failing sync takes its time too, so that other commits come to wait for it.
        if let delay { Thread.sleep(forTimeInterval: Double(delay.components.attoseconds) / 1e18 + Double(delay.components.seconds)) }
        if let code = failure { throw ioError("fdatasync", path, code) }
        try base.sync()
    }

    package func size() throws -> UInt64 {
        try owner.checkAlive()
        return try base.size()
    }

    package func truncate(to size: UInt64) throws {
        try owner.checkAlive()
        try base.truncate(to: size)
    }

    package func preallocate(to size: UInt64) throws {
        try owner.checkAlive()
        if let code = owner.counters.withLock({ $0.plan.failPreallocate }) { throw ioError("fallocate", path, code) }
        try base.preallocate(to: size)
    }

    package func tryLockExclusive() throws -> Bool {
        try owner.checkAlive()
        return try base.tryLockExclusive()
    }

    package func close() { base.close() }
}

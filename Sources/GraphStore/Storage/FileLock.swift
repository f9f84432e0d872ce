#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The store's writer lock: an exclusive advisory lock (flock) on `LOCK`, which also holds the
/// holder's process id so a refused writer can say who has it. The OS drops the lock when the
/// holder exits, however it exits, so a crash never leaves a store locked.
struct FileLock {
    let handle: any FileHandleIO

    static func acquire(directory: String, fileIO: any FileIO) throws -> FileLock {
        let path = joinPath(directory, SegmentFormat.lockFileName)
        let handle = try fileIO.open(path, mode: .create)
        guard try handle.tryLockExclusive() else {
            let text = (try? handle.readAll()).flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first }
            handle.close()
            throw StorageError.locked(path: path, holderPID: text.flatMap { Int32($0) })
        }
        try handle.truncate(to: 0)
        try handle.writeAll(Array("\(getpid())\n".utf8), at: 0)
        return FileLock(handle: handle)
    }

    func release() {
        try? handle.truncate(to: 0)
        handle.close()
    }
}

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
///
/// The holder's pid is written only once its open has succeeded (`recordHolder`): an open that
/// fails leaves `LOCK` as it found it, or removes it if the open made it (`abandon`).
package struct FileLock {
    package let handle: any FileHandleIO
    package let path: String
    package let fileIO: any FileIO
    /// Whether `acquire` made the file.
    package let created: Bool

    /// How long a lock its holder has released (its pid erased) may still be held: see `acquire`.
    package static let releasedLockGraceMilliseconds = 250

    package static func acquire(directory: String, fileIO: any FileIO) throws -> FileLock {
        let path = joinPath(directory, SegmentFormat.lockFileName)
        let created = !fileIO.fileExists(path)
        let handle = try fileIO.open(path, mode: .create)
        var waitedMilliseconds = 0
        while try !handle.tryLockExclusive() {
            let text = (try? handle.readAll()).flatMap { String(decoding: $0, as: UTF8.self).split(separator: "\n").first }
            // A holder writes its pid and erases it when it lets go. A lock without a pid was let
            // go of, but a child process being spawned at that moment holds a copy of the
            // holder's descriptor (and so the lock) until its exec closes it: wait a little for
            // that. A lock with a pid is refused at once.
            if let holder = text.flatMap({ Int32($0) }) {
                handle.close()
                throw StorageError.locked(path: path, holderPID: holder)
            }
            guard waitedMilliseconds < releasedLockGraceMilliseconds else {
                handle.close()
                throw StorageError.locked(path: path, holderPID: nil)
            }
            usleep(1_000)
            waitedMilliseconds += 1
        }
        return FileLock(handle: handle, path: path, fileIO: fileIO, created: created)
    }

    /// Writes this process's id into the lock, for a refused writer's message.
    package func recordHolder() throws {
        try handle.truncate(to: 0)
        try handle.writeAll(Array("\(getpid())\n".utf8), at: 0)
    }

    package func release() {
        try? handle.truncate(to: 0)
        handle.close()
    }

    /// Lets go of the lock of an open that failed, changing nothing it found.
    package func abandon() {
        if created { try? fileIO.removeFile(path) }
        handle.close()
    }
}

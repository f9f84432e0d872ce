import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The modes a store's new files and directories get (the process's umask still applies).
public struct FilePermissions: Sendable, Equatable {
    /// The mode of new files (0600 by default).
    public var file: UInt16
    /// The mode of new directories (0700 by default).
    public var directory: UInt16

    /// Modes for new files and new directories (`0o640`, `0o750`).
    public init(file: UInt16, directory: UInt16) {
        self.file = file
        self.directory = directory
    }

    /// 0600 and 0700: only the owner can read the store (the default).
    public static let ownerOnly = FilePermissions(file: 0o600, directory: 0o700)
    /// 0640 and 0750: the owner's group can read it too.
    public static let groupReadable = FilePermissions(file: 0o640, directory: 0o750)
}

/// The real file system, through POSIX calls.
///
/// Files are opened with `O_NOFOLLOW` and must be regular files: a symbolic link, a FIFO or a
/// device where a store file belongs is refused (`StorageError.notRegularFile`), so a store never
/// writes through a link to a file outside it and never blocks on a FIFO. New files and
/// directories get `permissions` (owner only by default).
public struct PosixFileIO: FileIO {
    /// The modes new files and directories get.
    public let permissions: FilePermissions

    /// Files 0600, directories 0700.
    public init() { self.init(permissions: .ownerOnly) }

    /// The real file system, new files and directories getting `permissions`.
    public init(permissions: FilePermissions) {
        self.permissions = permissions
    }

    /// Opens `path`, refusing anything that is not a regular file: a symbolic link, a FIFO, a
    /// device (`StorageError.notRegularFile`).
    public func open(_ path: String, mode: FileOpenMode) throws -> any FileHandleIO {
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .create: flags = O_RDWR | O_CREAT
        }
        // Non-blocking, so that opening a FIFO returns at once (to be refused below).
        let fd = retryingEINTR { Glibc.open(path, flags | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK, mode_t(permissions.file)) }
        guard fd >= 0 else {
            if errno == ELOOP { throw StorageError.notRegularFile(path: path, kind: "a symbolic link") }
            throw ioError("open", path)
        }
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            let error = ioError("fstat", path)
            Glibc.close(fd)
            throw error
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else {
            Glibc.close(fd)
            throw StorageError.notRegularFile(path: path, kind: fileKind(info.st_mode))
        }
        _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
        return PosixFileHandle(fd: fd, path: path)
    }

    /// Throws `StorageError.notOwned` when another user owns the directory.
    public func checkOwnership(ofDirectory path: String) throws {
        var info = stat()
        guard stat(path, &info) == 0 else { return }  // not there: nothing to own yet
        if info.st_uid != geteuid() { throw StorageError.notOwned(path: path, owner: info.st_uid) }
    }

    /// Whether anything exists at `path`.
    public func fileExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    /// Whether `path` is a directory.
    public func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private var direntNameOffset: Int { MemoryLayout<dirent>.offset(of: \dirent.d_name)! }

    /// The names in a directory, without `.` and `..`.
    public func listDirectory(_ path: String) throws -> [String] {
        guard let dir = opendir(path) else { throw ioError("opendir", path) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            // Read the name in place: glibc packs entries by d_reclen, so the last one in its
            // buffer may be shorter than `dirent`, and copying `entry.pointee` can read past the
            // mapped page (a SIGSEGV seen under CI).
            let name = String(cString: (UnsafeRawPointer(entry) + direntNameOffset).assumingMemoryBound(to: CChar.self))
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// Creates a directory and any missing parents, with `permissions.directory`.
    public func createDirectory(_ path: String) throws {
        if isDirectory(path) { return }
        let parent = parentDirectory(of: path)
        if !parent.isEmpty && parent != path && !isDirectory(parent) { try createDirectory(parent) }
        if mkdir(path, mode_t(permissions.directory)) != 0 && errno != EEXIST { throw ioError("mkdir", path) }
    }

    /// Removes the file at `path` (nothing when there is none).
    public func removeFile(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw ioError("unlink", path) }
    }

    /// Removes an empty directory (nothing when there is none).
    public func removeDirectory(_ path: String) throws {
        if rmdir(path) != 0 && errno != ENOENT { throw ioError("rmdir", path) }
    }

    /// Renames `from` to `to` (`rename(2)`: atomic, replacing what is there).
    public func rename(_ from: String, to: String) throws {
        if Glibc.rename(from, to) != 0 { throw ioError("rename", from) }
    }

    /// Syncs a directory, so that files created, renamed or removed in it are durable.
    public func syncDirectory(_ path: String) throws {
        let fd = retryingEINTR { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw ioError("open directory", path) }
        defer { Glibc.close(fd) }
        if fsync(fd) != 0 { throw ioError("fsync directory", path) }
    }
}

/// What a file that is not a regular file is, in words.
private func fileKind(_ mode: mode_t) -> String {
    switch mode & S_IFMT {
    case S_IFDIR: return "a directory"
    case S_IFIFO: return "a FIFO"
    case S_IFSOCK: return "a socket"
    case S_IFCHR: return "a character device"
    case S_IFBLK: return "a block device"
    case S_IFLNK: return "a symbolic link"
    default: return "not a regular file"
    }
}

package func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// A StorageError for the current errno; ENOSPC becomes `.diskFull`.
package func ioError(_ operation: String, _ path: String, _ code: Int32 = errno) -> StorageError {
    code == ENOSPC ? .diskFull(path: path) : .io(operation: operation, path: path, errno: code)
}

private func retryingEINTR(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

package final class PosixFileHandle: FileHandleIO, Sendable {
    private let fd: Int32
    private let isClosed = Atomic<Bool>(false)
    package let path: String

    package init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close() }

    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        // A large read (a million rows' checkpoint is 150 MB) is mostly the kernel giving the
        // new buffer its pages and copying into them: in pieces read side by side, one per
        // core, it takes about half the time on two. The buffer is not zeroed first (a pass
        // over all of it before the read's own).
        let pieces = count >= Self.sideBySideReadBytes ? max(1, min(ProcessInfo.processInfo.activeProcessorCount, 4)) : 1
        let pieceSize = (count + pieces - 1) / pieces
        return try [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            let base = buffer.baseAddress!
            let read = ResultSlots<Int>(count: pieces), failures = ResultSlots<Int32>(count: pieces)
            runSideBySide((0..<pieces).map { piece in {
                let start = piece * pieceSize, end = min(count, start + pieceSize)
                var done = 0
                while start + done < end {
                    let n = pread(self.fd, base + start + done, end - start - done, off_t(offset) + off_t(start + done))
                    if n < 0 {
                        if errno == EINTR { continue }
                        failures[piece] = errno
                        break
                    }
                    if n == 0 { break }
                    done += n
                }
                read[piece] = done
            } })
            if let code = (0..<pieces).lazy.compactMap({ failures[$0] }).first { throw ioError("read", path, code) }
            // The bytes from the start up to the first piece that came up short (the end of the
            // file, which may have been reached before the last piece).
            var total = 0
            for piece in 0..<pieces {
                let done = read[piece] ?? 0
                total += done
                if done < min(count, (piece + 1) * pieceSize) - piece * pieceSize { break }
            }
            initialized = total
        }
    }

    /// Reads at least this large are made in pieces side by side.
    package static let sideBySideReadBytes = 8 << 20

    package func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        while true {
            let n = pwrite(fd, base, bytes.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw ioError("write", path) }
        }
    }

    package func sync() throws {
        #if canImport(Darwin)
        let result = fsync(fd)
        #else
        let result = fdatasync(fd)
        #endif
        if result != 0 { throw ioError("fdatasync", path) }
    }

    package func size() throws -> UInt64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ioError("fstat", path) }
        return UInt64(info.st_size)
    }

    package func truncate(to size: UInt64) throws {
        if ftruncate(fd, off_t(size)) != 0 { throw ioError("ftruncate", path) }
    }

    package func preallocate(to size: UInt64) throws {
        #if canImport(Darwin)
        if try self.size() < size { try truncate(to: size) }
        #else
        let result = posix_fallocate(fd, 0, off_t(size))
        // Some file systems cannot preallocate; growing the file keeps the same layout.
        if result == EOPNOTSUPP || result == EINVAL {
            if try self.size() < size { try truncate(to: size) }
        } else if result != 0 {
            throw ioError("fallocate", path, result)
        }
        #endif
    }

    package func tryLockExclusive() throws -> Bool {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw ioError("flock", path)
    }

    /// Idempotent; the descriptor also closes when the last reference goes away.
    package func close() {
        if !isClosed.exchange(true, ordering: .acquiringAndReleasing) { _ = Glibc.close(fd) }
    }
}

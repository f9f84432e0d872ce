import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The real file system, through POSIX calls.
public struct PosixFileIO: FileIO {
    public init() {}

    public func open(_ path: String, mode: FileOpenMode) throws -> any FileHandleIO {
        let flags: Int32
        switch mode {
        case .readOnly: flags = O_RDONLY
        case .readWrite: flags = O_RDWR
        case .create: flags = O_RDWR | O_CREAT
        }
        let fd = retryingEINTR { Glibc.open(path, flags | O_CLOEXEC, 0o644) }
        guard fd >= 0 else { throw ioError("open", path) }
        return PosixFileHandle(fd: fd, path: path)
    }

    public func fileExists(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0
    }

    public func isDirectory(_ path: String) -> Bool {
        var info = stat()
        return stat(path, &info) == 0 && (info.st_mode & S_IFMT) == S_IFDIR
    }

    private var direntNameOffset: Int { MemoryLayout<dirent>.offset(of: \dirent.d_name)! }

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

    public func createDirectory(_ path: String) throws {
        if isDirectory(path) { return }
        let parent = parentDirectory(of: path)
        if !parent.isEmpty && parent != path && !isDirectory(parent) { try createDirectory(parent) }
        if mkdir(path, 0o755) != 0 && errno != EEXIST { throw ioError("mkdir", path) }
    }

    public func removeFile(_ path: String) throws {
        if unlink(path) != 0 && errno != ENOENT { throw ioError("unlink", path) }
    }

    public func removeDirectory(_ path: String) throws {
        if rmdir(path) != 0 && errno != ENOENT { throw ioError("rmdir", path) }
    }

    public func rename(_ from: String, to: String) throws {
        if Glibc.rename(from, to) != 0 { throw ioError("rename", from) }
    }

    public func syncDirectory(_ path: String) throws {
        let fd = retryingEINTR { Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        guard fd >= 0 else { throw ioError("open directory", path) }
        defer { Glibc.close(fd) }
        if fsync(fd) != 0 { throw ioError("fsync directory", path) }
    }
}

func parentDirectory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "" }
    return slash == path.startIndex ? "/" : String(path[..<slash])
}

/// A StorageError for the current errno; ENOSPC becomes `.diskFull`.
func ioError(_ operation: String, _ path: String, _ code: Int32 = errno) -> StorageError {
    code == ENOSPC ? .diskFull(path: path) : .io(operation: operation, path: path, errno: code)
}

private func retryingEINTR(_ call: () -> Int32) -> Int32 {
    while true {
        let result = call()
        if result >= 0 || errno != EINTR { return result }
    }
}

final class PosixFileHandle: FileHandleIO, Sendable {
    private let fd: Int32
    private let isClosed = Atomic<Bool>(false)
    let path: String

    init(fd: Int32, path: String) {
        self.fd = fd
        self.path = path
    }

    deinit { close() }

    func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        guard count > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: count)
        var done = 0
        try buffer.withUnsafeMutableBytes { raw in
            while done < count {
                let n = pread(fd, raw.baseAddress! + done, count - done, off_t(offset) + off_t(done))
                if n < 0 {
                    if errno == EINTR { continue }
                    throw ioError("read", path)
                }
                if n == 0 { break }
                done += n
            }
        }
        if done < count { buffer.removeSubrange(done...) }
        return buffer
    }

    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return 0 }
        while true {
            let n = pwrite(fd, base, bytes.count, off_t(offset))
            if n >= 0 { return n }
            if errno != EINTR { throw ioError("write", path) }
        }
    }

    func sync() throws {
        #if canImport(Darwin)
        let result = fsync(fd)
        #else
        let result = fdatasync(fd)
        #endif
        if result != 0 { throw ioError("fdatasync", path) }
    }

    func size() throws -> UInt64 {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw ioError("fstat", path) }
        return UInt64(info.st_size)
    }

    func truncate(to size: UInt64) throws {
        if ftruncate(fd, off_t(size)) != 0 { throw ioError("ftruncate", path) }
    }

    func preallocate(to size: UInt64) throws {
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

    func tryLockExclusive() throws -> Bool {
        if flock(fd, LOCK_EX | LOCK_NB) == 0 { return true }
        if errno == EWOULDBLOCK { return false }
        throw ioError("flock", path)
    }

    /// Idempotent; the descriptor also closes when the last reference goes away.
    func close() {
        if !isClosed.exchange(true, ordering: .acquiringAndReleasing) { _ = Glibc.close(fd) }
    }
}

/// The one seam through which the store touches the file system.
///
/// Every byte GraphStore reads or writes goes through a `FileIO`, so tests can swap in an
/// in-memory file system (`MemoryFileIO`) or one that injects faults (`FaultInjectingFileIO`):
/// short writes, EIO, ENOSPC, failed syncs and a crash after any byte.
public protocol FileIO: Sendable {
    /// Opens (and with `create`, creates) the file at `path`.
    func open(_ path: String, mode: FileOpenMode) throws -> any FileHandleIO
    /// Whether anything exists at `path`.
    func fileExists(_ path: String) -> Bool
    /// Whether `path` is a directory.
    func isDirectory(_ path: String) -> Bool
    /// The names (not paths) of the entries in a directory.
    func listDirectory(_ path: String) throws -> [String]
    /// Creates the directory and its missing parents.
    func createDirectory(_ path: String) throws
    /// Removes the file at `path` (nothing when there is none).
    func removeFile(_ path: String) throws
    /// Removes an empty directory (throws when it is not empty).
    func removeDirectory(_ path: String) throws
    /// Renames `from` to `to`, replacing what is there atomically.
    func rename(_ from: String, to: String) throws
    /// Makes the directory's entries (created, renamed, removed files) durable.
    func syncDirectory(_ path: String) throws
    /// Throws `StorageError.notOwned` when the directory at `path` belongs to another user (a
    /// store is opened only by its owner); nothing when there is no directory there yet.
    func checkOwnership(ofDirectory path: String) throws
}

/// How a file is opened.
public enum FileOpenMode: Sendable {
    /// For reading only.
    case readOnly
    /// For reading and writing; the file must exist.
    case readWrite
    /// Read-write, creating an empty file when there is none.
    case create
}

/// An open file. Reads and writes are positional (pread/pwrite), so one handle serves several threads.
public protocol FileHandleIO: AnyObject, Sendable {
    /// The path the handle was opened with (for error messages).
    var path: String { get }
    /// Reads up to `count` bytes at `offset`; fewer at the end of the file.
    func read(at offset: UInt64, count: Int) throws -> [UInt8]
    /// Writes some prefix of `bytes` at `offset` and returns how many were written (may be short).
    func write(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int
    /// Makes the file's data durable (fdatasync).
    func sync() throws
    /// The file's size in bytes.
    func size() throws -> UInt64
    /// Cuts the file to `size` bytes.
    func truncate(to size: UInt64) throws
    /// Reserves disk space up to `size` bytes so later writes inside it need not grow the file.
    func preallocate(to size: UInt64) throws
    /// Takes an exclusive advisory lock without waiting; false when another holder has it.
    func tryLockExclusive() throws -> Bool
    /// Closes the handle; later calls fail.
    func close()
}

extension FileHandleIO {
    /// Writes all of `bytes`, continuing after short writes.
    public func writeAll(_ bytes: UnsafeRawBufferPointer, at offset: UInt64) throws {
        var done = 0
        while done < bytes.count {
            let rest = UnsafeRawBufferPointer(rebasing: bytes[done...])
            let n = try write(rest, at: offset + UInt64(done))
            if n <= 0 { throw StorageError.io(operation: "write", path: path, errno: 5) }
            done += n
        }
    }

    /// Writes all of `bytes` at `offset`, continuing after short writes.
    public func writeAll(_ bytes: [UInt8], at offset: UInt64) throws {
        try bytes.withUnsafeBytes { try writeAll($0, at: offset) }
    }

    /// Reads the whole file.
    public func readAll() throws -> [UInt8] {
        let total = try size()
        guard total > 0 else { return [] }
        return try read(at: 0, count: Int(total))
    }
}

extension FileIO {
    /// File systems without owners (in memory) own everything.
    public func checkOwnership(ofDirectory path: String) throws {}

    /// Removes `path` if it is a directory with nothing in it (a failed open's own directory).
    package func removeDirectoryIfEmpty(_ path: String) throws {
        guard isDirectory(path), try listDirectory(path).isEmpty else { return }
        try removeDirectory(path)
    }

    /// The whole file at `path`.
    package func readFile(_ path: String) throws -> [UInt8] {
        let handle = try open(path, mode: .readOnly)
        defer { handle.close() }
        return try handle.readAll()
    }

    /// The size of the file at `path`, preallocated space included.
    package func fileSize(_ path: String) throws -> UInt64 {
        let handle = try open(path, mode: .readOnly)
        defer { handle.close() }
        return try handle.size()
    }
}

/// Joins path components with "/".
package func joinPath(_ directory: String, _ name: String) -> String {
    directory.hasSuffix("/") ? directory + name : directory + "/" + name
}

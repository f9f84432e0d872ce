import Synchronization

/// An in-memory file system: fast, isolated stores for tests (every-offset damage runs thousands
/// of opens) and the backing of in-memory fault injection. Files live as long as the instance.
@_spi(GraphStoreInternals) public final class MemoryFileIO: FileIO, Sendable {
    private struct State {
        package var files: [String: [UInt8]] = [:]
        package var directories: Set<String> = ["/"]
        package var locks: [String: ObjectIdentifier] = [:]
    }

    private let state = Mutex(State())

    /// An empty file system.
    @_spi(GraphStoreInternals) public init() {}

    /// The current bytes of a file (for tests that damage or inspect files).
    @_spi(GraphStoreInternals) public func contents(of path: String) -> [UInt8]? {
        state.withLock { $0.files[path] }
    }

    /// Replaces a file's bytes (for tests that damage files).
    @_spi(GraphStoreInternals) public func setContents(of path: String, to bytes: [UInt8]) {
        state.withLock { $0.files[path] = bytes }
    }

    /// A deep copy, for running many damaged variants of one store.
    @_spi(GraphStoreInternals) public func copy() -> MemoryFileIO {
        let clone = MemoryFileIO()
        let snapshot = state.withLock { ($0.files, $0.directories) }
        clone.state.withLock {
            $0.files = snapshot.0
            $0.directories = snapshot.1
        }
        return clone
    }

    public func open(_ path: String, mode: FileOpenMode) throws -> any FileHandleIO {
        try state.withLock { state in
            if state.files[path] == nil {
                guard mode == .create else { throw StorageError.io(operation: "open", path: path, errno: 2) }
                guard state.directories.contains(parentDirectory(of: path)) else {
                    throw StorageError.io(operation: "open", path: path, errno: 2)
                }
                state.files[path] = []
            }
        }
        return MemoryFileHandle(fileSystem: self, path: path, writable: mode != .readOnly)
    }

    public func fileExists(_ path: String) -> Bool {
        state.withLock { $0.files[path] != nil || $0.directories.contains(path) }
    }

    public func isDirectory(_ path: String) -> Bool {
        state.withLock { $0.directories.contains(path) }
    }

    public func listDirectory(_ path: String) throws -> [String] {
        try state.withLock { state in
            guard state.directories.contains(path) else {
                throw StorageError.io(operation: "opendir", path: path, errno: 2)
            }
            let prefix = path.hasSuffix("/") ? path : path + "/"
            let names = (Array(state.files.keys) + Array(state.directories)).compactMap { entry -> String? in
                guard entry.hasPrefix(prefix) else { return nil }
                let rest = entry.dropFirst(prefix.count)
                return rest.isEmpty || rest.contains("/") ? nil : String(rest)
            }
            return names.sorted()
        }
    }

    public func createDirectory(_ path: String) throws {
        state.withLock { state in
            var current = path
            while !current.isEmpty && current != "/" {
                state.directories.insert(current)
                current = parentDirectory(of: current)
            }
        }
    }

    public func removeFile(_ path: String) throws {
        _ = state.withLock { $0.files.removeValue(forKey: path) }
    }

    public func removeDirectory(_ path: String) throws {
        try state.withLock { state in
            let prefix = path.hasSuffix("/") ? path : path + "/"
            guard !state.files.keys.contains(where: { $0.hasPrefix(prefix) }),
                  !state.directories.contains(where: { $0.hasPrefix(prefix) }) else {
                throw StorageError.io(operation: "rmdir", path: path, errno: 39)
            }
            state.directories.remove(path)
        }
    }

    public func rename(_ from: String, to: String) throws {
        try state.withLock { state in
            guard let bytes = state.files.removeValue(forKey: from) else {
                throw StorageError.io(operation: "rename", path: from, errno: 2)
            }
            state.files[to] = bytes
        }
    }

    public func syncDirectory(_ path: String) throws {}

    fileprivate func withFile<R>(_ path: String, _ body: (inout [UInt8]) throws -> R) throws -> R {
        try state.withLock { state in
            guard state.files[path] != nil else { throw StorageError.io(operation: "access", path: path, errno: 2) }
            return try body(&state.files[path]!)
        }
    }

    fileprivate func lock(_ path: String, owner: ObjectIdentifier) -> Bool {
        state.withLock { state in
            if let holder = state.locks[path] { return holder == owner }
            state.locks[path] = owner
            return true
        }
    }

    fileprivate func unlock(_ path: String, owner: ObjectIdentifier) {
        state.withLock { state in
            if state.locks[path] == owner { state.locks[path] = nil }
        }
    }
}

package final class MemoryFileHandle: FileHandleIO, Sendable {
    package let path: String
    private let fileSystem: MemoryFileIO
    private let writable: Bool

    package init(fileSystem: MemoryFileIO, path: String, writable: Bool) {
        self.fileSystem = fileSystem
        self.path = path
        self.writable = writable
    }

    deinit { close() }

    package func read(at offset: UInt64, count: Int) throws -> [UInt8] {
        try fileSystem.withFile(path) { bytes in
            guard offset < UInt64(bytes.count), count > 0 else { return [] }
            let start = Int(offset)
            return Array(bytes[start..<min(bytes.count, start + count)])
        }
    }

    package func write(_ source: UnsafeRawBufferPointer, at offset: UInt64) throws -> Int {
        guard writable else { throw StorageError.io(operation: "write", path: path, errno: 9) }
        guard !source.isEmpty else { return 0 }
        return try fileSystem.withFile(path) { bytes in
            let end = Int(offset) + source.count
            if bytes.count < end { bytes.append(contentsOf: [UInt8](repeating: 0, count: end - bytes.count)) }
            bytes.withUnsafeMutableBytes { target in
                target.baseAddress!.advanced(by: Int(offset)).copyMemory(from: source.baseAddress!, byteCount: source.count)
            }
            return source.count
        }
    }

    package func sync() throws {}

    package func size() throws -> UInt64 {
        try fileSystem.withFile(path) { UInt64($0.count) }
    }

    package func truncate(to size: UInt64) throws {
        try fileSystem.withFile(path) { bytes in
            if bytes.count > Int(size) {
                bytes.removeSubrange(Int(size)...)
            } else {
                bytes.append(contentsOf: [UInt8](repeating: 0, count: Int(size) - bytes.count))
            }
        }
    }

    package func preallocate(to size: UInt64) throws {
        try fileSystem.withFile(path) { bytes in
            if bytes.count < Int(size) { bytes.append(contentsOf: [UInt8](repeating: 0, count: Int(size) - bytes.count)) }
        }
    }

    package func tryLockExclusive() throws -> Bool {
        fileSystem.lock(path, owner: ObjectIdentifier(self))
    }

    package func close() {
        fileSystem.unlock(path, owner: ObjectIdentifier(self))
    }
}

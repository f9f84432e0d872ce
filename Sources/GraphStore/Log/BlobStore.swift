import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
import Synchronization

/// Blob files of `.externalStorage` attributes, in the store's `blobs/` directory
/// (Docs/FILE-FORMAT.md, "Blob files"): `<UUID>.blob`, a 24-byte header then the bytes.
///
///     0   8  magic "GSBLOB\r\n"
///     8   8  length of the bytes (u64 LE)
///     16  4  masked CRC-32C of the bytes (u32 LE)
///     20  4  masked CRC-32C of bytes 0..<20 (u32 LE)
///
/// A commit's blobs are written and synced (with their directory) before the commit record
/// that names them, so a committed reference always finds its file. Files no commit names
/// (a failed save's) are removed by compaction.
package final class BlobStore: Sendable {
    package static let directoryName = "blobs"
    package static let magic: [UInt8] = Array("GSBLOB\r\n".utf8)
    package static let headerSize = 24
    package static let fileExtension = ".blob"

    package let directory: String
    private let fileIO: any FileIO
    private let syncs: Bool
    private let failures = Mutex<[String]>([])

    /// Reads that failed (a missing or damaged file), each naming the object, attribute and file.
    package var readFailures: [String] { failures.withLock { $0 } }

    package init(storeDirectory: String, fileIO: any FileIO, syncs: Bool) {
        directory = joinPath(storeDirectory, Self.directoryName)
        self.fileIO = fileIO
        self.syncs = syncs
    }

    package enum Failure: Error, Equatable, Sendable, CustomStringConvertible {
        case missing(path: String)
        case damaged(path: String, reason: String)

        package var description: String {
            switch self {
            case let .missing(path): return "blob file \(path) is missing"
            case let .damaged(path, reason): return "blob file \(path) is damaged: \(reason)"
            }
        }
    }

    package func path(of id: UUID) -> String { joinPath(directory, id.uuidString + Self.fileExtension) }

    /// Writes `data` to a new blob file (synced unless the store's durability is `.none`).
    /// Call `syncDirectory()` once after a commit's blobs, before the commit.
    package func write(_ data: Data) throws -> BlobReference {
        if !fileIO.isDirectory(directory) {
            try fileIO.createDirectory(directory)
            if syncs { try fileIO.syncDirectory(joinPath(directory, "..")) }
        }
        let checksum = data.withUnsafeBytes { CRC32C.mask(CRC32C.checksum($0)) }
        let reference = BlobReference(id: UUID(), length: UInt64(data.count), checksum: checksum)
        var header = ByteWriter(capacity: Self.headerSize)
        header.raw(Self.magic)
        header.u64(reference.length)
        header.u32(checksum)
        header.u32(CRC32C.mask(CRC32C.checksum(header.bytes)))
        let handle = try fileIO.open(path(of: reference.id), mode: .create)
        defer { handle.close() }
        try handle.writeAll(header.bytes, at: 0)
        try data.withUnsafeBytes { try handle.writeAll($0, at: UInt64(Self.headerSize)) }
        if syncs { try handle.sync() }
        return reference
    }

    package func syncDirectory() throws {
        if syncs, fileIO.isDirectory(directory) { try fileIO.syncDirectory(directory) }
    }

    /// The bytes of a blob for a read of `object`'s value: a missing or damaged file reads as
    /// nil (the property's initial value) and is recorded in `readFailures`, naming `object`,
    /// for `graphstore verify` and `ModelContainer.blobReadFailures`.
    package func value(of reference: BlobReference, readFor object: @autoclosure () -> String) -> Data? {
        do {
            return try read(reference)
        } catch {
            failures.withLock { $0.append("\(object()): \(error)") }
            return nil
        }
    }

    /// The bytes of a blob, checked against the file's header and the reference.
    package func read(_ reference: BlobReference) throws -> Data {
        let path = path(of: reference.id)
        guard fileIO.fileExists(path) else { throw Failure.missing(path: path) }
        let bytes = try fileIO.readFile(path)
        return try bytes.withUnsafeBytes { raw in
            guard raw.count >= Self.headerSize, raw.prefix(8).elementsEqual(Self.magic) else {
                throw Failure.damaged(path: path, reason: "bad header")
            }
            var r = ByteReader(raw, offset: 8)
            let length = try r.u64()
            let checksum = try r.u32()
            let headerChecksum = try r.u32()
            guard headerChecksum == CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[..<20]))) else {
                throw Failure.damaged(path: path, reason: "header checksum mismatch")
            }
            guard length == reference.length, checksum == reference.checksum else {
                throw Failure.damaged(path: path, reason: "holds \(length) bytes with checksum \(checksum); the log names \(reference.length) bytes with checksum \(reference.checksum)")
            }
            guard UInt64(raw.count - Self.headerSize) == length else {
                throw Failure.damaged(path: path, reason: "\(raw.count - Self.headerSize) bytes where the header says \(length)")
            }
            let body = UnsafeRawBufferPointer(rebasing: raw[Self.headerSize...])
            guard CRC32C.mask(CRC32C.checksum(body)) == checksum else { throw Failure.damaged(path: path, reason: "checksum mismatch") }
            return Data(body)
        }
    }

    /// The blob files present.
    package func list() throws -> [UUID] {
        guard fileIO.isDirectory(directory) else { return [] }
        return try fileIO.listDirectory(directory).compactMap { name in
            guard name.hasSuffix(Self.fileExtension) else { return nil }
            return UUID(uuidString: String(name.dropLast(Self.fileExtension.count)))
        }
    }

    package func remove(_ id: UUID) throws { try fileIO.removeFile(path(of: id)) }
}

extension Value {
    /// Every blob reference inside this value.
    package var blobReferences: [BlobReference] {
        switch self {
        case let .blob(reference): return [reference]
        case let .array(items): return items.flatMap(\.blobReferences)
        case let .dictionary(entries): return entries.values.flatMap(\.blobReferences)
        default: return []
        }
    }
}

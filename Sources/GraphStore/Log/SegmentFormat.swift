@_spi(GraphStoreInternals) import GraphStoreCore

/// The layout of a store directory and of a segment file's header (Docs/FILE-FORMAT.md).
///
/// A store directory holds `LOCK` and segment files `log-<20-digit segment number>.gslog`.
/// Each segment starts with a 32-byte header:
///
///     0   8  magic "GSLOG\r\n\u{1A}"
///     8   2  format version (u16 LE)
///     10  2  flags (0)
///     12  8  segment number (u64 LE)
///     20  8  number of the last transaction before this segment (u64 LE)
///     28  4  masked CRC-32C of bytes 0..<28 (u32 LE)
@_spi(GraphStoreInternals) public enum SegmentFormat {
    package static let magic: [UInt8] = Array("GSLOG\r\n".utf8) + [0x1A]
    package static let formatVersion: UInt16 = 1
    /// The size of a segment's header, in bytes.
    @_spi(GraphStoreInternals) public static let headerSize = 32
    package static let fileExtension = ".gslog"
    package static let lockFileName = "LOCK"

    package static let names = NumberedFileName(prefix: "log-", fileExtension: fileExtension)

    /// The name of segment number `segment`.
    @_spi(GraphStoreInternals) public static func fileName(segment: UInt64) -> String { names.name(segment) }

    /// The segment number in a segment file name, or nil for any other file.
    package static func segmentNumber(fileName: String) -> UInt64? { names.number(in: fileName) }

    /// What a segment's header says: its number, and the last transaction before its first record.
    @_spi(GraphStoreInternals) public struct Header: Equatable, Sendable {
        package var segment: UInt64
        package var previousTransaction: UInt64

        /// A header for segment `segment`, following `previousTransaction`.
        @_spi(GraphStoreInternals) public init(segment: UInt64, previousTransaction: UInt64) {
            self.segment = segment
            self.previousTransaction = previousTransaction
        }
    }

    /// The header's bytes, as a segment starts.
    @_spi(GraphStoreInternals) public static func encodeHeader(_ header: Header) -> [UInt8] {
        var w = ByteWriter(capacity: headerSize)
        w.raw(magic)
        w.u16(formatVersion)
        w.u16(0)
        w.u64(header.segment)
        w.u64(header.previousTransaction)
        w.u32(CRC32C.mask(CRC32C.checksum(w.bytes)))
        return w.bytes
    }

    package enum HeaderProblem: Error, Equatable {
        /// Fewer bytes than a header, or all zero: a segment whose creation did not finish.
        case incomplete
        case invalid(String)
        case unsupportedVersion(UInt16)
    }

    package static func decodeHeader(_ bytes: UnsafeRawBufferPointer) -> Result<Header, HeaderProblem> {
        guard bytes.count >= headerSize else { return .failure(.incomplete) }
        let head = UnsafeRawBufferPointer(rebasing: bytes[..<headerSize])
        if head.allSatisfy({ $0 == 0 }) { return .failure(.incomplete) }
        guard head.prefix(8).elementsEqual(magic) else { return .failure(.invalid("bad magic")) }
        var r = ByteReader(head, offset: 8)
        do {
            let version = try r.u16()
            _ = try r.u16()
            let segment = try r.u64()
            let previous = try r.u64()
            let stored = try r.u32()
            let computed = CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: head[..<28])))
            guard stored == computed else { return .failure(.invalid("header checksum mismatch")) }
            guard version <= formatVersion else { return .failure(.unsupportedVersion(version)) }
            return .success(Header(segment: segment, previousTransaction: previous))
        } catch {
            return .failure(.invalid("\(error)"))
        }
    }
}

/// Record framing inside a segment:
///
///     0  4  payload length n (u32 LE)
///     4  4  masked CRC-32C of the kind byte and the payload (u32 LE)
///     8  1  kind (1 = transaction)
///     9  n  payload
///
/// A header of nine zero bytes marks the unwritten (preallocated) end of a segment.
@_spi(GraphStoreInternals) public enum RecordFormat {
    @_spi(GraphStoreInternals) public static let headerSize = 9
    /// The largest payload a record may carry.
    package static let maximumPayload = Int(UInt32.max) - 64

    package enum Kind: UInt8, Sendable {
        /// A committed transaction (log segments).
        case transaction = 1
        /// Checkpoint files: the schema history, one entity's rows and relationships, the closing
        /// record, and one attribute's column (after its entity's table record).
        case checkpointSchemas = 2
        case checkpointTable = 3
        case checkpointEnd = 4
        case checkpointColumn = 5
    }

    /// The kinds a log segment may hold, and those a checkpoint file may hold.
    package static let logKinds: ClosedRange<UInt8> = 1...1
    package static let checkpointKinds: ClosedRange<UInt8> = 2...5

    /// A record's header: the payload's length, its masked checksum (`checksum`), the kind.
    package static func header(payloadLength: Int, maskedChecksum: UInt32, kind: UInt8) -> [UInt8] {
        var header = ByteWriter(capacity: headerSize)
        header.u32(UInt32(payloadLength))
        header.u32(maskedChecksum)
        header.u8(kind)
        return header.bytes
    }

    /// Throws unless a payload of `length` bytes fits a record.
    package static func checkPayload(_ length: Int) throws {
        guard length <= maximumPayload else { throw StorageError.transactionTooLarge(bytes: length, limit: maximumPayload) }
    }

    /// The masked CRC-32C of a record's kind byte and payload, as its header holds it.
    @_spi(GraphStoreInternals) public static func checksum(kind: UInt8, payload: UnsafeRawBufferPointer) -> UInt32 {
        var crc = withUnsafeBytes(of: kind) { CRC32C.update(0, $0) }
        crc = CRC32C.update(crc, payload)
        return CRC32C.mask(crc)
    }
}

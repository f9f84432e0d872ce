import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// A transaction's record on its way to the log: its bytes, or, for a record too large to hold
/// beside the changes it is made of, the changes themselves (`StreamedRecord`).
enum LogRecord: Sendable {
    case whole(WrittenBytes)
    case streamed(StreamedRecord)

    /// The record's size in the log, header included.
    var count: Int {
        switch self {
        case let .whole(bytes): bytes.count
        case let .streamed(record): record.count
        }
    }
}

/// A record written as it is encoded, a piece at a time, never held whole.
///
/// A save of a million rows makes a record of a hundred megabytes, encoded from columns the
/// transaction holds anyway until the graph has applied them; held whole, it stood beside them
/// and beside the objects being saved, at the save's peak of memory. Streamed, its changes are
/// encoded twice: once to be measured and checksummed (its header, and its place in the log,
/// need both), once as they are written, header first, as any record is: a crash part way
/// leaves a record whose checksum fails, as a torn single write does. The measuring pass runs
/// before the transaction has its number; the checksum is then adjusted for the number
/// (CRC-32C is linear: only the number's eight bytes differ). Only for changes nothing alters
/// between the two encodings: written before the graph applies them (a save's insert blocks
/// let their columns go as they are applied).
struct StreamedRecord: Sendable {
    let changes: TransactionChanges
    let author: String
    let timestampMicros: Int64
    let number: UInt64
    let payloadLength: Int
    /// The CRC-32C (unmasked) of the kind byte and the payload as numbered.
    let checksum: UInt32

    /// About how much of the payload is encoded before it is handed on.
    static let pieceSize = 1 << 20
    private static let kind = RecordFormat.Kind.transaction.rawValue

    /// `changes` measured and checksummed as transaction 0 (`numbered(_:)` gives the number).
    init(measuring changes: TransactionChanges, author: String, timestampMicros: Int64) {
        var length = 0
        var crc = withUnsafeBytes(of: Self.kind) { CRC32C.update(0, $0) }
        TransactionCodec.encode(changes, author: author, timestampMicros: timestampMicros, number: 0,
                                pieceSize: Self.pieceSize) { piece in
            length += piece.count
            crc = CRC32C.update(crc, piece)
        }
        self.init(changes: changes, author: author, timestampMicros: timestampMicros, number: 0, payloadLength: length, checksum: crc)
    }

    private init(changes: TransactionChanges, author: String, timestampMicros: Int64, number: UInt64, payloadLength: Int, checksum: UInt32) {
        self.changes = changes
        self.author = author
        self.timestampMicros = timestampMicros
        self.number = number
        self.payloadLength = payloadLength
        self.checksum = checksum
    }

    /// The record as transaction `number`: for a fixed length, crc(a ^ b) = crc(a) ^ crc(b) ^
    /// crc(zeros), and the numbered record is the measured one ^ the number's bytes in place.
    func numbered(_ number: UInt64) -> StreamedRecord {
        let length = 1 + payloadLength, at = 1 + TransactionCodec.numberOffset
        let numberBytes = withUnsafeBytes(of: (number ^ self.number).littleEndian) { Array($0) }
        let difference = Self.checksumOfZeros(length, except: numberBytes, at: at)
        let adjusted = checksum ^ difference ^ Self.checksumOfZeros(length, except: [], at: 0)
        return StreamedRecord(changes: changes, author: author, timestampMicros: timestampMicros, number: number,
                              payloadLength: payloadLength, checksum: adjusted)
    }

    /// The CRC-32C of `count` zero bytes but for `bytes` at `offset`.
    private static func checksumOfZeros(_ count: Int, except bytes: [UInt8], at offset: Int) -> UInt32 {
        let zeros = [UInt8](repeating: 0, count: min(count, pieceSize))
        func overZeros(_ crc: UInt32, _ n: Int) -> UInt32 {
            var crc = crc, left = n
            zeros.withUnsafeBytes { zeros in
                while left > 0 {
                    let take = min(left, zeros.count)
                    crc = CRC32C.update(crc, UnsafeRawBufferPointer(rebasing: zeros[0..<take]))
                    left -= take
                }
            }
            return crc
        }
        var crc = overZeros(0, offset)
        crc = bytes.withUnsafeBytes { CRC32C.update(crc, $0) }
        return overZeros(crc, count - offset - bytes.count)
    }

    var count: Int { RecordFormat.headerSize + payloadLength }

    /// Writes the header, then the payload as it is encoded.
    func write(to handle: any FileHandleIO, at offset: UInt64) throws {
        try handle.writeAll(RecordFormat.header(payloadLength: payloadLength, maskedChecksum: CRC32C.mask(checksum), kind: Self.kind),
                            at: offset)
        var crc = withUnsafeBytes(of: Self.kind) { CRC32C.update(0, $0) }
        var position = offset + UInt64(RecordFormat.headerSize), written = 0
        var failure: (any Error)?
        TransactionCodec.encode(changes, author: author, timestampMicros: timestampMicros, number: number,
                                pieceSize: Self.pieceSize) { piece in
            guard failure == nil else { return }
            crc = CRC32C.update(crc, piece)
            do { try handle.writeAll(piece, at: position) } catch { failure = error }
            position += UInt64(piece.count)
            written += piece.count
        }
        if let failure { throw failure }
        // Encoded otherwise than measured, the record on disk fails its checksum (recovery
        // takes it for a torn write); the commit must not be acknowledged.
        guard written == payloadLength, crc == checksum else {
            throw StorageError.damagedTransaction(number: number, reason: "its changes encoded otherwise when written than when measured")
        }
    }
}

@_spi(GraphStoreInternals) import GraphStoreCore

/// Reads the records of one segment's bytes, in order, and says exactly where and why it stopped.
///
/// The scanner never trusts a length or count it read: every bound is checked, so any bytes
/// produce transactions and a stop reason, never a trap.
package struct SegmentScanner {
    package enum Stop: Equatable {
        /// Only zero bytes (preallocated space) or nothing follow the last record.
        case cleanEnd
        /// The bytes at `offset` are not a valid next record.
        case damaged(offset: Int, reason: String)
    }

    package struct Result {
        /// The offset just past the last good record.
        package var end: Int
        package var stop: Stop
        /// The number of the last good transaction (the starting one when there was none).
        package var lastTransaction: UInt64
        package var lastTimestampMicros: Int64?
        package var transactionCount: Int
    }

    /// Scans records from `start`, expecting transaction `previousTransaction + 1` first,
    /// handing each good one to `body`. Transactions up to `skipThrough` (which a checkpoint
    /// already holds) are checked (framing, checksum, number) but not decoded or handed over.
    package static func scan(
        _ bytes: UnsafeRawBufferPointer,
        from start: Int,
        previousTransaction: UInt64,
        skipThrough: UInt64 = 0,
        body: (LogTransaction) throws -> Void
    ) rethrows -> Result {
        var offset = start
        var last = previousTransaction
        var lastTime: Int64?
        var count = 0
        func result(_ stop: Stop) -> Result {
            Result(end: offset, stop: stop, lastTransaction: last, lastTimestampMicros: lastTime, transactionCount: count)
        }
        while true {
            let remaining = bytes.count - offset
            if remaining == 0 { return result(.cleanEnd) }
            if remaining < RecordFormat.headerSize {
                return result(isZero(bytes, from: offset) ? .cleanEnd : .damaged(offset: offset, reason: "truncated record header"))
            }
            // Covered by a checkpoint: only the framing and the number are checked (a damaged
            // payload there changes nothing; damaged framing still stops the scan below).
            if last &+ 1 <= skipThrough, let next = skippableRecord(bytes, at: offset, number: last &+ 1) {
                last = next.number
                lastTime = next.time
                count += 1
                offset = next.offset
                continue
            }
            switch decodeRecord(bytes, at: offset) {
            case .zeroHeader:
                if isZero(bytes, from: offset) { return result(.cleanEnd) }
                return result(.damaged(offset: offset, reason: "zero record header followed by data"))
            case let .invalid(reason):
                return result(.damaged(offset: offset, reason: reason))
            case let .record(payload, next):
                let transaction: LogTransaction
                do {
                    transaction = try TransactionCodec.decode(payload)
                } catch {
                    return result(.damaged(offset: offset, reason: "undecodable transaction: \(error)"))
                }
                guard transaction.number == last &+ 1 else {
                    return result(.damaged(offset: offset, reason: "transaction \(transaction.number) where \(last &+ 1) was expected"))
                }
                try body(transaction)
                last = transaction.number
                lastTime = transaction.timestampMicros
                count += 1
                offset = next
            }
        }
    }

    /// A well-framed transaction record numbered `number` at `offset`: where the next record
    /// starts and its commit time. Checks no checksum.
    package static func skippableRecord(_ bytes: UnsafeRawBufferPointer, at offset: Int, number: UInt64) -> (offset: Int, number: UInt64, time: Int64)? {
        guard bytes.count - offset >= RecordFormat.headerSize + 17, bytes[offset + 8] == RecordFormat.Kind.transaction.rawValue else { return nil }
        let length = Int(bytes.littleEndian(UInt32.self, at: offset))
        let start = offset + RecordFormat.headerSize
        guard length >= 17, length <= bytes.count - start, TransactionCodec.readableVersions.contains(bytes[start]) else { return nil }
        let found = bytes.littleEndian(UInt64.self, at: start + TransactionCodec.numberOffset)
        guard found == number else { return nil }
        let time = Int64(bitPattern: bytes.littleEndian(UInt64.self, at: start + 9))
        return (start + length, found, time)
    }

    package enum RecordDecoding {
        case zeroHeader
        case invalid(String)
        case record(payload: UnsafeRawBufferPointer, next: Int)
    }

    /// Frames and checks one record at `offset`.
    package static func decodeRecord(_ bytes: UnsafeRawBufferPointer, at offset: Int,
                             kinds: ClosedRange<UInt8> = RecordFormat.logKinds) -> RecordDecoding {
        guard offset >= 0, bytes.count - offset >= RecordFormat.headerSize else { return .invalid("truncated record header") }
        let length = Int(bytes.littleEndian(UInt32.self, at: offset))
        let storedCRC = bytes.littleEndian(UInt32.self, at: offset + 4)
        let kind = bytes[offset + 8]
        if length == 0 && storedCRC == 0 && kind == 0 { return .zeroHeader }
        guard kinds.contains(kind) else { return .invalid("unknown record kind \(kind)") }
        let payloadStart = offset + RecordFormat.headerSize
        guard length <= bytes.count - payloadStart else {
            return .invalid("record length \(length) runs past the end of the segment")
        }
        let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart..<(payloadStart + length)])
        guard RecordFormat.checksum(kind: kind, payload: payload) == storedCRC else {
            return .invalid("record checksum mismatch")
        }
        return .record(payload: payload, next: payloadStart + length)
    }

    /// The offset of the first well-framed record (valid checksum) strictly after `offset`, if any.
    /// Used to tell a torn tail (nothing valid follows) from damage in the middle of the log.
    package static func firstValidRecord(_ bytes: UnsafeRawBufferPointer, after offset: Int) -> Int? {
        var candidate = offset + 1
        let transactionKind = RecordFormat.Kind.transaction.rawValue
        while candidate + RecordFormat.headerSize <= bytes.count {
            if bytes[candidate + 8] == transactionKind, case .record = decodeRecord(bytes, at: candidate) {
                return candidate
            }
            candidate += 1
        }
        return nil
    }

    /// Whether the bytes at `offset`, where a scan of the newest segment stopped with nothing
    /// valid after them, are a write that never reached its end (a torn write: recovery cuts it,
    /// it was never acknowledged) rather than a complete record damaged afterwards (reported as
    /// damage, never dropped silently). Segments are zero-filled ahead of the writes, so a write
    /// that did not finish leaves zeros where its bytes would be. A record is torn when:
    ///
    /// - its header is cut short by the end of the file, or is zero while data follows (the
    ///   header's write never landed);
    /// - its length runs past the end of the file, unless the bytes there are a whole version-2
    ///   record under a damaged length (its payload up to the last non-zero byte ends with the
    ///   end mark and matches the checksum: damage);
    /// - a 512-byte sector's share of it is all zero (a write reaches the disk sector by sector,
    ///   and not always in order);
    /// - nothing follows it but zeros, and it does not end with its end mark (version 2), or
    ///   ends with a zero byte (version 1, which has no end mark: the best it can tell). Data
    ///   after its end means a write went further: the record is complete, its length damaged.
    package static func isTornWrite(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard offset >= 0, bytes.count - offset >= RecordFormat.headerSize else { return true }
        let length = Int(bytes.littleEndian(UInt32.self, at: offset))
        let headerIsZero = (0..<RecordFormat.headerSize).allSatisfy { bytes[offset + $0] == 0 }
        if headerIsZero { return true }
        let payloadStart = offset + RecordFormat.headerSize
        guard length <= bytes.count - payloadStart else { return !isWholeRecordUnderDamagedLength(bytes, at: offset) }
        let end = payloadStart + length
        var sector = offset - offset % sectorSize
        while sector < end {
            let from = max(sector, offset), to = min(sector + sectorSize, end)
            if (from..<to).allSatisfy({ bytes[$0] == 0 }) { return true }
            sector += sectorSize
        }
        guard length > 0, isZero(bytes, from: end) else { return false }
        if bytes[payloadStart] >= 2 { return bytes[end - 1] != TransactionCodec.endMark }
        return bytes[end - 1] == 0
    }

    /// The unit in which a write reaches the disk (the smallest a device writes whole).
    package static let sectorSize = 512

    /// Whether the bytes from `offset` to the last non-zero byte of the file form a whole
    /// version-2 record whose length field alone is wrong.
    private static func isWholeRecordUnderDamagedLength(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        let payloadStart = offset + RecordFormat.headerSize
        guard let last = lastNonZero(bytes, from: payloadStart), bytes[last] == TransactionCodec.endMark,
              bytes[payloadStart] >= 2 else { return false }
        let storedCRC = bytes.littleEndian(UInt32.self, at: offset + 4)
        let payload = UnsafeRawBufferPointer(rebasing: bytes[payloadStart...last])
        return RecordFormat.checksum(kind: bytes[offset + 8], payload: payload) == storedCRC
    }

    package static func isZero(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Bool {
        lastNonZero(bytes, from: offset) == nil
    }

    /// The offset of the last non-zero byte at or after `offset`.
    package static func lastNonZero(_ bytes: UnsafeRawBufferPointer, from offset: Int) -> Int? {
        var i = bytes.count - 1
        // Word-at-a-time from the end: preallocated tails are long runs of zeros.
        while i - 7 >= offset {
            if bytes.littleEndian(UInt64.self, at: i - 7) != 0 { break }
            i -= 8
        }
        while i >= offset {
            if bytes[i] != 0 { return i }
            i -= 1
        }
        return nil
    }
}

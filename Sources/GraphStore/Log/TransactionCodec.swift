@_spi(GraphStoreInternals) import GraphStoreCore

/// The versioned binary encoding of a transaction: the payload of a transaction record.
///
///     u8      payload version (2; 1 is read too)
///     u64     transaction number
///     u64     commit time, microseconds since 1970 (two's complement)
///     string  author (varint length + UTF-8)
///     varint  operation count
///     ops     each: u8 tag, then its fields (`ByteWriter.operation`, Docs/FILE-FORMAT.md)
///     u8      end mark 0x5A (version 2 only)
///
/// The end mark is how recovery tells a record whose write never reached its end (torn, cut
/// off) from a complete record that was damaged afterwards (reported, never dropped silently):
/// a payload may end in zero bytes, the end mark never does.
@_spi(GraphStoreInternals) public enum TransactionCodec {
    package static let payloadVersion: UInt8 = 2
    /// Version 1 payloads (no end mark) are still read.
    package static let readableVersions: ClosedRange<UInt8> = 1...2
    package static let endMark: UInt8 = 0x5A
    /// Where the transaction number sits in the payload, so it can be filled in at append time.
    package static let numberOffset = 1

    /// Encodes into `writer` (which may already hold a record header) with transaction number 0;
    /// the log patches the number in when it assigns it.
    package static func encode(_ changes: TransactionChanges, author: String, timestampMicros: Int64, into w: inout ByteWriter) {
        encode(changes, author: author, timestampMicros: timestampMicros, number: 0, into: &w) { _ in }
    }

    /// Encodes as `encode` does, numbered `number`, handing the payload to `sink` a piece at a
    /// time (each about `pieceSize` bytes, or an operation longer) instead of holding it whole:
    /// a record too large to keep beside the changes it is made of is encoded twice, once to
    /// be measured and once as it is written (`StreamedRecord`).
    package static func encode(_ changes: TransactionChanges, author: String, timestampMicros: Int64, number: UInt64,
                               pieceSize: Int, into sink: (UnsafeRawBufferPointer) -> Void) {
        var w = ByteWriter(capacity: pieceSize + 4096)
        encode(changes, author: author, timestampMicros: timestampMicros, number: number, into: &w) { w in
            guard w.count >= pieceSize else { return }
            sink(w.written)
            w.removeAll()
        }
        sink(w.written)
    }

    /// The payload, `afterEach` called after each operation is written.
    private static func encode(_ changes: TransactionChanges, author: String, timestampMicros: Int64, number: UInt64,
                               into w: inout ByteWriter, afterEach: (inout ByteWriter) -> Void) {
        w.u8(payloadVersion)
        w.u64(number)
        w.u64(UInt64(bitPattern: timestampMicros))
        w.string(author)
        w.varint(changes.operationCount)
        for block in changes.blocks {
            for index in 0..<block.count {
                block.encodeRow(index, into: &w)
                afterEach(&w)
            }
        }
        for block in changes.links {
            for (source, target) in block.links {
                w.operation(.link(relationship: block.relationship, source: source, target: target))
                afterEach(&w)
            }
        }
        for op in changes.operations {
            w.operation(op)
            afterEach(&w)
        }
        w.u8(endMark)
    }

    /// The payload of a transaction record: `transaction` as the log writes it.
    @_spi(GraphStoreInternals) public static func encode(_ transaction: LogTransaction) -> [UInt8] {
        var w = ByteWriter()
        encode(TransactionChanges(operations: transaction.operations), author: transaction.author,
               timestampMicros: transaction.timestampMicros, into: &w)
        w.patchU64(transaction.number, at: numberOffset)
        return w.bytes
    }

    /// Decodes a payload; any malformed input throws `ByteReader.Error`.
    package static func decode(_ payload: UnsafeRawBufferPointer) throws -> LogTransaction {
        var r = ByteReader(payload)
        let version = try r.u8()
        guard readableVersions.contains(version) else { throw r.fail("unknown transaction payload version \(version)") }
        let number = try r.u64()
        let time = Int64(bitPattern: try r.u64())
        let author = try r.string()
        // Every operation takes at least 3 bytes.
        let count = try r.count(limit: r.remaining / 3)
        var operations: [LogOperation] = []
        operations.reserveCapacity(count)
        for _ in 0..<count { operations.append(try r.operation()) }
        if version >= 2 {
            let mark = try r.u8()
            guard mark == endMark else { throw r.fail("end mark \(mark) where \(endMark) was expected") }
        }
        guard r.isAtEnd else { throw r.fail("\(r.remaining) stray bytes after the last operation") }
        return LogTransaction(number: number, timestampMicros: time, author: author, operations: operations)
    }
}

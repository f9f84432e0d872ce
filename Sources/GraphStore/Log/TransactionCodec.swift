import GraphStoreCore

/// The versioned binary encoding of a transaction: the payload of a transaction record.
///
///     u8      payload version (2; 1 is read too)
///     u64     transaction number
///     u64     commit time, microseconds since 1970 (two's complement)
///     string  author (varint length + UTF-8)
///     varint  operation count
///     ops     each: u8 tag, then its fields (Docs/FILE-FORMAT.md)
///     u8      end mark 0x5A (version 2 only)
///
/// The end mark is how recovery tells a record whose write never reached its end (torn, cut
/// off) from a complete record that was damaged afterwards (reported, never dropped silently):
/// a payload may end in zero bytes, the end mark never does.
package enum TransactionCodec {
    package static let payloadVersion: UInt8 = 2
    /// Version 1 payloads (no end mark) are still read.
    package static let readableVersions: ClosedRange<UInt8> = 1...2
    package static let endMark: UInt8 = 0x5A
    /// Where the transaction number sits in the payload, so it can be filled in at append time.
    package static let numberOffset = 1

    package enum OperationTag: UInt8 {
        case insert = 1, update = 2, delete = 3, link = 4, unlink = 5, schema = 6
    }

    /// Encodes into `writer` (which may already hold a record header) with transaction number 0;
    /// the log patches the number in when it assigns it.
    package static func encode(_ changes: TransactionChanges, author: String, timestampMicros: Int64, into w: inout ByteWriter) {
        w.u8(payloadVersion)
        w.u64(0)
        w.u64(UInt64(bitPattern: timestampMicros))
        w.string(author)
        w.varint(changes.operationCount)
        for block in changes.blocks { encode(block, into: &w) }
        for op in changes.operations { encode(op, into: &w) }
        w.u8(endMark)
    }

    /// A block's rows, each exactly as its `.insert` or `.update` operation is encoded.
    private static func encode(_ block: RowBlock, into w: inout ByteWriter) {
        let tag = block.kind == .insert ? OperationTag.insert.rawValue : OperationTag.update.rawValue
        // Below 128 columns a row's count of values is one varint byte: written after its
        // values (counted on the way) instead of counted in a pass of its own.
        let countAfter = block.properties.count < 128
        for index in 0..<block.count {
            w.u8(tag)
            w.varint(UInt64(block.entity))
            w.varint(block.rows[index])
            let countOffset = w.count
            w.varint(countAfter ? 0 : block.valueCount(ofRow: index))
            let written = block.encodeValues(ofRow: index, into: &w)
            if countAfter { w.patchU8(UInt8(written), at: countOffset) }
        }
    }

    package static func encode(_ transaction: LogTransaction) -> [UInt8] {
        var w = ByteWriter()
        encode(TransactionChanges(operations: transaction.operations), author: transaction.author,
               timestampMicros: transaction.timestampMicros, into: &w)
        w.patchU64(transaction.number, at: numberOffset)
        return w.bytes
    }

    private static func encode(_ op: LogOperation, into w: inout ByteWriter) {
        switch op {
        case let .insert(entity, row, values), let .update(entity, row, values):
            if case .insert = op { w.u8(OperationTag.insert.rawValue) } else { w.u8(OperationTag.update.rawValue) }
            w.varint(UInt64(entity))
            w.varint(row)
            w.varint(values.count)
            for pv in values {
                w.varint(UInt64(pv.property))
                w.value(pv.value)
            }
        case let .delete(entity, row):
            w.u8(OperationTag.delete.rawValue)
            w.varint(UInt64(entity))
            w.varint(row)
        case let .link(relationship, source, target), let .unlink(relationship, source, target):
            if case .link = op { w.u8(OperationTag.link.rawValue) } else { w.u8(OperationTag.unlink.rawValue) }
            w.varint(UInt64(relationship))
            w.varint(source)
            w.varint(target)
        case let .schema(payload):
            w.u8(OperationTag.schema.rawValue)
            w.lengthPrefixed(payload)
        }
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
        for _ in 0..<count { operations.append(try decodeOperation(&r)) }
        if version >= 2 {
            let mark = try r.u8()
            guard mark == endMark else { throw r.fail("end mark \(mark) where \(endMark) was expected") }
        }
        guard r.isAtEnd else { throw r.fail("\(r.remaining) stray bytes after the last operation") }
        return LogTransaction(number: number, timestampMicros: time, author: author, operations: operations)
    }

    private static func decodeOperation(_ r: inout ByteReader) throws -> LogOperation {
        let tagByte = try r.u8()
        guard let tag = OperationTag(rawValue: tagByte) else { throw r.fail("unknown operation tag \(tagByte)") }
        switch tag {
        case .insert, .update:
            let entity = try r.varintUInt32()
            let row = try r.varint()
            let n = try r.count(limit: r.remaining / 2)
            var values: [PropertyValue] = []
            values.reserveCapacity(n)
            for _ in 0..<n { values.append(PropertyValue(try r.varintUInt32(), try r.value())) }
            return tag == .insert ? .insert(entity: entity, row: row, values: values)
                : .update(entity: entity, row: row, values: values)
        case .delete:
            return .delete(entity: try r.varintUInt32(), row: try r.varint())
        case .link, .unlink:
            let relationship = try r.varintUInt32()
            let source = try r.varint()
            let target = try r.varint()
            return tag == .link ? .link(relationship: relationship, source: source, target: target)
                : .unlink(relationship: relationship, source: source, target: target)
        case .schema:
            return .schema(payload: try r.lengthPrefixed())
        }
    }
}

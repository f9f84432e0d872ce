import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// A checkpoint file: the committed graph as of one transaction, so that open reads it and
/// replays only the log after it (Docs/FILE-FORMAT.md, "Checkpoint files").
///
/// `checkpoint-<20-digit transaction>.gsckpt`, starting with a 40-byte header:
///
///     0   8  magic "GSCKPT\r\n"
///     8   2  format version (u16 LE)
///     10  2  flags (0)
///     12  8  transaction the image is as of (u64 LE)
///     20  8  when the checkpoint was written, microseconds since 1970 (u64 LE, two's complement)
///     28  8  number of records that follow (u64 LE)
///     36  4  masked CRC-32C of bytes 0..<36 (u32 LE)
///
/// then records framed exactly as in log segments (length, masked CRC-32C, kind, payload):
/// one `checkpointSchemas`; per entity one `checkpointTable` followed by one `checkpointColumn`
/// per attribute; and a closing `checkpointEnd`.
/// A file is written under a `.tmp` name, synced, renamed and its directory synced, so a
/// checkpoint either exists whole or not at all; a crash leaves at most a `.tmp` file, which
/// the next writer removes.
@_spi(GraphStoreInternals) public enum CheckpointFile {
    package static let magic: [UInt8] = Array("GSCKPT\r\n".utf8)
    package static let formatVersion: UInt16 = 1
    /// The size of a checkpoint file's header, in bytes.
    @_spi(GraphStoreInternals) public static let headerSize = 40
    package static let fileExtension = ".gsckpt"
    package static let temporarySuffix = ".tmp"

    package static let names = NumberedFileName(prefix: "checkpoint-", fileExtension: fileExtension)

    /// The name of the checkpoint file as of `transaction`.
    @_spi(GraphStoreInternals) public static func fileName(transaction: UInt64) -> String { names.name(transaction) }

    /// The transaction in a checkpoint file name, or nil for any other file.
    package static func transaction(fileName: String) -> UInt64? { names.number(in: fileName) }

    /// The transactions of the checkpoints in `directory`, ascending.
    package static func list(directory: String, fileIO: any FileIO) throws -> [UInt64] {
        try fileIO.listDirectory(directory).compactMap(transaction(fileName:)).sorted()
    }

    package struct Header: Equatable, Sendable {
        package var transaction: UInt64
        package var timestampMicros: Int64
        package var recordCount: UInt64

        package init(transaction: UInt64, timestampMicros: Int64, recordCount: UInt64) {
            self.transaction = transaction
            self.timestampMicros = timestampMicros
            self.recordCount = recordCount
        }
    }

    package static func encodeHeader(_ header: Header) -> [UInt8] {
        var w = ByteWriter(capacity: headerSize)
        w.raw(magic)
        w.u16(formatVersion)
        w.u16(0)
        w.u64(header.transaction)
        w.u64(UInt64(bitPattern: header.timestampMicros))
        w.u64(header.recordCount)
        w.u32(CRC32C.mask(CRC32C.checksum(w.bytes)))
        return w.bytes
    }

    /// A checkpoint that cannot be used, and why.
    package struct Problem: Error, Equatable, Sendable, CustomStringConvertible {
        package var path: String
        package var offset: Int
        package var reason: String
        package var description: String { "checkpoint \(path) unusable at offset \(offset): \(reason)" }
    }

    /// A checkpoint read whole and checked: every checksum, the record count, the closing record.
    package struct Contents {
        package var header: Header
        /// Each record's kind and payload (a slice of the file's bytes), in file order.
        package var records: [(kind: RecordFormat.Kind, payload: ArraySlice<UInt8>)]

        package init(header: Header, records: [(kind: RecordFormat.Kind, payload: ArraySlice<UInt8>)]) {
            self.header = header
            self.records = records
        }
    }

    /// The header at the start of `raw`, checked (magic, checksum, version).
    private static func decodeHeader(_ raw: UnsafeRawBufferPointer, path: String) throws -> Header {
        func problem(_ offset: Int, _ reason: String) -> Problem { Problem(path: path, offset: offset, reason: reason) }
        guard raw.count >= headerSize else { throw problem(0, "file is \(raw.count) bytes, shorter than the header") }
        guard raw.prefix(8).elementsEqual(magic) else { throw problem(0, "bad magic") }
        var r = ByteReader(UnsafeRawBufferPointer(rebasing: raw[..<headerSize]), offset: 8)
        let version = try r.u16()
        _ = try r.u16()
        let header = Header(transaction: try r.u64(), timestampMicros: Int64(bitPattern: try r.u64()), recordCount: try r.u64())
        let stored = try r.u32()
        guard stored == CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: raw[..<36]))) else {
            throw problem(0, "header checksum mismatch")
        }
        guard version == formatVersion else { throw problem(8, "format version \(version); this build reads \(formatVersion)") }
        return header
    }

    /// Only the schema history record (the first), checked, without reading the tables: what
    /// tools need to rebuild a schema from a store. Nil when the checkpoint cannot give it.
    package static func readSchemaHistoryRecord(path: String, fileIO: any FileIO) -> [UInt8]? {
        guard let handle = try? fileIO.open(path, mode: .readOnly) else { return nil }
        defer { handle.close() }
        let start = headerSize + RecordFormat.headerSize
        guard let head = try? handle.read(at: 0, count: start), head.count == start,
              (try? head.withUnsafeBytes({ try decodeHeader(UnsafeRawBufferPointer(rebasing: $0[..<headerSize]), path: path) })) != nil
        else { return nil }
        let length = head.withUnsafeBytes { Int($0.littleEndian(UInt32.self, at: headerSize)) }
        let crc = head.withUnsafeBytes { $0.littleEndian(UInt32.self, at: headerSize + 4) }
        guard head[headerSize + 8] == RecordFormat.Kind.checkpointSchemas.rawValue,
              let payload = try? handle.read(at: UInt64(start), count: length), payload.count == length,
              payload.withUnsafeBytes({ RecordFormat.checksum(kind: RecordFormat.Kind.checkpointSchemas.rawValue, payload: $0) }) == crc
        else { return nil }
        return payload
    }

    package static func read(path: String, fileIO: any FileIO) throws -> Contents {
        let bytes = try fileIO.readFile(path)
        func problem(_ offset: Int, _ reason: String) -> Problem { Problem(path: path, offset: offset, reason: reason) }
        return try bytes.withUnsafeBytes { raw in
            let header = try decodeHeader(raw, path: path)
            // Frame the records first, then check their checksums side by side (a big store's
            // checkpoint is mostly a few large column records).
            var frames: [(kind: RecordFormat.Kind, offset: Int, payload: Range<Int>, crc: UInt32)] = []
            var offset = headerSize
            while offset < raw.count {
                guard raw.count - offset >= RecordFormat.headerSize else { throw problem(offset, "truncated record header") }
                let length = Int(raw.littleEndian(UInt32.self, at: offset))
                let crc = raw.littleEndian(UInt32.self, at: offset + 4)
                let kindByte = raw[offset + 8]
                guard RecordFormat.checkpointKinds.contains(kindByte), let kind = RecordFormat.Kind(rawValue: kindByte) else {
                    throw problem(offset, "unknown record kind \(kindByte)")
                }
                let start = offset + RecordFormat.headerSize
                guard length <= raw.count - start else { throw problem(offset, "record length \(length) runs past the end of the file") }
                frames.append((kind, offset, start..<(start + length), crc))
                offset = start + length
            }
            let mismatched = ResultSlots<Int>(count: frames.count)
            runSideBySide(frames.indices.map { i in {
                let frame = frames[i]
                if RecordFormat.checksum(kind: frame.kind.rawValue, payload: UnsafeRawBufferPointer(rebasing: raw[frame.payload])) != frame.crc {
                    mismatched[i] = frame.offset
                }
            } })
            if let bad = frames.indices.compactMap({ mismatched[$0] }).first { throw problem(bad, "record checksum mismatch") }
            let records = frames.map { (kind: $0.kind, payload: bytes[$0.payload]) }
            guard UInt64(records.count) == header.recordCount else {
                throw problem(offset, "\(records.count) records where the header promises \(header.recordCount)")
            }
            guard let last = records.last, last.kind == .checkpointEnd else { throw problem(offset, "no closing record") }
            return Contents(header: header, records: records)
        }
    }

    /// Writes a checkpoint durably: the records go to a temporary file, which is synced and then
    /// renamed into place (and the directory synced). `records` is called once per record, in
    /// order, so a large image is never held encoded all at once.
    package static func write(directory: String, fileIO: any FileIO, transaction: UInt64, timestampMicros: Int64, recordCount: Int,
                      records: (Int) throws -> (RecordFormat.Kind, [UInt8])) throws -> String {
        let path = joinPath(directory, fileName(transaction: transaction))
        let temporary = path + temporarySuffix
        if fileIO.fileExists(temporary) { try fileIO.removeFile(temporary) }
        let handle = try fileIO.open(temporary, mode: .create)
        do {
            try handle.writeAll(encodeHeader(Header(transaction: transaction, timestampMicros: timestampMicros,
                                                    recordCount: UInt64(recordCount))), at: 0)
            var offset = UInt64(headerSize)
            for index in 0..<recordCount {
                let (kind, payload) = try records(index)
                try RecordFormat.checkPayload(payload.count)
                let crc = payload.withUnsafeBytes { RecordFormat.checksum(kind: kind.rawValue, payload: $0) }
                try handle.writeAll(RecordFormat.header(payloadLength: payload.count, maskedChecksum: crc, kind: kind.rawValue), at: offset)
                try handle.writeAll(payload, at: offset + UInt64(RecordFormat.headerSize))
                offset += UInt64(RecordFormat.headerSize + payload.count)
            }
            try handle.sync()
            handle.close()
        } catch {
            handle.close()
            try? fileIO.removeFile(temporary)
            throw error
        }
        try fileIO.rename(temporary, to: path)
        try fileIO.syncDirectory(directory)
        return path
    }

    /// Removes leftovers of checkpoint writes a crash interrupted.
    package static func removeTemporaries(directory: String, fileIO: any FileIO) throws {
        for name in try fileIO.listDirectory(directory) where name.hasPrefix("checkpoint-") && name.hasSuffix(fileExtension + temporarySuffix) {
            try fileIO.removeFile(joinPath(directory, name))
        }
    }
}

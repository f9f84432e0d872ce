import GraphStore
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreLog

/// Makes a mutated segment or checkpoint's checksums right again, so that the fuzzer's changes
/// reach the decoders behind them (a random change almost never keeps a CRC-32C, and the
/// framing would refuse nearly every input at the first record). Each target reads an input
/// both as it is and repaired: the first tests the framing, the second what it protects.
enum ChecksumRepair {
    /// A file whose header (`headerSize` bytes) ends with the masked CRC-32C of the rest of it,
    /// followed by framed records; `countField`, if given, is where the header counts them.
    static func repaired(_ bytes: [UInt8], headerSize: Int, countField: Int? = nil) -> [UInt8] {
        guard bytes.count >= headerSize else { return bytes }
        var bytes = bytes
        var offset = headerSize, records: UInt64 = 0
        while bytes.count - offset >= RecordFormat.headerSize {
            let length = Int(bytes[offset]) | Int(bytes[offset + 1]) << 8 | Int(bytes[offset + 2]) << 16 | Int(bytes[offset + 3]) << 24
            let start = offset + RecordFormat.headerSize
            guard length > 0 || bytes[offset + 8] != 0, length <= bytes.count - start else { break }
            let crc = bytes[start..<(start + length)].withUnsafeBytes { RecordFormat.checksum(kind: bytes[offset + 8], payload: $0) }
            for i in 0..<4 { bytes[offset + 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
            records += 1
            offset = start + length
        }
        if let countField {
            for i in 0..<8 { bytes[countField + i] = UInt8(truncatingIfNeeded: records >> (8 * i)) }
        }
        let crc = CRC32C.mask(CRC32C.checksum(Array(bytes[..<(headerSize - 4)])))
        for i in 0..<4 { bytes[headerSize - 4 + i] = UInt8(truncatingIfNeeded: crc >> (8 * i)) }
        return bytes
    }
}

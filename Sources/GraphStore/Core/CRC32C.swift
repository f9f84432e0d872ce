import CSwiftRuntime

/// CRC-32C (Castagnoli), the checksum of every record and header: with the CPU's instruction
/// where it has one (SSE 4.2, AArch64's CRC extension), by slicing-by-8 otherwise. Both give the same value (CRC32CTests).
///
/// Stored checksums are *masked* as LevelDB does, so that the CRC of data that itself contains
/// CRCs does not degenerate: `masked = ((crc >> 15) | (crc << 17)) &+ 0xa282ead8`.
@_spi(GraphStoreInternals) public enum CRC32C {
    private static let polynomial: UInt32 = 0x82F6_3B78

    /// tables[k][b]: the CRC contribution of byte b seen k positions before the end of an 8-byte block.
    private static let tables: [[UInt32]] = {
        var tables = [[UInt32]](repeating: [UInt32](repeating: 0, count: 256), count: 8)
        for byte in 0..<256 {
            var crc = UInt32(byte)
            for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ polynomial : crc >> 1 }
            tables[0][byte] = crc
        }
        for byte in 0..<256 {
            for k in 1..<8 {
                let previous = tables[k - 1][byte]
                tables[k][byte] = (previous >> 8) ^ tables[0][Int(previous & 0xFF)]
            }
        }
        return tables
    }()

    package static let hardwareAvailable = graphstore_crc32c_hardware_available()

    /// Extends `crc` (0 for a fresh checksum) over `bytes`.
    package static func update(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return crc }
        if hardwareAvailable { return ~graphstore_crc32c_hardware(~crc, base, bytes.count) }
        return updateBySlicing(crc, bytes)
    }

    /// `update` without the instruction (tests compare the two).
    package static func updateBySlicing(_ crc: UInt32, _ bytes: UnsafeRawBufferPointer) -> UInt32 {
        var crc = ~crc
        guard var p = bytes.baseAddress, !bytes.isEmpty else { return ~crc }
        var remaining = bytes.count
        tables.withUnsafeBufferPointer { t in
            let t0 = t[0], t1 = t[1], t2 = t[2], t3 = t[3], t4 = t[4], t5 = t[5], t6 = t[6], t7 = t[7]
            t0.withUnsafeBufferPointer { t0 in t1.withUnsafeBufferPointer { t1 in
            t2.withUnsafeBufferPointer { t2 in t3.withUnsafeBufferPointer { t3 in
            t4.withUnsafeBufferPointer { t4 in t5.withUnsafeBufferPointer { t5 in
            t6.withUnsafeBufferPointer { t6 in t7.withUnsafeBufferPointer { t7 in
                while remaining >= 8 {
                    let word = UInt64(littleEndian: p.loadUnaligned(as: UInt64.self))
                    let low = UInt32(truncatingIfNeeded: word) ^ crc
                    let high = UInt32(truncatingIfNeeded: word >> 32)
                    crc = t7[Int(low & 0xFF)] ^ t6[Int((low >> 8) & 0xFF)]
                        ^ t5[Int((low >> 16) & 0xFF)] ^ t4[Int(low >> 24)]
                        ^ t3[Int(high & 0xFF)] ^ t2[Int((high >> 8) & 0xFF)]
                        ^ t1[Int((high >> 16) & 0xFF)] ^ t0[Int(high >> 24)]
                    p += 8
                    remaining -= 8
                }
                while remaining > 0 {
                    crc = (crc >> 8) ^ t0[Int((crc ^ UInt32(p.load(as: UInt8.self))) & 0xFF)]
                    p += 1
                    remaining -= 1
                }
            }}}}}}}}
        }
        return ~crc
    }

    /// The CRC-32C of `bytes`.
    @_spi(GraphStoreInternals) public static func checksum(_ bytes: UnsafeRawBufferPointer) -> UInt32 { update(0, bytes) }

    /// The CRC-32C of `bytes`.
    @_spi(GraphStoreInternals) public static func checksum(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { checksum($0) }
    }

    private static let maskDelta: UInt32 = 0xA282_EAD8

    /// `crc` masked as stored beside the data it covers: a CRC computed over bytes that hold
    /// CRCs would otherwise be weak.
    @_spi(GraphStoreInternals) public static func mask(_ crc: UInt32) -> UInt32 { ((crc >> 15) | (crc << 17)) &+ maskDelta }

    package static func unmask(_ masked: UInt32) -> UInt32 {
        let rotated = masked &- maskDelta
        return (rotated >> 17) | (rotated << 15)
    }
}

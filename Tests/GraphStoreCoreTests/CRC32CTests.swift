@_spi(GraphStoreInternals) import GraphStoreCore
import GraphStoreTestSupport
import Testing

@Suite struct CRC32CTests {
    @Test func knownVectors() {
        #expect(CRC32C.checksum(Array("123456789".utf8)) == 0xE306_9283)
        #expect(CRC32C.checksum([UInt8](repeating: 0, count: 32)) == 0x8A91_36AA)
        #expect(CRC32C.checksum([UInt8](repeating: 0xFF, count: 32)) == 0x62A8_AB43)
        #expect(CRC32C.checksum([]) == 0)
    }

    @Test func slicedMatchesBytewiseForEveryLengthAndAlignment() {
        var rng = SplitMix64(seed: 7)
        let bytes = (0..<300).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        func bytewise(_ data: ArraySlice<UInt8>) -> UInt32 {
            var crc: UInt32 = ~0
            for byte in data {
                crc ^= UInt32(byte)
                for _ in 0..<8 { crc = (crc & 1) != 0 ? (crc >> 1) ^ 0x82F6_3B78 : crc >> 1 }
            }
            return ~crc
        }
        for start in 0..<9 {
            for end in stride(from: start, through: bytes.count, by: 7) {
                let slice = bytes[start..<end]
                #expect(slice.withUnsafeBytes { CRC32C.checksum($0) } == bytewise(slice))
                #expect(slice.withUnsafeBytes { CRC32C.updateBySlicing(0, $0) } == bytewise(slice))
            }
        }
    }

    /// The instruction (where the CPU has it: x86-64 with SSE 4.2, AArch64 with CRC) and the
    /// table agree for every length, alignment and starting value.
    @Test func instructionAndSlicingAgree() {
        var rng = SplitMix64(seed: 11)
        let bytes = (0..<4_200).map { _ in UInt8(truncatingIfNeeded: rng.next()) }
        #if arch(x86_64) || (arch(arm64) && os(Linux))
        #expect(CRC32C.hardwareAvailable, "a CPU this old is not expected here")
        #endif
        bytes.withUnsafeBytes { raw in
            for start in 0..<17 {
                for length in [0, 1, 7, 8, 9, 15, 16, 63, 64, 65, 1_000, 4_096] where start + length <= raw.count {
                    let slice = UnsafeRawBufferPointer(rebasing: raw[start..<(start + length)])
                    let seed = UInt32(truncatingIfNeeded: rng.next())
                    #expect(CRC32C.update(seed, slice) == CRC32C.updateBySlicing(seed, slice), "start \(start), length \(length)")
                }
            }
        }
    }

    @Test func incrementalEqualsWhole() {
        let data = Array("GraphStore keeps every commit".utf8)
        let whole = CRC32C.checksum(data)
        let first = data[..<10].withUnsafeBytes { CRC32C.update(0, $0) }
        let both = data[10...].withUnsafeBytes { CRC32C.update(first, $0) }
        #expect(both == whole)
    }

    @Test func maskRoundTripsAndChangesTheValue() {
        for crc: UInt32 in [0, 1, 0xE306_9283, .max] {
            #expect(CRC32C.unmask(CRC32C.mask(crc)) == crc)
            #expect(CRC32C.mask(crc) != crc)
        }
    }
}

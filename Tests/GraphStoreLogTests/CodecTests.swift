import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

@Suite struct CodecTests {
    static let everyShape: [Value] = [
        .null, .bool(true), .bool(false), .int(0), .int(-1), .int(.min), .int(.max), .uint(0), .uint(.max),
        .double(3.25), .double(-0.0), .double(.infinity), .double(.greatestFiniteMagnitude), .float(1.5), .float(-.infinity),
        .string(""), .string("Zürich ✈️ 東京"), .data(Data()), .data(Data([0, 1, 255])),
        .date(Date(timeIntervalSince1970: 1_700_000_000.123456)), .date(.distantPast),
        .uuid(UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!), .url(URL(string: "https://flightaware.com/a?b=c#d")!),
        .decimal(Decimal(string: "12345.6789")!), .decimal(Decimal(-3)),
        .array([]), .array([.int(1), .string("x"), .array([.null])]),
        .dictionary([:]), .dictionary(["a": .int(1), "b": .dictionary(["c": .bool(true)])]),
    ]

    func roundTrip(_ value: Value) throws -> Value {
        var w = ByteWriter()
        w.value(value)
        return try w.bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            let decoded = try r.value()
            #expect(r.isAtEnd)
            return decoded
        }
    }

    /// Strings read back as written, ASCII (read without validation) or not, and bytes that
    /// are not UTF-8 (a stray high byte, a truncated sequence, an overlong encoding, a
    /// surrogate) are refused with an error, never read as a repaired string.
    @Test func stringsReadBackAndInvalidUTF8IsRefused() throws {
        for text in ["", "KSFO", "UAL1234 En Route / On Time", "Zürich", "✈️ 東京", String(repeating: "x", count: 300)] {
            var w = ByteWriter()
            w.string(text)
            let read = try w.bytes.withUnsafeBytes { raw in
                var r = ByteReader(raw)
                return try r.string()
            }
            #expect(read == text)
        }
        for bad: [UInt8] in [[0x41, 0xFF], [0xC3], [0xE0, 0x80, 0x80], [0xED, 0xA0, 0x80], [0x4B, 0x80, 0x53]] {
            var w = ByteWriter()
            w.lengthPrefixed(bad)
            #expect(throws: ByteReader.Error.self, "\(bad)") {
                try w.bytes.withUnsafeBytes { raw in
                    var r = ByteReader(raw)
                    return try r.string()
                }
            }
        }
    }

    /// A string is written as its UTF-8 length then its bytes however it is held: small (read
    /// from the String's own two words), in storage, bridged, or not ASCII; at every length
    /// around the small limit, and between other writes (the small path stores 16 bytes and
    /// keeps only its own).
    @Test func stringsAreWrittenAsLengthAndBytesHoweverHeld() throws {
        var rng = SplitMix64(seed: 3)
        for length in 0...20 {
            let text = String((0..<length).map { _ in Character(Unicode.Scalar(UInt8(32 + rng.next() % 95))) })
            var stored = String(repeating: "y", count: 40) + text
            stored.removeFirst(40)
            let bridged = NSString(string: text) as String
            for (form, held) in [("small", text), ("stored", stored), ("bridged", bridged), ("not ASCII", text + "é")] {
                var w = ByteWriter(capacity: 1)
                w.u8(0xAB)
                w.string(held)
                w.u8(0xCD)
                let utf8 = Array(held.utf8)
                var expected: [UInt8] = [0xAB]
                var length = UInt64(utf8.count)
                while length >= 0x80 { expected.append(UInt8(truncatingIfNeeded: length) | 0x80); length >>= 7 }
                expected.append(UInt8(length))
                #expect(w.bytes == expected + utf8 + [0xCD], "\(form), \(utf8.count) bytes")
            }
        }
    }

    @Test(arguments: everyShape)
    func valueRoundTrips(_ value: Value) throws {
        #expect(try roundTrip(value) == value)
    }

    @Test func nanRoundTripsBitForBit() throws {
        guard case let .double(d) = try roundTrip(.double(.nan)) else { Issue.record("not a double"); return }
        #expect(d.isNaN)
    }

    @Test func varintsAndZigzagRoundTripAtTheEdges() throws {
        let unsigned: [UInt64] = [0, 1, 127, 128, 16_383, 16_384, UInt64(UInt32.max), .max - 1, .max]
        let signed: [Int64] = [0, -1, 1, -64, 64, .min, .max]
        var w = ByteWriter()
        unsigned.forEach { w.varint($0) }
        signed.forEach { w.zigzag($0) }
        try w.bytes.withUnsafeBytes { raw throws in
            var r = ByteReader(raw)
            for v in unsigned { #expect(try r.varint() == v) }
            for v in signed { #expect(try r.zigzag() == v) }
        }
    }

    /// `finish` hands over what `bytes` copies: the same bytes, grown past the first capacity,
    /// and writable in place (the log patches a record's kind and checksum this way).
    @Test func finishedBytesAreTheWrittenOnes() {
        var w = ByteWriter(capacity: 16)
        for i in 0..<1_000 { w.varint(UInt64(i) * 7919) }
        let copy = w.bytes
        let written = w.finish()
        #expect(written.count == copy.count)
        #expect(Array(written.buffer) == copy)
        written[3] = 0xAB
        #expect(written[3] == 0xAB && written.buffer[3] == 0xAB)
    }

    @Test func overlongVarintIsRefused() {
        let bytes = [UInt8](repeating: 0xFF, count: 11)
        bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            #expect(throws: ByteReader.Error.self) { try r.varint() }
        }
    }

    @Test func deepNestingIsRefusedNotOverflowingTheStack() {
        // 10,000 nested one-element arrays.
        let bytes = [UInt8](repeating: 0, count: 20_000).enumerated().map { $0.offset % 2 == 0 ? ValueTag.array.rawValue : 1 }
        bytes.withUnsafeBytes { raw in
            var r = ByteReader(raw)
            #expect(throws: ByteReader.Error.self) { try r.value() }
        }
    }

    @Test func transactionsRoundTrip() throws {
        var generator = RandomTransactions(seed: 42)
        for number in 1...300 {
            let transaction = LogTransaction(number: UInt64(number), timestampMicros: Int64(number) * 1_000_003,
                                             author: number % 3 == 0 ? "importer" : "", operations: generator.next())
            let encoded = TransactionCodec.encode(transaction)
            let decoded = try encoded.withUnsafeBytes { try TransactionCodec.decode($0) }
            #expect(decoded == transaction)
        }
    }

    /// Every proper prefix of a valid encoding is refused cleanly; so is every single-byte change
    /// that still decodes to something else or nothing (it must never trap).
    @Test func truncatedAndMutatedTransactionsNeverTrap() {
        var generator = RandomTransactions(seed: 9)
        let transaction = LogTransaction(number: 5, timestampMicros: 77, author: "a", operations: generator.next() + generator.next())
        let encoded = TransactionCodec.encode(transaction)
        for length in 0..<encoded.count {
            #expect(throws: ByteReader.Error.self) { try encoded[..<length].withUnsafeBytes { try TransactionCodec.decode($0) } }
        }
        for index in encoded.indices {
            for flip: UInt8 in [0x01, 0x80, 0xFF] {
                var mutated = encoded
                mutated[index] ^= flip
                _ = try? mutated.withUnsafeBytes { try TransactionCodec.decode($0) }
            }
        }
    }

    @Test func randomBytesNeverTrap() {
        var rng = SplitMix64(seed: 1234)
        for _ in 0..<20_000 {
            let bytes = (0..<Int(rng.next() % 64)).map { _ in UInt8(truncatingIfNeeded: rng.next() % 16) }
            _ = try? bytes.withUnsafeBytes { try TransactionCodec.decode($0) }
            _ = try? bytes.withUnsafeBytes { raw -> Value in
                var r = ByteReader(raw)
                return try r.value()
            }
        }
    }
}

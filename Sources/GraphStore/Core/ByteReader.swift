/// Reads what `ByteWriter` wrote, checking every bound: any byte sequence yields values or a
/// `ByteReader.Error`, never a trap. Counts read from the input are checked against the bytes
/// left before anything is allocated for them.
@_spi(GraphStoreInternals) public struct ByteReader {
    @usableFromInline package struct Error: Swift.Error, Equatable, Sendable, CustomStringConvertible {
        /// Offset within the buffer being decoded.
        package var offset: Int
        package var reason: String
        @usableFromInline package var description: String { "\(reason) at byte \(offset)" }

        @usableFromInline package init(offset: Int, reason: String) {
            self.offset = offset
            self.reason = reason
        }
    }

    @usableFromInline let base: UnsafeRawBufferPointer
    @usableFromInline package internal(set) var offset: Int

    /// The buffer must outlive the reader (use inside `withUnsafeBytes`).
    package init(_ base: UnsafeRawBufferPointer, offset: Int = 0) {
        self.base = base
        self.offset = offset
    }

    /// The bytes not read yet.
    @inlinable @_spi(GraphStoreInternals) public var remaining: Int { base.count - offset }
    package var isAtEnd: Bool { offset >= base.count }

    @usableFromInline package func fail(_ reason: String) -> Error { Error(offset: offset, reason: reason) }

    @inlinable mutating func take(_ n: Int) throws -> UnsafeRawBufferPointer {
        guard n >= 0, n <= remaining else { throw fail("needs \(n) bytes, \(remaining) left") }
        defer { offset += n }
        return UnsafeRawBufferPointer(rebasing: base[offset..<(offset + n)])
    }

    /// Reads a byte.
    @inlinable @_spi(GraphStoreInternals) public mutating func u8() throws -> UInt8 { try take(1)[0] }

    /// Reads a little-endian `UInt16`.
    @inlinable @_spi(GraphStoreInternals) public mutating func u16() throws -> UInt16 {
        let b = try take(2)
        return UInt16(b[0]) | UInt16(b[1]) << 8
    }

    /// Reads a little-endian `UInt32`.
    @inlinable @_spi(GraphStoreInternals) public mutating func u32() throws -> UInt32 {
        UInt32(littleEndian: try take(4).loadUnaligned(as: UInt32.self))
    }

    /// Reads a little-endian `UInt64`.
    @inlinable @_spi(GraphStoreInternals) public mutating func u64() throws -> UInt64 {
        UInt64(littleEndian: try take(8).loadUnaligned(as: UInt64.self))
    }

    /// Reads a LEB128 varint; throws past the end, or for one longer than
    /// ten bytes or over 64 bits.
    @inlinable @_spi(GraphStoreInternals) public mutating func varint() throws -> UInt64 {
        var result: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try u8()
            if shift == 63 && byte > 1 { throw fail("varint overflows 64 bits") }
            result |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return result }
            shift += 7
            if shift > 63 { throw fail("varint longer than 10 bytes") }
        }
    }

    /// A varint that must fit in Int and be at most `limit`.
    @inlinable @_spi(GraphStoreInternals) public mutating func count(limit: Int) throws -> Int {
        let v = try varint()
        guard v <= UInt64(limit) else { throw fail("count \(v) exceeds \(limit)") }
        return Int(v)
    }

    /// Reads a varint that must fit in 32 bits.
    @inlinable @_spi(GraphStoreInternals) public mutating func varintUInt32() throws -> UInt32 {
        let v = try varint()
        guard v <= UInt64(UInt32.max) else { throw fail("value \(v) exceeds 32 bits") }
        return UInt32(v)
    }

    /// Reads a zigzag-encoded signed varint.
    @inlinable @_spi(GraphStoreInternals) public mutating func zigzag() throws -> Int64 {
        let v = try varint()
        return Int64(bitPattern: v >> 1) ^ -Int64(bitPattern: v & 1)
    }

    package mutating func bytes(_ n: Int) throws -> [UInt8] { Array(try take(n)) }

    package mutating func lengthPrefixed() throws -> [UInt8] {
        try bytes(try count(limit: remaining))
    }

    /// Reads a string written by `ByteWriter.string`; throws for bytes that are not UTF-8.
    @inlinable @_spi(GraphStoreInternals) public mutating func string() throws -> String {
        let raw = try take(try count(limit: remaining))
        // ASCII (nearly every stored key and name) is valid UTF-8 as it stands, and decoding a
        // typed buffer is a direct copy; `String(validating:as:)` on a raw buffer goes through
        // generic code that looked up type metadata for every string.
        let bytes = raw.assumingMemoryBound(to: UInt8.self)
        if bytes.isASCII { return String(decoding: bytes, as: UTF8.self) }
        guard let s = String(validating: bytes, as: UTF8.self) else { throw fail("invalid UTF-8") }
        return s
    }

    /// `count` elements written by `ByteWriter.elements`. Only for integer and floating-point
    /// types, for which every bit pattern is a valid value.
    package mutating func elements<T: BitwiseCopyable>(_ type: T.Type, count: Int) throws -> [T] {
        let stride = MemoryLayout<T>.stride
        guard count >= 0, count <= remaining / max(stride, 1) else { throw fail("\(count) elements need more than the \(remaining) bytes left") }
        let raw = try take(count * stride)
        // (No buffer for nothing: with a count of 0 the initialiser writes the count into the
        // one shared empty array, which checkpoint tables decoded side by side raced on.)
        guard count > 0 else { return [] }
        return [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
            initialized = count
        }
    }

    /// `count` bools written by `ByteWriter.bools`; any byte other than 0 or 1 is refused.
    package mutating func bools(count: Int) throws -> [Bool] {
        let raw = try take(count)
        // Check every byte first (a tight loop), then copy them whole: 0 and 1 are Bool's bit patterns.
        var invalid: UInt8 = 0
        for byte in raw { invalid |= byte & 0xFE }
        guard invalid == 0 else { throw fail("a bool byte other than 0 or 1") }
        guard count > 0 else { return [] }
        return [Bool](unsafeUninitializedCapacity: count) { buffer, initialized in
            UnsafeMutableRawBufferPointer(buffer).copyMemory(from: raw)
            initialized = count
        }
    }
}

#if _endian(big)
#error("GraphStore's checkpoint columns are written in memory order, which the format fixes as little-endian")
#endif

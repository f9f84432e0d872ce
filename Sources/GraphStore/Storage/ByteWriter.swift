/// Appends the primitives of GraphStore's binary formats to a growable byte buffer.
/// All integers are little-endian; `varint` is LEB128 (7 bits a byte, low group first).
public struct ByteWriter: Sendable {
    public private(set) var bytes: [UInt8]

    public init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    public var count: Int { bytes.count }

    public mutating func u8(_ v: UInt8) { bytes.append(v) }

    public mutating func u16(_ v: UInt16) {
        bytes.append(UInt8(truncatingIfNeeded: v))
        bytes.append(UInt8(truncatingIfNeeded: v >> 8))
    }

    public mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func u64(_ v: UInt64) {
        withUnsafeBytes(of: v.littleEndian) { bytes.append(contentsOf: $0) }
    }

    public mutating func varint(_ v: UInt64) {
        var v = v
        while v >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: v) | 0x80)
            v >>= 7
        }
        bytes.append(UInt8(v))
    }

    public mutating func varint(_ v: Int) { varint(UInt64(v)) }

    /// Zig-zag maps small negative numbers to small varints.
    public mutating func zigzag(_ v: Int64) { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    public mutating func raw<C: Collection>(_ data: C) where C.Element == UInt8 { bytes.append(contentsOf: data) }

    /// A varint length, then the bytes.
    public mutating func lengthPrefixed<C: Collection>(_ data: C) where C.Element == UInt8 {
        varint(data.count)
        bytes.append(contentsOf: data)
    }

    public mutating func string(_ s: String) {
        var s = s
        s.withUTF8 { lengthPrefixed($0) }
    }

    /// Overwrites 8 bytes at `offset` (for fields filled in after encoding, like a transaction number).
    public mutating func patchU64(_ v: UInt64, at offset: Int) {
        withUnsafeBytes(of: v.littleEndian) { src in
            for i in 0..<8 { bytes[offset + i] = src[i] }
        }
    }

    public mutating func patchU32(_ v: UInt32, at offset: Int) {
        withUnsafeBytes(of: v.littleEndian) { src in
            for i in 0..<4 { bytes[offset + i] = src[i] }
        }
    }

    /// The elements' bytes as they lie in memory: little-endian on every platform GraphStore
    /// builds for (see the check in ByteReader). For checkpoint columns: one copy, no per-element work.
    mutating func elements<T: BitwiseCopyable>(_ values: [T]) {
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }

    /// Bools as one byte each (0 or 1).
    mutating func bools(_ values: [Bool]) {
        values.withUnsafeBytes { bytes.append(contentsOf: $0) }
    }
}

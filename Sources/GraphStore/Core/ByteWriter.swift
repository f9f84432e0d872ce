/// Appends the primitives of GraphStore's binary formats to a growable byte buffer.
/// All integers are little-endian; `varint` is LEB128 (7 bits a byte, low group first).
///
/// Noncopyable, so that it owns its buffer alone and writes go straight to memory: through an
/// array, every byte appended paid a copy-on-write uniqueness check (a runtime call) and a
/// capacity test, most of encoding a transaction.
@_spi(GraphStoreInternals) public struct ByteWriter: ~Copyable, @unchecked Sendable {
    @usableFromInline var base: UnsafeMutablePointer<UInt8>
    @usableFromInline var capacity: Int
    @usableFromInline package internal(set) var count: Int

    package init(capacity: Int = 256) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
        count = 0
    }

    deinit { base.deallocate() }

    /// The bytes written so far (a copy).
    package var bytes: [UInt8] { Array(UnsafeBufferPointer(start: base, count: count)) }

    /// The bytes written so far, in place: valid until the writer next changes.
    package var written: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets what was written, keeping the buffer (a writer handing its bytes on in pieces).
    package mutating func removeAll() { count = 0 }

    /// The bytes written, handed over without a copy.
    package consuming func finish() -> WrittenBytes {
        let written = WrittenBytes(base: base, count: count)
        discard self
        return written
    }

    /// Makes room for `extra` more bytes.
    @inlinable mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toAtLeast: count + extra) }
    }

    @usableFromInline mutating func grow(toAtLeast needed: Int) {
        let newCapacity = max(needed, capacity * 2)
        let fresh = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        fresh.initialize(from: base, count: count)
        base.deallocate()
        base = fresh
        capacity = newCapacity
    }

    @inlinable mutating func append(_ buffer: UnsafeRawBufferPointer) {
        guard let source = buffer.baseAddress, !buffer.isEmpty else { return }
        reserve(buffer.count)
        UnsafeMutableRawPointer(base + count).copyMemory(from: source, byteCount: buffer.count)
        count += buffer.count
    }

    /// Appends a byte.
    @inlinable @_spi(GraphStoreInternals) public mutating func u8(_ v: UInt8) {
        reserve(1)
        base[count] = v
        count += 1
    }

    /// Appends `v`, little-endian.
    @inlinable @_spi(GraphStoreInternals) public mutating func u16(_ v: UInt16) {
        withUnsafeBytes(of: v.littleEndian) { append($0) }
    }

    /// Appends `v`, little-endian.
    @inlinable @_spi(GraphStoreInternals) public mutating func u32(_ v: UInt32) {
        withUnsafeBytes(of: v.littleEndian) { append($0) }
    }

    /// Appends `v`, little-endian.
    @inlinable @_spi(GraphStoreInternals) public mutating func u64(_ v: UInt64) {
        withUnsafeBytes(of: v.littleEndian) { append($0) }
    }

    // Always inlined: the encoders' loops write several per operation, and a call each was a
    // measurable share of encoding a large transaction.
    /// Appends `v` as a LEB128 varint (7 bits a byte, low first).
    @inlinable @inline(__always) @_spi(GraphStoreInternals) public mutating func varint(_ v: UInt64) {
        reserve(10)
        var v = v, end = base + count
        while v >= 0x80 {
            end.pointee = UInt8(truncatingIfNeeded: v) | 0x80
            end += 1
            v >>= 7
        }
        end.pointee = UInt8(v)
        count = end + 1 - base
    }

    /// Appends a non-negative `v` as a varint.
    @inlinable @_spi(GraphStoreInternals) public mutating func varint(_ v: Int) { varint(UInt64(v)) }

    /// Zig-zag maps small negative numbers to small varints.
    @inlinable @_spi(GraphStoreInternals) public mutating func zigzag(_ v: Int64) { varint(UInt64(bitPattern: (v << 1) ^ (v >> 63))) }

    /// `n` zero bytes (a header filled in later). Not `raw(repeatElement(0, …))`: from another
    /// module that generic runs unspecialised, looking up type metadata at every byte.
    @inlinable @_spi(GraphStoreInternals) public mutating func zeros(_ n: Int) {
        reserve(n)
        (base + count).initialize(repeating: 0, count: n)
        count += n
    }

    /// Appends `data` as it is.
    @inlinable @_spi(GraphStoreInternals) public mutating func raw<C: Collection>(_ data: C) where C.Element == UInt8 {
        reserve(data.count)
        for byte in data {
            base[count] = byte
            count += 1
        }
    }

    /// A varint length, then the bytes.
    package mutating func lengthPrefixed<C: Collection>(_ data: C) where C.Element == UInt8 {
        varint(data.count)
        raw(data)
    }

    package mutating func lengthPrefixed(_ data: [UInt8]) {
        varint(data.count)
        data.withUnsafeBytes { append($0) }
    }

    /// Appends `s` as its UTF-8 length (a varint) then its bytes.
    @inlinable @_spi(GraphStoreInternals) public mutating func string(_ s: String) {
        // A small ASCII string (an ident, a code) is copied from its own two words: its length
        // is one varint byte, and all 16 bytes are stored, the count advanced past its own.
        if let (low, high, length) = s.smallASCIIWords {
            reserve(17)
            base[count] = UInt8(length)
            let bytes = UnsafeMutableRawPointer(base + count + 1)
            bytes.storeBytes(of: low, as: UInt64.self)
            bytes.storeBytes(of: high, toByteOffset: 8, as: UInt64.self)
            count += 1 + length
            return
        }
        // A native string's bytes are read in place; only another (a bridged one) is copied,
        // which `withUTF8` needs a mutable string for (a retain and release per string).
        let done: Void? = s.utf8.withContiguousStorageIfAvailable { utf8 in
            varint(utf8.count)
            append(UnsafeRawBufferPointer(utf8))
        }
        guard done == nil else { return }
        var copy = s
        copy.withUTF8 { utf8 in
            varint(utf8.count)
            append(UnsafeRawBufferPointer(utf8))
        }
    }

    /// Overwrites 8 bytes at `offset` (for fields filled in after encoding, like a transaction number).
    package mutating func patchU64(_ v: UInt64, at offset: Int) {
        precondition(offset >= 0 && offset + 8 <= count, "patch inside what was written")
        withUnsafeBytes(of: v.littleEndian) { UnsafeMutableRawPointer(base + offset).copyMemory(from: $0.baseAddress!, byteCount: 8) }
    }

    package mutating func patchU8(_ v: UInt8, at offset: Int) {
        precondition(offset >= 0 && offset < count, "patch inside what was written")
        base[offset] = v
    }

    package mutating func patchU32(_ v: UInt32, at offset: Int) {
        precondition(offset >= 0 && offset + 4 <= count, "patch inside what was written")
        withUnsafeBytes(of: v.littleEndian) { UnsafeMutableRawPointer(base + offset).copyMemory(from: $0.baseAddress!, byteCount: 4) }
    }

    /// The elements' bytes as they lie in memory: little-endian on every platform GraphStore
    /// builds for (see the check in ByteReader). For checkpoint columns: one copy, no per-element work.
    @inlinable @_spi(GraphStoreInternals) public mutating func elements<T: BitwiseCopyable>(_ values: [T]) {
        values.withUnsafeBytes { append($0) }
    }

    /// Bools as one byte each (0 or 1).
    package mutating func bools(_ values: [Bool]) {
        values.withUnsafeBytes { append($0) }
    }
}

/// What a `ByteWriter` wrote, owned here now. A log record can be megabytes (an import's one
/// transaction): copying it into an array touched every page twice, and from a trimmed heap each
/// fresh page is a fault the kernel zeroes (a fortieth of a 10k import).
package final class WrittenBytes: @unchecked Sendable {  // written only before it is shared
    private let base: UnsafeMutablePointer<UInt8>
    package let count: Int

    fileprivate init(base: UnsafeMutablePointer<UInt8>, count: Int) {
        self.base = base
        self.count = count
    }

    deinit { base.deallocate() }

    package var buffer: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    package subscript(index: Int) -> UInt8 {
        get { precondition(index >= 0 && index < count); return base[index] }
        set { precondition(index >= 0 && index < count); base[index] = newValue }
    }
}

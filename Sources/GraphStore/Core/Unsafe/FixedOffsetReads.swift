/// Integers read at a fixed offset of a byte buffer, as the log's record framing and the
/// checkpoint file's header are read: the one place outside `ByteReader` that loads from raw
/// bytes. Decoders check a frame's length before reading its fields; the precondition here
/// turns a read past the end that such a check missed into a stop with a message rather than
/// a read of whatever memory follows.
extension UnsafeRawBufferPointer {
    /// The little-endian `T` at `offset`.
    @inlinable
    @_spi(GraphStoreInternals) public func littleEndian<T: FixedWidthInteger>(_: T.Type, at offset: Int) -> T {
        precondition(offset >= 0 && offset <= count - MemoryLayout<T>.size,
                     "a \(T.self) read at offset \(offset) of \(count) bytes")
        return T(littleEndian: loadUnaligned(fromByteOffset: offset, as: T.self))
    }
}

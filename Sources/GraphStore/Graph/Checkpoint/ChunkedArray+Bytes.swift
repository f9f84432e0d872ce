@_spi(GraphStoreInternals) import GraphStoreCore

// Chunked columns written and read chunk by chunk: the bytes are those of the flat array (the
// format has no chunks), and reading never holds a column twice.

extension ByteWriter {
    package mutating func elements<T: BitwiseCopyable>(_ values: ChunkedArray<T>) {
        for chunk in values.contiguousChunks { elements(chunk) }
    }

    package mutating func bools(_ values: ChunkedArray<Bool>) {
        for chunk in values.contiguousChunks { bools(chunk) }
    }
}

extension ByteReader {
    /// `count` elements written by `ByteWriter.elements`, as a chunked array.
    package mutating func chunkedElements<T: BitwiseCopyable>(_ type: T.Type, count: Int) throws -> ChunkedArray<T> {
        // The whole count is checked against what is left before anything is read.
        guard count >= 0, count <= remaining / max(MemoryLayout<T>.stride, 1) else {
            throw fail("\(count) elements need more than the \(remaining) bytes left")
        }
        var values = ChunkedArray<T>()
        while values.count < count {
            values.appendChunk(try elements(T.self, count: Swift.min(ChunkedArray<T>.chunkCapacity, count - values.count)))
        }
        return values
    }

    /// `count` bools written by `ByteWriter.bools`, as a chunked array.
    package mutating func chunkedBools(count: Int) throws -> ChunkedArray<Bool> {
        guard count >= 0, count <= remaining else { throw fail("\(count) bools need more than the \(remaining) bytes left") }
        var values = ChunkedArray<Bool>()
        while values.count < count {
            values.appendChunk(try bools(count: Swift.min(ChunkedArray<Bool>.chunkCapacity, count - values.count)))
        }
        return values
    }

    /// `count` values read one by one by `read`, each chunk filled as an array of its own.
    package mutating func chunked<T>(count: Int, _ read: (inout ByteReader) throws -> T) throws -> ChunkedArray<T> {
        var values = ChunkedArray<T>()
        while values.count < count {
            let size = Swift.min(ChunkedArray<T>.chunkCapacity, count - values.count)
            var chunk: [T] = []
            chunk.reserveCapacity(size)
            for _ in 0..<size { chunk.append(try read(&self)) }
            values.appendChunk(chunk)
        }
        return values
    }
}

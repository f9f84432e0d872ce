import Testing
@_spi(GraphStoreInternals) @testable import GraphStoreGraph
import GraphStoreTestSupport
@_spi(GraphStoreInternals) import GraphStoreCore

/// Chunked per-row storage against plain arrays, and what a captured copy shares: a write copies
/// the one chunk it lands in, never the whole array.
@Suite struct ChunkedArrayTests {
    static let capacity = ChunkedArray<Int>.chunkCapacity

    /// Appends of single elements and of runs, writes anywhere, across chunk boundaries: the same
    /// elements as an array in every position.
    @Test(arguments: [1, 2, 3])
    func matchesAnArray(seed: UInt64) {
        var random = SplitMix64(seed: seed)
        var chunked = ChunkedArray<Int>()
        var expected: [Int] = []
        for step in 0..<400 {
            switch random.next() % 4 {
            case 0:
                let element = Int(truncatingIfNeeded: random.next())
                chunked.append(element)
                expected.append(element)
            case 1:
                // Runs up to a chunk and a half, so that some fill a chunk and start the next.
                let count = Int(random.next() % UInt64(Self.capacity + Self.capacity / 2))
                chunked.append(repeating: step, count: count)
                expected.append(contentsOf: repeatElement(step, count: count))
            default:
                guard !expected.isEmpty else { continue }
                let position = Int(random.next() % UInt64(expected.count))
                chunked[position] = -step
                expected[position] = -step
            }
            #expect(chunked.count == expected.count)
        }
        #expect(Array(chunked) == expected)
        #expect(chunked.array == expected)
        #expect(chunked == ChunkedArray(expected))
        #expect(chunked.chunkCount == (expected.count + Self.capacity - 1) / Self.capacity)
        // Every chunk but the last is full, and each is in order.
        #expect(chunked.contiguousChunks.dropLast().allSatisfy { $0.count == Self.capacity })
        #expect(chunked.contiguousChunks.flatMap { $0 } == expected)
    }

    /// A copy (a checkpoint's capture) keeps its elements while the original is written, and the
    /// write copied only the chunk it landed in.
    @Test func aCopySharesEveryChunkButTheOneWritten() {
        var live = ChunkedArray(Array(0..<(Self.capacity * 5 + 7)))
        let captured = live
        for chunk in 0..<live.chunkCount { #expect(live.sharesChunk(chunk, with: captured)) }
        live[Self.capacity * 2 + 3] = -1
        #expect(captured[Self.capacity * 2 + 3] == Self.capacity * 2 + 3)
        #expect(live[Self.capacity * 2 + 3] == -1)
        for chunk in 0..<live.chunkCount { #expect(live.sharesChunk(chunk, with: captured) == (chunk != 2), "chunk \(chunk)") }
        // Growing the original copies only the last chunk, which it appends to.
        live.append(repeating: 9, count: Self.capacity)
        #expect(captured.count == Self.capacity * 5 + 7)
        #expect(live.count == Self.capacity * 6 + 7)
        for chunk in 0..<captured.chunkCount { #expect(live.sharesChunk(chunk, with: captured) == (chunk != 2 && chunk != 5), "chunk \(chunk)") }
        #expect(Array(captured) == Array(0..<(Self.capacity * 5 + 7)))
    }

    /// Written out a chunk at a time and read back into chunks, the bytes are those of the flat
    /// array, and a count the bytes cannot hold is refused before anything is read.
    @Test func bytesAreTheFlatArrays() throws {
        let values = ChunkedArray((0..<(Self.capacity * 2 + 5)).map { UInt32($0 * 3) })
        let flags = ChunkedArray((0..<(Self.capacity + 1)).map { $0 % 3 == 0 })
        var chunked = ByteWriter(), flat = ByteWriter()
        chunked.elements(values)
        chunked.bools(flags)
        flat.elements(values.array)
        flat.bools(flags.array)
        #expect(chunked.bytes == flat.bytes)
        let bytes = chunked.bytes
        let (readValues, readFlags, atEnd) = try bytes.withUnsafeBytes { raw throws -> (ChunkedArray<UInt32>, ChunkedArray<Bool>, Bool) in
            var reader = ByteReader(raw)
            return (try reader.chunkedElements(UInt32.self, count: values.count), try reader.chunkedBools(count: flags.count), reader.isAtEnd)
        }
        #expect(readValues == values)
        #expect(readFlags == flags)
        #expect(atEnd)
        let tooMany: Result<ChunkedArray<UInt64>, any Error> = bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            return Result { try reader.chunkedElements(UInt64.self, count: values.count * 2) }
        }
        let tooManyFlags: Result<ChunkedArray<Bool>, any Error> = bytes.withUnsafeBytes { raw in
            var reader = ByteReader(raw)
            return Result { try reader.chunkedBools(count: bytes.count + 1) }
        }
        #expect(throws: ByteReader.Error.self) { try tooMany.get() }
        #expect(throws: ByteReader.Error.self) { try tooManyFlags.get() }
    }

    /// A column captured as a checkpoint image keeps its values while rows are written and added,
    /// and the writes left every other chunk shared with the image.
    @Test func aColumnImageStaysAsCapturedWhileTheColumnIsWritten() {
        let column = Column(type: AttributeType(kind: .int(bits: 64), isOptional: true), defaultValue: Value.null)
        let rows = Self.capacity * 3
        column.grow(to: rows)
        for slot in 0..<rows { column.set(.int(Int64(slot)), at: slot) }
        let image = column.image()
        column.set(.int(-1), at: Self.capacity + 1)
        column.set(.null, at: 5)
        column.grow(to: rows + 10)
        column.set(.int(7), at: rows + 3)
        let restored = Column(type: column.type, defaultValue: .null)
        restored.restore(image)
        #expect(restored.count == rows)
        for slot in 0..<rows { #expect(restored.value(at: slot) == Value.int(Int64(slot)), "slot \(slot)") }
        #expect(column.value(at: Self.capacity + 1) == .int(-1))
        #expect(column.value(at: 5) == .null)
        #expect(column.value(at: rows + 3) == .int(7))
        let after = column.image()
        #expect(after.ints.sharesChunk(2, with: image.ints))
        #expect(!after.ints.sharesChunk(1, with: image.ints))
        #expect(after.nulls.sharesChunk(1, with: image.nulls) && after.nulls.sharesChunk(2, with: image.nulls))
    }

    /// A read checks its position once, against the count, and the reads under that check are
    /// unchecked: a position past the last element, in the last chunk's spare room or past the
    /// chunks, or below zero, must still stop the program rather than read memory.
    @Test func aReadOutsideTheElementsStopsTheProgram() async {
        // Exit tests capture nothing, so each position is written out.
        await #expect(processExitsWith: .failure) { _ = ChunkedArrayTests.chunkAndOne()[ChunkedArrayTests.capacity + 1] }
        await #expect(processExitsWith: .failure) { _ = ChunkedArrayTests.chunkAndOne()[ChunkedArrayTests.capacity * 2] }
        await #expect(processExitsWith: .failure) { _ = ChunkedArrayTests.chunkAndOne()[-1] }
    }

    /// A full chunk and one element, with room reserved for a second full chunk.
    static func chunkAndOne() -> ChunkedArray<Int> {
        var chunked = ChunkedArray<Int>()
        chunked.reserveCapacity(capacity * 2)
        chunked.append(repeating: 1, count: capacity + 1)
        #expect(chunked[capacity] == 1)
        return chunked
    }
}

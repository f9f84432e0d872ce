/// A growable array of per-row values kept in chunks of `chunkCapacity` elements, each chunk an
/// array of its own and so copy-on-write on its own.
///
/// The graph's tables hold a value per row in each of these (a column, the live flags, a
/// to-one's targets). Two costs of one flat array grew with the table rather than with a save:
/// - A checkpoint captures the tables by sharing their arrays (O(1)); a save committed while it
///   is written then copied every array it wrote to, whole — at a million rows, a hundred-odd
///   megabytes in one save. Here the capture shares the chunks, and a later write copies the
///   list of chunks (a reference per 4,096 rows) and the one chunk it writes.
/// - Growing past the capacity reallocated and copied the whole array. Here only the last
///   chunk grows (up to `chunkCapacity`); a full table gains a new chunk.
///
/// Every chunk but the last holds exactly `chunkCapacity` elements, so a position's chunk is
/// its high bits and its place in the chunk its low bits, and two arrays with the same elements
/// have the same chunks.
package struct ChunkedArray<Element> {
    /// log₂ of the elements a full chunk holds.
    package static var chunkShift: Int { 12 }
    package static var chunkCapacity: Int { 1 << chunkShift }
    @inline(__always) private static var offsetMask: Int { chunkCapacity - 1 }

    private var chunks: [[Element]] = []
    package private(set) var count = 0

    package init() {}

    /// The elements of `elements`, in order.
    package init(_ elements: some Collection<Element>) {
        chunks.reserveCapacity((elements.count + Self.chunkCapacity - 1) / Self.chunkCapacity)
        var rest = elements[...]
        while !rest.isEmpty {
            let chunk = rest.prefix(Self.chunkCapacity)
            chunks.append(Array(chunk))
            rest = rest[chunk.endIndex...]
        }
        count = elements.count
    }

    package init(repeating element: Element, count: Int) {
        append(repeating: element, count: count)
    }

    @inline(__always)
    package subscript(position: Int) -> Element {
        // One bounds check, against `count`: every chunk before the last is full, so a position
        // below `count` is inside its chunk. The reads under it are unchecked because this is
        // every attribute read's path, where the two checks of nested arrays showed in a fetch
        // that reads everything (BENCHMARKS.md).
        get {
            precondition(UInt(bitPattern: position) < UInt(bitPattern: count), "ChunkedArray index out of range")
            return chunks.withUnsafeBufferPointer { chunks in
                chunks[position &>> Self.chunkShift].withUnsafeBufferPointer { $0[position & Self.offsetMask] }
            }
        }
        _modify { yield &chunks[position &>> Self.chunkShift][position & Self.offsetMask] }
    }

    package mutating func append(_ element: Element) {
        if count & Self.offsetMask == 0 {
            chunks.append([element])
        } else {
            chunks[chunks.count - 1].append(element)
        }
        count += 1
    }

    /// Appends `count` copies of `element`.
    package mutating func append(repeating element: Element, count extra: Int) {
        var remaining = extra
        while remaining > 0 {
            let room = Self.chunkCapacity - count & Self.offsetMask
            let taken = Swift.min(room, remaining)
            if room == Self.chunkCapacity {
                chunks.append(Array(repeating: element, count: taken))
            } else {
                // One element at a time: through `repeatElement`, the generic sequence path cost
                // more than the rows (a table grows by a slot per inserted row).
                for _ in 0..<taken { chunks[chunks.count - 1].append(element) }
            }
            count += taken
            remaining -= taken
        }
    }

    /// Appends `elements` as one chunk, as they are (no copy): a full chunk, or a shorter last
    /// one. For readers that make whole chunks (checkpoint decoding).
    package mutating func appendChunk(_ elements: [Element]) {
        precondition(count & Self.offsetMask == 0 && elements.count <= Self.chunkCapacity, "whole chunks, after whole chunks")
        guard !elements.isEmpty else { return }
        chunks.append(elements)
        count += elements.count
    }

    /// Makes room for `capacity` elements in all: the list of chunks, and the last chunk up
    /// to its full size (a bulk load then grows no chunk by doubling).
    package mutating func reserveCapacity(_ capacity: Int) {
        guard capacity > count else { return }
        chunks.reserveCapacity((capacity + Self.chunkCapacity - 1) / Self.chunkCapacity)
        if let last = chunks.indices.last, count & Self.offsetMask != 0 {
            chunks[last].reserveCapacity(Swift.min(Self.chunkCapacity, chunks[last].count + capacity - count))
        }
    }

    /// Every element, in one array.
    package var array: [Element] {
        var all: [Element] = []
        all.reserveCapacity(count)
        for chunk in chunks { all.append(contentsOf: chunk) }
        return all
    }

    /// How many elements equal `element`, a chunk at a time (a restore counts the set flags of
    /// a million rows).
    package func count(of element: Element) -> Int where Element: Equatable {
        var total = 0
        for chunk in chunks {
            chunk.withUnsafeBufferPointer { elements in
                for candidate in elements where candidate == element { total += 1 }
            }
        }
        return total
    }

    /// The chunks, in order: for readers that take a run of elements at a time (the checkpoint
    /// writer, scans).
    package var contiguousChunks: [[Element]] { chunks }

    /// The address of the element at `position` while the array is not changed, for a
    /// prefetch; nil past the end.
    @inline(__always)
    package func address(of position: Int) -> UnsafeMutablePointer<Element>? {
        guard position >= 0, position < count else { return nil }
        return chunks[position &>> Self.chunkShift]._baseAddressIfContiguous.map { $0 + (position & Self.offsetMask) }
    }

    /// Whether chunk `chunk` is one storage with `other`'s chunk at the same place (neither
    /// was written to since they were one array): what a capture shares.
    package func sharesChunk(_ chunk: Int, with other: ChunkedArray) -> Bool {
        guard chunk < chunks.count, chunk < other.chunks.count else { return false }
        return chunks[chunk]._baseAddressIfContiguous == other.chunks[chunk]._baseAddressIfContiguous
    }

    /// How many chunks the elements take.
    package var chunkCount: Int { chunks.count }
}

extension ChunkedArray: RandomAccessCollection, MutableCollection {
    package typealias Index = Int
    package typealias Indices = Range<Int>
    package var startIndex: Int { 0 }
    package var endIndex: Int { count }
    package var indices: Range<Int> { 0..<count }
    package var isEmpty: Bool { count == 0 }
}

extension ChunkedArray: Equatable where Element: Equatable {
    package static func == (lhs: ChunkedArray, rhs: ChunkedArray) -> Bool {
        lhs.count == rhs.count && lhs.chunks == rhs.chunks
    }
}

extension ChunkedArray: ExpressibleByArrayLiteral {
    package init(arrayLiteral elements: Element...) {
        self.init(elements)
    }
}

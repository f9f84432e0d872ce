/// A sorted index's order of rows, kept in chunks of at most a thousand or so rows: placing or
/// removing a row moves the rows of one chunk and shifts one small table of chunk starts, so a
/// small save's index upkeep does not grow with the table. (As one array, a million rows are
/// 4 MB, copied on every save that touched the attribute.)
package struct SortedRows {
    /// Rows a chunk is filled with when built; a chunk that grows past twice this splits in two.
    package static let chunkSize = 512

    private var chunks: [[UInt32]] = []
    /// The position of each chunk's first row.
    private var starts: [Int] = []
    package private(set) var count = 0

    package init() {}

    package init(_ rows: [UInt32]) {
        count = rows.count
        chunks.reserveCapacity(rows.count / Self.chunkSize + 1)
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Self.chunkSize)
            chunks.append(Array(rows[start..<end]))
            starts.append(start)
            start = end
        }
    }

    package var isEmpty: Bool { count == 0 }

    /// Every row, in order.
    package var array: [UInt32] {
        var result: [UInt32] = []
        result.reserveCapacity(count)
        for chunk in chunks { result.append(contentsOf: chunk) }
        return result
    }

    package subscript(position: Int) -> UInt32 {
        let (chunk, offset) = locate(position)
        return chunks[chunk][offset]
    }

    /// The first position whose row `isBefore` rejects, where `isBefore` holds for every row up
    /// to some position and for none after it (the order's own sort): chunk by chunk on their
    /// last rows, then inside the one chunk, so each probe reads one row.
    package func firstPosition(where isBefore: (UInt32) -> Bool) -> Int {
        var low = 0, high = chunks.count
        while low < high {
            let mid = (low + high) / 2
            if isBefore(chunks[mid][chunks[mid].count - 1]) { low = mid + 1 } else { high = mid }
        }
        guard low < chunks.count else { return count }
        let chunk = chunks[low]
        var first = 0, last = chunk.count
        while first < last {
            let mid = (first + last) / 2
            if isBefore(chunk[mid]) { first = mid + 1 } else { last = mid }
        }
        return starts[low] + first
    }

    /// The rows at `range`'s positions, in order.
    package func rows(at range: Range<Int>) -> [UInt32] {
        guard !range.isEmpty else { return [] }
        var result: [UInt32] = []
        result.reserveCapacity(range.count)
        var (chunk, offset) = locate(range.lowerBound)
        var remaining = range.count
        while remaining > 0 {
            let take = min(remaining, chunks[chunk].count - offset)
            result.append(contentsOf: chunks[chunk][offset..<(offset + take)])
            remaining -= take
            chunk += 1
            offset = 0
        }
        return result
    }

    package func contains(_ row: UInt32) -> Bool { chunks.contains { $0.contains(row) } }

    /// Puts `row` at `position` (0...count), after the rows before it.
    package mutating func insert(_ row: UInt32, at position: Int) {
        guard !chunks.isEmpty else {
            chunks = [[row]]
            starts = [0]
            count = 1
            return
        }
        let (chunk, offset) = locate(position)
        chunks[chunk].insert(row, at: offset)
        count += 1
        for later in (chunk + 1)..<starts.count { starts[later] += 1 }
        if chunks[chunk].count > 2 * Self.chunkSize {
            let half = chunks[chunk].count / 2
            let tail = Array(chunks[chunk][half...])
            chunks[chunk].removeLast(tail.count)
            chunks.insert(tail, at: chunk + 1)
            starts.insert(starts[chunk] + half, at: chunk + 1)
        }
    }

    /// Takes out the row at `position`.
    package mutating func remove(at position: Int) {
        let (chunk, offset) = locate(position)
        chunks[chunk].remove(at: offset)
        count -= 1
        for later in (chunk + 1)..<starts.count { starts[later] -= 1 }
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            starts.remove(at: chunk)
        }
    }

    /// The chunk holding `position`, and the position within it (for `count`, the end of the
    /// last chunk).
    private func locate(_ position: Int) -> (chunk: Int, offset: Int) {
        precondition(position >= 0 && position <= count && !chunks.isEmpty, "position \(position) of \(count)")
        var low = 0, high = starts.count - 1
        while low < high {
            let mid = (low + high + 1) / 2
            if starts[mid] <= position { low = mid } else { high = mid - 1 }
        }
        return (low, position - starts[low])
    }
}

import GraphStoreCore

/// A sorted index's order of rows, kept in chunks of at most a thousand or so rows: placing or
/// removing a row moves the rows of one chunk and updates the chunks' starts in about
/// log₂(chunks) steps (`ChunkStarts`), so a small save's index upkeep does not grow with the
/// table. (As one array, a million rows are
/// 4 MB, copied on every save that touched the attribute.)
///
/// Each chunk's last row and the value that placed it are kept together in one array (its
/// fence), so a search steps from chunk to chunk reading only that array: without it, each step
/// missed the cache three times (the chunk's buffer, its last row, that row's column value),
/// which was most of a small save's index upkeep on a large table. The values are supplied by
/// the caller (`value`): the order holds rows, not values, and only the caller knows which
/// value a row was placed by while its column already holds a new one.
///
/// An order of an integer column also keeps each row's value as an order key beside it
/// (`keys`, chunk by chunk): a search inside a chunk then reads one small array of keys, where
/// each probe otherwise read the row and, at another place in memory, its column value — two
/// cache misses a probe, most of a small save's index upkeep on a large table.
package struct SortedRows {
    /// Rows a chunk is filled with when built; a chunk that grows past twice this splits in two.
    package static let chunkSize = 512

    /// A chunk's last row and the value it is placed by.
    private struct Fence {
        var row: UInt32
        var value: Value
    }

    private var chunks: [[UInt32]] = []
    /// The position of each chunk's first row.
    private var starts = ChunkStarts(counts: [])
    private var fences: [Fence] = []
    /// With `isKeyed`, each chunk's rows' order keys (`Column.orderKey`), position by position.
    private var keys: [[UInt64]] = []
    /// Whether the rows carry order keys.
    package let isKeyed: Bool
    package private(set) var count = 0

    package init(keyed: Bool = false) { isKeyed = keyed }

    /// `rows` in their order; `value` gives the value each row is placed by, and `key`, for an
    /// order that keeps keys, its order key.
    package init(_ rows: [UInt32], value: (UInt32) -> Value, key: ((UInt32) -> UInt64)? = nil) {
        count = rows.count
        isKeyed = key != nil
        chunks.reserveCapacity(rows.count / Self.chunkSize + 1)
        var start = 0
        while start < rows.count {
            let end = min(rows.count, start + Self.chunkSize)
            chunks.append(Array(rows[start..<end]))
            if let key { keys.append(rows[start..<end].map(key)) }
            fences.append(Fence(row: rows[end - 1], value: value(rows[end - 1])))
            start = end
        }
        starts = ChunkStarts(counts: chunks.lazy.map(\.count))
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
    /// fences, then inside the one chunk, each probe reading one row and its `value`.
    package func firstPosition(where isBefore: (_ row: UInt32, _ value: Value) -> Bool, value: (UInt32) -> Value) -> Int {
        let low = chunkIndex(where: isBefore)
        guard low < chunks.count else { return count }
        let chunk = chunks[low]
        var first = 0, last = chunk.count
        while first < last {
            let mid = (first + last) / 2
            if isBefore(chunk[mid], value(chunk[mid])) { first = mid + 1 } else { last = mid }
        }
        return starts.start(ofChunk: low) + first
    }

    /// The first position whose row does not come before `row` placed by a value whose order
    /// key is `key` (`isKeyed` only): the chunk found on the fences, with `isBefore` as in
    /// `firstPosition(where:value:)`, then inside it by the keys alone — rows of an equal key
    /// other than 0 hold an equal value, so they go by row — and through `isBefore` only
    /// where the keys are both 0 (a null or the smallest value).
    package func firstPosition(notBefore row: UInt32, key: UInt64, isBefore: (_ row: UInt32, _ value: Value) -> Bool,
                               value: (UInt32) -> Value) -> Int {
        let low = chunkIndex(where: isBefore)
        guard low < chunks.count else { return count }
        let first = chunks[low].withUnsafeBufferPointer { chunk in
            keys[low].withUnsafeBufferPointer { chunkKeys in
                var first = 0, last = chunk.count
                while first < last {
                    let mid = (first + last) / 2, other = chunkKeys[mid]
                    let before = other != key ? other < key : key != 0 ? chunk[mid] < row : isBefore(chunk[mid], value(chunk[mid]))
                    if before { first = mid + 1 } else { last = mid }
                }
                return first
            }
        }
        return starts.start(ofChunk: low) + first
    }

    /// The first chunk whose fence `isBefore` rejects (chunks.count when none): the chunk a
    /// search continues in.
    private func chunkIndex(where isBefore: (_ row: UInt32, _ value: Value) -> Bool) -> Int {
        var low = 0, high = fences.count
        while low < high {
            let mid = (low + high) / 2
            if isBefore(fences[mid].row, fences[mid].value) { low = mid + 1 } else { high = mid }
        }
        return low
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

    /// Puts `row` at `position` (0...count), after the rows before it; `value` gives the value
    /// a row is placed by, and `key` is its order key (for an order that keeps keys).
    package mutating func insert(_ row: UInt32, at position: Int, key: UInt64 = 0, value: (UInt32) -> Value) {
        guard !chunks.isEmpty else {
            chunks = [[row]]
            if isKeyed { keys = [[key]] }
            starts = ChunkStarts(counts: [1])
            fences = [Fence(row: row, value: value(row))]
            count = 1
            return
        }
        let (chunk, offset) = locate(position)
        chunks[chunk].insert(row, at: offset)
        if isKeyed { keys[chunk].insert(key, at: offset) }
        count += 1
        starts.add(1, toChunk: chunk)
        if offset == chunks[chunk].count - 1 { fences[chunk] = Fence(row: row, value: value(row)) }
        if chunks[chunk].count > 2 * Self.chunkSize {
            let half = chunks[chunk].count / 2
            let tail = Array(chunks[chunk][half...])
            chunks[chunk].removeLast(tail.count)
            chunks.insert(tail, at: chunk + 1)
            if isKeyed {
                keys.insert(Array(keys[chunk][half...]), at: chunk + 1)
                keys[chunk].removeLast(tail.count)
            }
            // The tail keeps the chunk's fence; the head ends at a new last row.
            let headLast = chunks[chunk][half - 1]
            fences.insert(Fence(row: headLast, value: value(headLast)), at: chunk)
            starts = ChunkStarts(counts: chunks.lazy.map(\.count))
        }
    }

    /// Takes out the row at `position`; `value` gives the value a row is placed by.
    package mutating func remove(at position: Int, value: (UInt32) -> Value) {
        let (chunk, offset) = locate(position)
        chunks[chunk].remove(at: offset)
        if isKeyed { keys[chunk].remove(at: offset) }
        count -= 1
        starts.add(-1, toChunk: chunk)
        if chunks[chunk].isEmpty {
            chunks.remove(at: chunk)
            if isKeyed { keys.remove(at: chunk) }
            starts = ChunkStarts(counts: chunks.lazy.map(\.count))
            fences.remove(at: chunk)
        } else if offset == chunks[chunk].count {
            let last = chunks[chunk][offset - 1]
            fences[chunk] = Fence(row: last, value: value(last))
        }
    }

    /// Whether every chunk's fence is its last row with the value `value` gives it, and, in an
    /// order that keeps keys, every row's key the one `key` gives it (for tests).
    package func fencesMatch(value: (UInt32) -> Value, key: ((UInt32) -> UInt64)? = nil) -> Bool {
        let fencesHold = fences.count == chunks.count && zip(chunks, fences).allSatisfy { chunk, fence in
            chunk.last == fence.row && value(fence.row) == fence.value
        }
        guard isKeyed else { return fencesHold && keys.isEmpty }
        guard let key else { return false }
        return fencesHold && keys.count == chunks.count && zip(chunks, keys).allSatisfy { chunk, keys in chunk.map(key) == keys }
    }

    /// The chunk holding `position`, and the position within it (for `count`, the end of the
    /// last chunk).
    private func locate(_ position: Int) -> (chunk: Int, offset: Int) {
        precondition(position >= 0 && position <= count && !chunks.isEmpty, "position \(position) of \(count)")
        return starts.locate(position, lastChunkCount: chunks[chunks.count - 1].count)
    }
}

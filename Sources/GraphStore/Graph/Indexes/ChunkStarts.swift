/// Where each chunk of a `SortedRows` starts, as a Fenwick tree of the chunks' row counts: a
/// chunk's start is a sum over about log₂(chunks) nodes, and a row placed in or taken out of
/// a chunk changes as many. (An array of starts moved every later chunk's start on each row
/// placed or removed: two thousand chunks at a million rows, most of a small save's upkeep
/// of the index.) Adding or removing a whole chunk, once per hundreds of rows, builds the
/// tree again.
struct ChunkStarts {
    /// One-based: node `i` holds the counts of the chunks (i - lowest bit of i)..<i.
    private var tree: [Int]

    /// The starts of chunks of these row counts.
    init(counts: some Collection<Int>) {
        tree = [0] + counts
        for node in tree.indices.dropFirst() {
            let parent = node + (node & -node)
            if parent < tree.count { tree[parent] += tree[node] }
        }
    }

    var chunkCount: Int { tree.count - 1 }

    /// A chunk gained (or, negative, lost) `delta` rows.
    mutating func add(_ delta: Int, toChunk chunk: Int) {
        var node = chunk + 1
        while node < tree.count {
            tree[node] += delta
            node += node & -node
        }
    }

    /// The position of the chunk's first row: the rows of the chunks before it.
    func start(ofChunk chunk: Int) -> Int {
        var sum = 0, node = chunk
        while node > 0 {
            sum += tree[node]
            node -= node & -node
        }
        return sum
    }

    /// The chunk holding `position`, and the position within it; for the position after the
    /// last row, the end of the last chunk (`lastChunkCount` its rows). Needs a chunk.
    func locate(_ position: Int, lastChunkCount: Int) -> (chunk: Int, offset: Int) {
        let chunks = chunkCount
        // Descend from the highest power of two: `chunk` ends as the number of chunks lying
        // wholly before `position`.
        var chunk = 0, remaining = position
        var step = 1 << (Int.bitWidth - 1 - chunks.leadingZeroBitCount)
        while step > 0 {
            let node = chunk + step
            if node <= chunks && tree[node] <= remaining {
                chunk = node
                remaining -= tree[node]
            }
            step >>= 1
        }
        return chunk < chunks ? (chunk, remaining) : (chunks - 1, lastChunkCount)
    }
}

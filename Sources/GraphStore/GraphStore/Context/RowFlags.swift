@_spi(GraphStoreInternals) import GraphStoreCore

/// A set of row numbers of one entity, as a change summary asks it: twice a link for an
/// import's million new rows, a few times for a small save.
///
/// Rows numbered close together (an import's, one after another) are bits of a bitmap that
/// starts at the first row noted; any other row is kept in a `Set` (hashing each row of an
/// import dominated its summary). The bitmap grows only while it stays within a few words per
/// row it holds, so its size follows the rows noted, never the distance between them: a save
/// of two rows a million apart costs two rows, as a save of two neighbours does.
struct RowFlags {
    private var words: [UInt64] = []
    /// The row of the bitmap's first bit.
    private var base: UInt64 = 0
    /// Rows set in the bitmap.
    private var bitmapRows = 0
    /// Rows outside the bitmap when they were noted (some may be inside it since it grew).
    private var others: Set<UInt64> = []

    /// The bitmap may always reach this many words (4,096 rows from its first).
    private static let freeWords = 64
    /// Beyond that, at most this many words per row it holds.
    private static let wordsPerRow = 4

    init() {}

    /// The set of `rows`, the lowest placed first so that the bitmap starts there.
    init(_ rows: some Collection<UInt64>) {
        guard let lowest = rows.min() else { return }
        insert(lowest)
        for row in rows { insert(row) }
    }

    mutating func insert(_ row: UInt64) {
        if words.isEmpty && others.isEmpty { base = row }
        guard row >= base, let word = Int(exactly: (row - base) >> 6), fitsBitmap(word) else {
            others.insert(row)
            return
        }
        if word >= words.count {
            let length = min(max(word + 1, 2 * words.count), allowedWords)
            words.append(repeating: 0, count: length - words.count)
        }
        let bit: UInt64 = 1 << ((row - base) & 63)
        if words[word] & bit == 0 {
            words[word] |= bit
            bitmapRows += 1
        }
    }

    func contains(_ row: UInt64) -> Bool {
        if row >= base {
            let offset = row - base
            if offset >> 6 < UInt64(words.count), words[Int(offset >> 6)] & (1 << (offset & 63)) != 0 { return true }
        }
        return !others.isEmpty && others.contains(row)
    }

    /// The bitmap's length in words (tests: it follows the rows held).
    var bitmapWords: Int { words.count }

    private var allowedWords: Int { max(Self.freeWords, Self.wordsPerRow * (bitmapRows + 1)) }

    private func fitsBitmap(_ word: Int) -> Bool { word < words.count || word < allowedWords }
}

/// `RowFlags` by entity position, made for an entity when it is first given a row: a small
/// save's summary makes flags for the entities it touches, not for every entity of the schema.
struct EntityRowFlags {
    private var byEntity: [RowFlags] = []

    mutating func insert(_ row: UInt64, of entity: Int) {
        if entity >= byEntity.count { byEntity.append(contentsOf: repeatElement(RowFlags(), count: entity + 1 - byEntity.count)) }
        byEntity[entity].insert(row)
    }

    func contains(_ row: UInt64, of entity: Int) -> Bool {
        entity < byEntity.count && byEntity[entity].contains(row)
    }
}

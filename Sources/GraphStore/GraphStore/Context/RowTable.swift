/// Row number → a nonzero word, for a context's identity map: a directory of pages, each
/// holding the words of 64 consecutive rows (and how many of them are set), made when a row of
/// theirs is first set and given back when their last one goes (the last few emptied kept for
/// the next: an object looked up and dropped, over and over, would otherwise allocate and free
/// a page each time).
///
/// Rows are dense small numbers (a table's rows count up from 1), so a row is its own place:
/// nothing is hashed or probed, and objects used in row order (a fetch of every flight, the
/// objects a save lets go of) touch the table in order, a page at a time. A million objects
/// take 8 MB, where a hash table of rows, 70% full, took 57 bytes an object (80 MB), each
/// registration and removal a cache miss wherever the row fell.
///
/// Not copyable, its pages in memory of its own.
struct RowTable: ~Copyable {
    private static let pageShift = 6
    private static let rowsPerPage = 1 << pageShift
    /// A page: its count of set words, then its rows' words (0: unset).
    private typealias Page = UnsafeMutablePointer<UInt>

    private var directory: UnsafeMutablePointer<Page?>
    private var directorySize: Int
    private(set) var count = 0
    /// Emptied pages (all zero), kept for reuse.
    private var spares: [Page] = []
    private static let spareLimit = 8

    init() {
        directorySize = 16
        directory = .allocate(capacity: directorySize)
        directory.initialize(repeating: nil, count: directorySize)
    }

    deinit {
        for index in 0..<directorySize { directory[index]?.deallocate() }
        for page in spares { page.deallocate() }
        directory.deallocate()
    }

    /// `row`'s page, and its word's place in the page (after the count).
    @inline(__always)
    private static func place(of row: UInt64) -> (page: Int, word: Int) {
        (Int(truncatingIfNeeded: row >> UInt64(pageShift)), 1 + (Int(truncatingIfNeeded: row) & (rowsPerPage - 1)))
    }

    /// The word of `row`; 0 when none is set.
    subscript(row: UInt64) -> UInt {
        let (page, word) = Self.place(of: row)
        guard page < directorySize, let words = directory[page] else { return 0 }
        return words[word]
    }

    /// Sets `row`'s word (nonzero); returns the word it replaced (0: none).
    @discardableResult
    mutating func set(_ word: UInt, for row: UInt64) -> UInt {
        precondition(word != 0, "0 marks an unset row")
        let (page, place) = Self.place(of: row)
        if page >= directorySize { grow(toInclude: page) }
        let words: Page
        if let existing = directory[page] {
            words = existing
        } else if let spare = spares.popLast() {
            words = spare
            directory[page] = words
        } else {
            words = .allocate(capacity: 1 + Self.rowsPerPage)
            words.initialize(repeating: 0, count: 1 + Self.rowsPerPage)
            directory[page] = words
        }
        let slot = words + place
        let old = slot.pointee
        slot.pointee = word
        if old == 0 {
            words.pointee += 1
            count += 1
        }
        return old
    }

    /// Unsets `row`; returns the word it had (0: none).
    @discardableResult
    mutating func remove(_ row: UInt64) -> UInt {
        let (page, place) = Self.place(of: row)
        guard page < directorySize, let words = directory[page] else { return 0 }
        let slot = words + place
        let old = slot.pointee
        guard old != 0 else { return 0 }
        slot.pointee = 0
        count -= 1
        words.pointee -= 1
        if words.pointee == 0 {
            directory[page] = nil
            if spares.count < Self.spareLimit { spares.append(words) } else { words.deallocate() }
        }
        return old
    }

    /// Every set row and its word, in row order.
    func forEach(_ body: (UInt64, UInt) -> Void) {
        for page in 0..<directorySize {
            guard let words = directory[page] else { continue }
            for offset in 0..<Self.rowsPerPage where words[1 + offset] != 0 {
                body(UInt64(page << Self.pageShift + offset), words[1 + offset])
            }
        }
    }

    /// How many pages are held (tests: an emptied page is given back).
    var pageCount: Int { (0..<directorySize).count { directory[$0] != nil } }

    private mutating func grow(toInclude page: Int) {
        let size = max(page + 1, directorySize * 2)
        let grown = UnsafeMutablePointer<Page?>.allocate(capacity: size)
        grown.moveInitialize(from: directory, count: directorySize)
        (grown + directorySize).initialize(repeating: nil, count: size - directorySize)
        directory.deallocate()
        directory = grown
        directorySize = size
    }
}

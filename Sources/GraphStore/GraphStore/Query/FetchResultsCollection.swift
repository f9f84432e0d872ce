/// The results of `ModelContext.fetch(_:batchSize:)` and `fetchIdentifiers(_:batchSize:)`:
/// which rows matched is settled when the fetch runs; their objects are made a batch at a time,
/// as they are read. The collection holds one batch of objects; an object of an earlier batch
/// lives on only while the app holds it (reading it again hands out the object for its row).
/// Like the context it came from, it belongs to one isolation domain.
public struct FetchResultsCollection<Element>: RandomAccessCollection {
    private let batches: Batches

    init(count: Int, batchSize: Int, load: @escaping (Range<Int>) -> [Element]) {
        batches = Batches(count: count, batchSize: Swift.max(1, batchSize), load: load)
    }

    /// Always 0.
    public var startIndex: Int { 0 }
    /// How many objects the fetch found.
    public var endIndex: Int { batches.count }

    /// The object at `position`, made with the rest of its batch when the batch is first read.
    public subscript(position: Int) -> Element {
        precondition(position >= 0 && position < batches.count, "FetchResultsCollection index \(position) is out of bounds (count \(batches.count))")
        return batches.element(at: position)
    }

    /// The batch in hand, and how to load another.
    private final class Batches {
        let count: Int
        let batchSize: Int
        let load: (Range<Int>) -> [Element]
        var loaded: Range<Int> = 0..<0
        var elements: [Element] = []

        init(count: Int, batchSize: Int, load: @escaping (Range<Int>) -> [Element]) {
            self.count = count
            self.batchSize = batchSize
            self.load = load
        }

        func element(at position: Int) -> Element {
            if !loaded.contains(position) {
                let start = position - position % batchSize
                loaded = start..<Swift.min(count, start + batchSize)
                elements = load(loaded)
            }
            return elements[position - loaded.lowerBound]
        }
    }
}

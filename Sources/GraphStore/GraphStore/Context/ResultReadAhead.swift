import CSwiftRuntime
@_spi(GraphStoreInternals) import GraphStoreGraph

/// The rows of a context's last large fetch in the order it returned them, so that reading its
/// objects in that order loads each object's values a few objects ahead.
///
/// A sorted result of a large table visits the rows in an order the memory does not know: each
/// attribute is a column of its own, so every object read is a cache miss per attribute (a
/// million flights by departure: a dozen misses a flight, one after the other). When the app
/// reads the objects in the order the fetch gave them — a list, an export — the first read of
/// each object starts loading the object `distance` places on (the object itself, the attributes
/// this context's objects are read for, and its to-one targets), so its misses overlap this
/// one's reads.
///
/// Objects read their values from any thread (a read off the owner's thread is misuse, but
/// still answered), so the published buffer and the position are relaxed atomics, and no buffer
/// is freed before the context's link: a reader holding an old one reads stale rows, which at
/// worst loads the wrong values early. The objects' addresses are only ever prefetched (a
/// prefetch of memory since freed loads nothing harmful), never followed. Fetches, which
/// publish, run on the owner.
final class ResultReadAhead: @unchecked Sendable {
    /// Smaller results are read from the cache, or nearly.
    static let minimumCount = 1024
    /// How many objects ahead a read loads.
    static let distance = 8
    /// How far past the expected object a read may land and still count as in order (objects
    /// whose values are not read from the graph, such as unsaved inserts, are skipped).
    static let window = 4
    /// The cache lines of an object loaded: its bookkeeping and its properties' slots, for a
    /// model of a dozen or two properties.
    static let objectLines = 3

    /// The address of the published buffer (0 for none). A buffer's words: its capacity, the
    /// entity, the result count, then for each result its object's address and its committed
    /// row (0 for an object with none).
    private let published: UnsafeMutablePointer<UInt64>
    /// The index of the last result read in order (UInt64.max before the first).
    private let position: UnsafeMutablePointer<UInt64>
    /// Every buffer made, freed with the link; the newest is reused while it is large enough.
    private var buffers: [UnsafeMutablePointer<UInt64>] = []
    private static let header = 3

    init() {
        published = .allocate(capacity: 1)
        published.initialize(to: 0)
        position = .allocate(capacity: 1)
        position.initialize(to: .max)
    }

    deinit {
        published.deallocate()
        position.deallocate()
        for buffer in buffers { buffer.deallocate() }
    }

    /// Makes `count` results of `entity`, in result order, the ones reads are followed through
    /// (`result(i)` is the i-th result's backing and its committed row, or 0).
    func publish(entity: Int, count: Int, result: (Int) -> (ModelBacking, UInt64)) {
        guard count >= Self.minimumCount else { return }
        // A result in row order is read in the order of memory, which the processor follows
        // by itself: nothing to publish (nor a buffer to keep for it).
        var previous: UInt64 = 0
        let inRowOrder = (0..<count).allSatisfy { i in
            let row = result(i).1
            defer { previous = row }
            return row > previous
        }
        guard !inRowOrder else {
            graphstore_store_relaxed_u64(published, 0)
            return
        }
        var buffer: UnsafeMutablePointer<UInt64>
        if let newest = buffers.last, Int(newest[0]) >= count {
            buffer = newest
        } else {
            // Doubling, so that the buffers kept add up to less than twice the largest.
            let capacity = max(count, 2 * (buffers.last.map { Int($0[0]) } ?? 0))
            buffer = .allocate(capacity: Self.header + 2 * capacity)
            buffer[0] = UInt64(capacity)
            buffers.append(buffer)
        }
        graphstore_store_relaxed_u64(published, 0)
        buffer[1] = UInt64(entity)
        buffer[2] = UInt64(count)
        for i in 0..<count {
            let (backing, row) = result(i)
            buffer[Self.header + 2 * i] = UInt64(UInt(bitPattern: ObjectIdentifier(backing)))
            buffer[Self.header + 2 * i + 1] = row
        }
        graphstore_store_relaxed_u64(position, .max)
        graphstore_store_relaxed_u64(published, UInt64(UInt(bitPattern: buffer)))
    }

    /// The index of the last result read in order, if any (tests).
    var followedIndex: Int? {
        guard graphstore_load_relaxed_u64(published) != 0 else { return nil }
        let last = graphstore_load_relaxed_u64(position)
        return last == .max ? nil : Int(last)
    }

    /// How many buffers were made (tests).
    var bufferCount: Int { buffers.count }

    /// `backing`, an object of `entity`, was read for a committed value: when it is the next
    /// one of the published result, the object `distance` on starts loading (`attributes`, as
    /// bits).
    @inline(__always)
    func noteRead(_ backing: ModelBacking, entity: Int, graph: Graph, attributes: @autoclosure () -> UInt64) {
        let address = graphstore_load_relaxed_u64(published)
        guard address != 0, let buffer = UnsafeMutablePointer<UInt64>(bitPattern: UInt(address)),
              buffer[1] == UInt64(entity) else { return }
        let count = min(buffer[0], buffer[2])
        let last = graphstore_load_relaxed_u64(position)
        let object = UInt64(UInt(bitPattern: ObjectIdentifier(backing)))
        // The same object read again: it was loaded with its first read.
        if last < count, buffer[Self.header + 2 * Int(last)] == object { return }
        followed(buffer, count: count, last: last, object: object, entity: entity, graph: graph, attributes: attributes)
    }

    private func followed(_ buffer: UnsafeMutablePointer<UInt64>, count: UInt64, last: UInt64, object: UInt64, entity: Int,
                          graph: Graph, attributes: () -> UInt64) {
        for step in 1...UInt64(Self.window) {
            let next = last &+ step
            guard next < count else { return }
            guard buffer[Self.header + 2 * Int(next)] == object else { continue }
            graphstore_store_relaxed_u64(position, next)
            let ahead = Int(next) + Self.distance
            guard ahead < Int(count) else { return }
            if let address = UnsafeRawPointer(bitPattern: UInt(buffer[Self.header + 2 * ahead])) {
                for line in 0..<Self.objectLines { graphstore_prefetch(address + 64 * line) }
            }
            let row = buffer[Self.header + 2 * ahead + 1]
            if row != 0 { graph.prefetch(entity: entity, row: row, attributes: attributes()) }
            return
        }
    }
}

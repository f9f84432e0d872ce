import CSwiftRuntime

/// Which attributes a context's objects are read for, per entity, so that a point lookup can
/// start loading those values of the row it found while it makes the object
/// (`Graph.row(entity:uniqueAttribute:value:loading:)`).
///
/// In a large store a lookup is mostly two cache misses, one after the other: the unique index's
/// entry, then (once the object is made and returned) the value the caller reads, each attribute
/// being a column of its own. Loading the values the caller will read as soon as the row is known
/// overlaps the second miss with making the object. Loading every attribute instead costs more
/// than it saves (a dozen more cache lines per lookup), so only the attributes this context's objects were recently read for are loaded, and
/// at most `limit` of them.
///
/// Reads are noted by every object's committed-value reads, from any thread (a read off the
/// owner's thread is misuse, but still answered), so the masks are relaxed atomics; a lost
/// update only loses a hint. Lookups, which turn the masks over, run on the owner.
///
/// A struct of pointers, freed by its owner (`deallocate`), so that reaching it from a context's
/// link retains nothing on every lookup and read.
struct AttributeReadAhead: @unchecked Sendable {
    /// Per entity: attributes read since the last turn (`learning`), and those to load.
    private let learning: UnsafeMutablePointer<UInt64>
    private let loading: UnsafeMutablePointer<UInt64>
    /// Lookups per entity since its last turn (the owner's only).
    private let lookups: UnsafeMutablePointer<Int>
    private let entityCount: Int

    /// Lookups between turns: what was read in the last this many becomes what is loaded.
    static let turn = 64
    /// Attributes loaded per lookup at most.
    static let limit = 4

    init(entityCount: Int) {
        self.entityCount = entityCount
        learning = .allocate(capacity: max(1, entityCount))
        learning.initialize(repeating: 0, count: max(1, entityCount))
        loading = .allocate(capacity: max(1, entityCount))
        loading.initialize(repeating: 0, count: max(1, entityCount))
        lookups = .allocate(capacity: max(1, entityCount))
        lookups.initialize(repeating: 0, count: max(1, entityCount))
    }

    func deallocate() {
        learning.deallocate()
        loading.deallocate()
        lookups.deallocate()
    }

    /// An object of `entity` was read for its committed `attribute`.
    @inline(__always)
    func noteRead(entity: Int, attribute: Int) {
        guard attribute < 64, entity < entityCount else { return }
        let bit: UInt64 = 1 << UInt64(attribute)
        let word = learning + entity
        let seen = graphstore_load_relaxed_u64(word)
        if seen & bit == 0 { graphstore_store_relaxed_u64(word, seen | bit) }
    }

    /// Every attribute of `entity` read lately (what a result read in order loads ahead).
    @inline(__always)
    func attributesRead(entity: Int) -> UInt64 {
        guard entity < entityCount else { return 0 }
        return graphstore_load_relaxed_u64(learning + entity) | graphstore_load_relaxed_u64(loading + entity)
    }

    /// The attributes a lookup of `entity` should load (at most `limit`, lowest first); counts
    /// the lookup, and every `turn` lookups makes what was read since the last turn what is loaded.
    func attributesToLoad(entity: Int) -> UInt64 {
        guard entity < entityCount else { return 0 }
        lookups[entity] += 1
        if lookups[entity] >= Self.turn {
            lookups[entity] = 0
            graphstore_store_relaxed_u64(loading + entity, graphstore_load_relaxed_u64(learning + entity))
            graphstore_store_relaxed_u64(learning + entity, 0)
        }
        // Nothing to load yet (before the first turn, or after a turn with no reads): what has
        // been read so far.
        var wanted = graphstore_load_relaxed_u64(loading + entity)
        if wanted == 0 { wanted = graphstore_load_relaxed_u64(learning + entity) }
        var kept: UInt64 = 0
        for _ in 0..<Self.limit where wanted != 0 {
            let lowest = wanted & (~wanted &+ 1)
            kept |= lowest
            wanted &= ~lowest
        }
        return kept
    }
}

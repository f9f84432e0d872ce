/// Objects a context made for to-one reads, kept alive for a while. A context holds the objects
/// it hands out weakly, so a target nobody else holds was made on one read and freed right
/// after: reading every flight's airports made and freed an airport object per flight. The
/// targets of to-ones are usually few and read again and again; keeping the last ones made
/// lets those reads find them. Bounded, so a walk over a large graph keeps no more than this.
struct RecentTargets {
    /// How many objects are kept (32 KB of references when full).
    static let capacity = 4_096

    private var kept: [AnyObject?] = []
    private var next = 0

    /// Keeps `object`, letting go of the one kept longest when full.
    mutating func keep(_ object: AnyObject) {
        if kept.count < Self.capacity {
            kept.append(object)
            return
        }
        kept[next] = object
        next = next + 1 == Self.capacity ? 0 : next + 1
    }
}

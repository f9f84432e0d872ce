/// The links a batch's new rows make through one relationship: for a to-one, a target row per
/// source row (0: no link); for a to-many, each source's targets in their list's order.
///
/// A save of a million new flights made three `.link` operations a flight (32 bytes each in
/// the transaction, beside the rows' blocks, until the graph had applied them). A block keeps
/// 8 bytes a link and shares its sources with the rows' block. It is encoded into the log as
/// exactly those `.link` operations, source by source (the same bytes: FILE-FORMAT.md knows no
/// blocks), and applied to the graph straight from its arrays.
@_spi(GraphStoreInternals) public struct LinkBlock: Sendable {
    package let relationship: PropertyNumber
    /// The rows linked from, in order.
    package let sources: [UInt64]
    /// The rows linked to; 0 is no row (a to-one source that links to nothing).
    package let targets: [UInt64]
    /// nil: source `i` links to `targets[i]`. Otherwise source `i` links to the targets from
    /// `ends[i - 1]` (0 for the first) up to `ends[i]`, in order.
    package let ends: [Int]?
    /// How many links the block makes.
    package let count: Int

    /// A to-one relationship's links: `targets[i]` for `sources[i]`.
    package init(relationship: PropertyNumber, sources: [UInt64], targets: [UInt64]) {
        precondition(sources.count == targets.count, "a to-one link block has a target for each source")
        self.init(relationship: relationship, sources: sources, targets: targets, ends: nil)
    }

    /// A to-many relationship's links: source `i` to the targets up to `ends[i]`.
    package init(relationship: PropertyNumber, sources: [UInt64], targets: [UInt64], ends: [Int]?) {
        precondition(ends.map { $0.count == sources.count && ($0.last ?? 0) == targets.count } ?? true,
                     "a to-many link block ends each source's targets, the last at the end")
        self.relationship = relationship
        self.sources = sources
        self.targets = targets
        self.ends = ends
        count = targets.reduce(0) { $0 + ($1 == 0 ? 0 : 1) }
    }

    /// The links, in order.
    package var links: Links { Links(block: self) }

    package struct Links: Sequence {
        let block: LinkBlock

        package struct Iterator: IteratorProtocol {
            let block: LinkBlock
            /// The next target to look at, and the source it belongs to.
            var target = 0, source = 0

            @inline(__always) package mutating func next() -> (source: UInt64, target: UInt64)? {
                let targets = block.targets
                while target < targets.count {
                    let t = target
                    target += 1
                    let owner: Int
                    if let ends = block.ends {
                        while ends[source] <= t { source += 1 }
                        owner = source
                    } else {
                        owner = t
                    }
                    if targets[t] != 0 { return (block.sources[owner], targets[t]) }
                }
                return nil
            }
        }

        package func makeIterator() -> Iterator { Iterator(block: block) }
    }

    /// The block as the log records it.
    package var operations: [LogOperation] {
        var operations: [LogOperation] = []
        operations.reserveCapacity(count)
        for (source, target) in links { operations.append(.link(relationship: relationship, source: source, target: target)) }
        return operations
    }
}

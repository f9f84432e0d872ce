/// Positions by the numbers the log names entities and properties with. Numbers are handed out
/// from 1 upward, so an array answers without hashing (applying a transaction looks one up per
/// stored value); a schema with numbers too sparse for an array (never written by this
/// package) is looked up in a dictionary instead.
@_spi(GraphStoreInternals) public struct NumberIndex<Element: Sendable>: Sendable {
    @usableFromInline enum Storage: Sendable {
        case dense([Element?])
        case sparse([UInt32: Element])
    }

    @usableFromInline let storage: Storage
    private static var denseLimit: Int { 1 << 16 }

    /// The first element given for a number wins.
    package init(_ pairs: [(UInt32, Element)]) {
        let largest = pairs.map { Int($0.0) }.max() ?? -1
        if largest < Self.denseLimit {
            var slots = [Element?](repeating: nil, count: largest + 1)
            var taken = [Bool](repeating: false, count: largest + 1)
            for (number, element) in pairs where !taken[Int(number)] {
                slots[Int(number)] = element
                taken[Int(number)] = true
            }
            storage = .dense(slots)
        } else {
            storage = .sparse(Dictionary(pairs, uniquingKeysWith: { first, _ in first }))
        }
    }

    /// The element numbered `number`, or nil when none is.
    @inlinable @_spi(GraphStoreInternals) public subscript(number: UInt32) -> Element? {
        switch storage {
        case let .dense(slots): return Int(number) < slots.count ? slots[Int(number)] : nil
        case let .sparse(elements): return elements[number]
        }
    }
}

@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
/// An object's unsaved attribute values or relationship changes, by property index: a flat
/// array of optionals (one allocation, reserved when the object is inserted; no hashing). A
/// dictionary here was reallocated and rehashed as an insert's values arrived, and freeing it
/// walked every entry.
struct PropertyChanges<Element>: ExpressibleByDictionaryLiteral {
    private var values: [Element?] = []
    /// How many attributes have a value.
    private(set) var count = 0

    init() {}

    init(dictionaryLiteral elements: (Int, Element)...) {
        for (index, value) in elements { self[index] = value }
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> Element? {
        get { index < values.count ? values[index] : nil }
        set {
            if index >= values.count {
                guard newValue != nil else { return }
                values.append(repeating: nil, count: index + 1 - values.count)
            }
            let had = values[index] != nil
            values[index] = newValue
            count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
        }
    }

    /// Room for `propertyCount` properties, so that setting them never reallocates.
    mutating func reserveCapacity(_ propertyCount: Int) {
        values.reserveCapacity(propertyCount)
    }

    /// The indexes of the properties with a change, ascending.
    var keys: [Int] { values.indices.filter { values[$0] != nil } }

    /// Calls `body` with each property that has a change, ascending by index, making no list of them.
    func forEachValue(_ body: (Int, Element) throws -> Void) rethrows {
        guard count > 0 else { return }
        for index in values.indices { if let value = values[index] { try body(index, value) } }
    }

    /// The properties with a change, ascending by index.
    var entries: [(key: Int, value: Element)] {
        var result: [(key: Int, value: Element)] = []
        result.reserveCapacity(count)
        forEachValue { result.append(($0, $1)) }
        return result
    }
}

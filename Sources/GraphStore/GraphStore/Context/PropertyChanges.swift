@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph
/// The changes an object keeps itself (set while unmanaged, or taken back when it left its
/// context), by property index: a flat array of optionals (one allocation; no hashing). A
/// context keeps its objects' changes by column instead (`UnsavedValues`).
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

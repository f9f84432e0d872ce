/// An object's unsaved attribute values, by attribute index: a flat array of optionals (one
/// allocation, reserved when the object is inserted; no hashing). A dictionary here was
/// reallocated and rehashed as an insert's values arrived, and freeing it was a sixth of saving
/// a bulk import.
struct AttributeChanges: ExpressibleByDictionaryLiteral {
    private var values: [Value?] = []
    /// How many attributes have a value.
    private(set) var count = 0

    init() {}

    init(dictionaryLiteral elements: (Int, Value)...) {
        for (index, value) in elements { self[index] = value }
    }

    var isEmpty: Bool { count == 0 }

    subscript(index: Int) -> Value? {
        get { index < values.count ? values[index] : nil }
        set {
            if index >= values.count {
                guard newValue != nil else { return }
                values.append(contentsOf: repeatElement(nil, count: index + 1 - values.count))
            }
            let had = values[index] != nil
            values[index] = newValue
            count += (newValue != nil ? 1 : 0) - (had ? 1 : 0)
        }
    }

    /// Room for `attributeCount` attributes, so that setting them never reallocates.
    mutating func reserveCapacity(_ attributeCount: Int) {
        values.reserveCapacity(attributeCount)
    }

    /// The indexes of the attributes with a value, ascending.
    var keys: [Int] { values.indices.filter { values[$0] != nil } }

    /// The attributes with a value, ascending by index.
    var entries: [(key: Int, value: Value)] {
        var result: [(key: Int, value: Value)] = []
        result.reserveCapacity(count)
        for (index, value) in values.enumerated() {
            if let value { result.append((index, value)) }
        }
        return result
    }
}

import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// One sort key of every item, read once: a Double when it is a non-nil integer, floating-point
/// number (not NaN) or date for all of them — the kinds whose order Foundation's SortDescriptor
/// and `<` agree on — or the non-nil string itself, compared as the descriptor compares it: by
/// its string comparator when it has one (`SortDescriptor(\.name, comparator: .lexical)`), else
/// as `Comparable` (`SortDescriptor(\.name)` on Linux). Nil otherwise (the caller compares
/// through the descriptor).
struct SortKeys {
    // Two arrays and a flag rather than an enum with payloads: a comparison reads them in place.
    private let numbers: [Double]
    private let strings: [String]
    private let isString: Bool
    private let comparator: String.StandardComparator?
    private let ascending: Bool

    /// The key read through the descriptor's key path.
    init?<T>(_ items: [T], _ descriptor: SortDescriptor<T>) {
        guard let keyPath = descriptor.keyPath, let first = items.first else { return nil }
        // The usual key types through a typed key path: each value read as itself, not boxed
        // into an `Any` and cast back (a computed key, `arrival`, is read this way per object).
        if let dates = keyPath as? KeyPath<T, Date> {
            self.init(items, descriptor, number: { $0[keyPath: dates].timeIntervalSinceReferenceDate })
            return
        }
        if let ints = keyPath as? KeyPath<T, Int> {
            self.init(items, descriptor, number: { Double($0[keyPath: ints]) })
            return
        }
        if let doubles = keyPath as? KeyPath<T, Double> {
            self.init(items, descriptor, number: { $0[keyPath: doubles] })
            return
        }
        if let strings = keyPath as? KeyPath<T, String> {
            self.init(items, descriptor, string: { $0[keyPath: strings] })
            return
        }
        if first[keyPath: keyPath] is String {
            self.init(items, descriptor, string: { $0[keyPath: keyPath] as? String })
            return
        }
        self.init(items, descriptor, number: { item in
            switch item[keyPath: keyPath] {
            case let date as Date: date.timeIntervalSinceReferenceDate
            case let int as Int: Double(int)
            case let int as Int64: Double(int)
            case let int as Int32: Double(int)
            case let double as Double: double
            default: nil
            }
        })
    }

    /// The key read from `committed`'s stored form of each item's value, for a key path whose
    /// values are of `sample`'s type: what `init(_:_:)` reads through the key path, without
    /// reading it. Nil as there: when a value is nil or of another kind.
    init?<T>(_ items: [T], _ descriptor: SortDescriptor<T>, sample: Any, committed: (T) -> Value?) {
        if sample is String {
            self.init(items, descriptor, string: { if case let .string(string)? = committed($0) { string } else { nil } })
            return
        }
        guard sample is Date || sample is Int || sample is Int64 || sample is Int32 || sample is Double else { return nil }
        self.init(items, descriptor, number: { item in
            switch committed(item) {
            case let .date(date)?: date.timeIntervalSinceReferenceDate
            case let .int(int)?: Double(int)
            case let .double(double)?: double
            default: nil
            }
        })
    }

    /// The key of each of `count` rows read from its stored value (`stored(i)` of the i-th), for
    /// a descriptor's order and string comparator: strings when the first is a string, numbers
    /// and dates otherwise. Nil when a value is nil, of another kind, or unlike the first.
    init?(count: Int, order: SortOrder, stringComparator: String.StandardComparator?, stored: (Int) -> Value) {
        guard count > 0 else { return nil }
        if case .string = stored(0) {
            self.init(Array(0..<count), order: order, stringComparator: stringComparator,
                      string: { if case let .string(string) = stored($0) { string } else { nil } })
        } else {
            self.init(Array(0..<count), order: order, number: { LeadingRows.numberKey(stored($0)) })
        }
    }

    private init?<T>(_ items: [T], _ descriptor: SortDescriptor<T>, string: (T) -> String?) {
        self.init(items, order: descriptor.order, stringComparator: descriptor.stringComparator, string: string)
    }

    private init?<T>(_ items: [T], _ descriptor: SortDescriptor<T>, number: (T) -> Double?) {
        self.init(items, order: descriptor.order, number: number)
    }

    /// String keys, compared as `stringComparator` compares them (as `Comparable` without
    /// one); nil when an item has none.
    private init?<T>(_ items: [T], order: SortOrder, stringComparator: String.StandardComparator?, string: (T) -> String?) {
        var comparator = stringComparator
        comparator?.order = .forward
        var strings: [String] = []
        strings.reserveCapacity(items.count)
        for item in items {
            guard let key = string(item) else { return nil }
            strings.append(key)
        }
        (self.strings, self.comparator, isString, numbers, ascending) = (strings, comparator, true, [], order == .forward)
    }

    /// Number keys; nil when an item has none, or one a Double does not order exactly.
    private init?<T>(_ items: [T], order: SortOrder, number: (T) -> Double?) {
        var values: [Double] = []
        values.reserveCapacity(items.count)
        for item in items {
            guard let key = number(item), Self.isExact(key) else { return nil }
            values.append(key)
        }
        (numbers, strings, isString, comparator, ascending) = (values, [], false, nil, order == .forward)
    }

    /// How item `i` orders against item `j` by this key, in the descriptor's direction.
    func compare(_ i: Int, _ j: Int) -> ComparisonResult {
        let forward: ComparisonResult
        if !isString {
            forward = numbers[i] < numbers[j] ? .orderedAscending : numbers[i] > numbers[j] ? .orderedDescending : .orderedSame
        } else if let comparator {
            forward = comparator.compare(strings[i], strings[j])
        } else {
            forward = strings[i] < strings[j] ? .orderedAscending : strings[i] == strings[j] ? .orderedSame : .orderedDescending
        }
        guard !ascending else { return forward }
        switch forward {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// Each item's place in this key's order, items that tie sharing one: comparing two items'
    /// ranks orders them as `compare` does, without reading the keys again.
    func ranks() -> [Int] {
        let count = isString ? strings.count : numbers.count
        // Strings without a comparator are compared as themselves, in this code: `compare`
        // would read the comparator per comparison.
        let order = numberOrder() ?? (comparator == nil
            ? (0..<count).sorted { ascending ? strings[$0] < strings[$1] : strings[$1] < strings[$0] }
            : (0..<count).sorted { compare($0, $1) == .orderedAscending })
        var ranks = [Int](repeating: 0, count: count)
        var rank = 0
        for k in order.indices.dropFirst() {
            if compare(order[k - 1], order[k]) != .orderedSame { rank += 1 }
            ranks[order[k]] = rank
        }
        return ranks
    }

    /// From how many items a sort by one number key goes by radix (below, a comparison sort of
    /// the keys is as quick).
    static let radixThreshold = 256

    /// The items' positions in this key's order (ties in position order, as the comparisons
    /// leave them), sorted on each number's order-keeping bits: by radix from `radixThreshold`
    /// items, else by comparing the bits in code specialised for them (comparing positions
    /// through `compare`, a closure call per comparison, was a large part of sorting an
    /// airport's arrivals). Nil for string keys.
    func numberOrder() -> [Int]? {
        guard !isString, numbers.count < Int(UInt32.max) else { return nil }
        var keys: [UInt64] = []
        keys.reserveCapacity(numbers.count)
        for number in numbers {
            // -0 and 0 are one key, as `<` has them (NaN never gets here: isExact).
            let bits = (number == 0 ? 0 : number).bitPattern
            let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            keys.append(ascending ? ordered : ~ordered)
        }
        if numbers.count >= Self.radixThreshold {
            return radixSorted(rows: Array(0..<UInt32(numbers.count)), keys: keys).map { Int($0) }
        }
        var keyed = zip(keys, 0..<numbers.count).map { (key: $0, position: $1) }
        keyed.sort { $0.key != $1.key ? $0.key < $1.key : $0.position < $1.position }
        return keyed.map(\.position)
    }

    /// Whether a key orders as its value does: beyond 2^53 a Double no longer tells integers
    /// apart, and NaN has no order.
    static func isExact(_ key: Double) -> Bool {
        !key.isNaN && abs(key) < 9_007_199_254_740_992
    }
}

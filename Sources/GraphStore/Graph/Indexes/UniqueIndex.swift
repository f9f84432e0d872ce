import GraphStoreCore

/// A unique attribute's index: value → the one row holding it. A class, so updates happen in place.
/// Strings (the usual unique keys) have a table of their own (StringRowTable): an entry holds
/// the key inline beside its row, so a lookup in a large index touches one cache line where a
/// `[Value: UInt32]` touches three.
package final class UniqueIndex {
    private let strings = StringRowTable()
    // Read by every count and lookup (an import asks each row's claims), written under the
    // graph's write lock or by the one thread encoding a batch: no run-time exclusivity checks.
    @exclusivity(unchecked) private var others: [Value: UInt32] = [:]
    /// Whether the attribute is a string (where bulk loads reserve room).
    private let keysAreStrings: Bool

    package init(keysAreStrings: Bool) { self.keysAreStrings = keysAreStrings }

    package subscript(value: Value) -> UInt32? {
        get {
            if case let .string(string) = value { return strings.row(for: string) }
            return others[value]
        }
        set {
            if case let .string(string) = value {
                if let newValue { strings.set(newValue, for: string) } else { strings.remove(string) }
            } else {
                others[value] = newValue
            }
        }
    }

    /// Starts loading where a lookup of the string `key` goes (see `StringRowTable.prefetch`).
    package func prefetch(_ key: String) {
        if keysAreStrings { strings.prefetch(key) }
    }

    package var count: Int { strings.count + others.count }

    package func reserveCapacity(_ count: Int) {
        if keysAreStrings { strings.reserveCapacity(count) } else { others.reserveCapacity(count) }
    }
}

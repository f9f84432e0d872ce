import Foundation

/// Which values order as their stored forms do, so that a sort or a comparison may be decided
/// on rows: strings, dates and numbers, optional or not. An enum is stored by its raw value,
/// and another type may be stored as a string or a number, but either may order its own way
/// (its `Comparable`: a status in the order of a flight's life, not alphabetically); those
/// are sorted and compared on objects.
enum StoredOrder {
    /// Whether values of `valueType` (what a key path reads) order as they are stored.
    static func holds(for valueType: Any.Type) -> Bool {
        types.contains { $0 == valueType }
    }

    /// Whether the value a key path chain ends at orders as it is stored (true for no chain).
    static func holds(forChain chain: [AnyKeyPath]?) -> Bool {
        guard let last = chain?.last else { return true }
        return holds(for: type(of: last).valueType)
    }

    private static let types: [Any.Type] = [
        String.self, Date.self, Int.self, Int64.self, Int32.self, Int16.self, Int8.self, UInt.self, UInt64.self, UInt32.self,
        UInt16.self, UInt8.self, Double.self, String?.self, Date?.self, Int?.self, Int64?.self, Int32?.self, Int16?.self,
        Int8?.self, UInt?.self, UInt64?.self, UInt32?.self, UInt16?.self, UInt8?.self, Double?.self,
    ]
}

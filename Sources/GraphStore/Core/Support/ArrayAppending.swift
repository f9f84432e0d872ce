extension Array {
    /// Appends `count` copies of `element` one by one. Graph tables grow by a slot per inserted
    /// row, and `append(contentsOf: repeatElement(…))` goes through the generic sequence path
    /// each time: most of an inserted row's cost in a batch import.
    @inlinable @_spi(GraphStoreInternals) public mutating func append(repeating element: Element, count: Int) {
        for _ in 0..<count { append(element) }
    }
}

/// What one commit writes: blocks of rows kept by column (a batch's), blocks of its new rows'
/// links, then operations. The log records the blocks as their rows' `.insert` and
/// `.update` operations and their `.link` operations, in this order, so a transaction read
/// back is `expandedOperations`.
package struct TransactionChanges: Sendable {
    /// Written and applied first, in order.
    package var blocks: [RowBlock]
    /// Written and applied after the row blocks (their sources are rows the blocks insert).
    package var links: [LinkBlock]
    package var operations: [LogOperation]

    package init(blocks: [RowBlock] = [], links: [LinkBlock] = [], operations: [LogOperation] = []) {
        self.blocks = blocks
        self.links = links
        self.operations = operations
    }

    /// How many operations the log records.
    package var operationCount: Int {
        links.reduce(blocks.reduce(operations.count) { $0 + $1.count }) { $0 + $1.count }
    }

    /// Every change as an operation, as the log holds them.
    package var expandedOperations: [LogOperation] {
        guard !blocks.isEmpty || !links.isEmpty else { return operations }
        return blocks.flatMap(\.operations) + links.flatMap(\.operations) + operations
    }
}

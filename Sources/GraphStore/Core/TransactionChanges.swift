/// What one commit writes: blocks of rows kept by column (a batch's), then operations. The log
/// records the blocks as their rows' `.insert` and `.update` operations, in this order, so a
/// transaction read back is `expandedOperations`.
package struct TransactionChanges: Sendable {
    /// Written and applied first, in order.
    package var blocks: [RowBlock]
    package var operations: [LogOperation]

    package init(blocks: [RowBlock] = [], operations: [LogOperation] = []) {
        self.blocks = blocks
        self.operations = operations
    }

    /// How many operations the log records.
    package var operationCount: Int { blocks.reduce(operations.count) { $0 + $1.count } }

    /// Every change as an operation, as the log holds them.
    package var expandedOperations: [LogOperation] {
        guard !blocks.isEmpty else { return operations }
        return blocks.flatMap(\.operations) + operations
    }
}

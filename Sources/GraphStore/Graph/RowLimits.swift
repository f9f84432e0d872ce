import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
import Synchronization

/// How far a row number may reach. A table keeps a slot for every row number up to its highest
/// (row `r` in slot `r - 1`), so one insert of row 4,000,000,000 from a damaged or hostile file
/// would allocate billions of slots. Row numbers are handed out densely from 1, and to-many
/// links keep them in 32 bits: a stored row number is in `1...UInt32.max`, and no higher than
/// the slots of its entity that fit in half the physical memory (a store that needs more could
/// not be held in memory anyway). What is read from disk or an import is checked against these
/// before the graph grows; GraphStore's own writer never comes near them.
@_spi(GraphStoreInternals) public enum RowLimits {
    /// The largest row number any store holds.
    package static let largestRow = RowNumber(UInt32.max)

    /// Bytes the slots of one entity may take; half the physical memory (tests and fuzzing lower it).
    @_spi(GraphStoreInternals) public static let memoryBudget = Atomic<UInt64>(ProcessInfo.processInfo.physicalMemory / 2)

    /// What one slot of `entity` costs at least: its live flag, a value per attribute, a target
    /// per relationship.
    package static func bytesPerSlot(_ entity: Schema.Entity) -> UInt64 {
        UInt64(1 + 9 * entity.attributes.count + 8 * entity.relationships.count)
    }

    /// The largest row number `entity` may hold here.
    package static func largestRow(of entity: Schema.Entity) -> RowNumber {
        min(largestRow, max(1, memoryBudget.load(ordering: .relaxed) / bytesPerSlot(entity)))
    }

    /// Why `row` cannot be a row of `entity`, or nil when it can.
    package static func problem(row: RowNumber, of entity: Schema.Entity) -> String? {
        if row == 0 { return "row number 0 (rows are numbered from 1)" }
        let limit = largestRow(of: entity)
        guard row > limit else { return nil }
        return row > largestRow ? "row number \(row) is beyond the largest a store holds (\(largestRow))"
            : "row number \(row) would need more memory for \(entity.name)'s slots than half the physical memory holds (at most row \(limit))"
    }
}

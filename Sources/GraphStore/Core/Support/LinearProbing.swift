/// The one subtle rule of deleting from an open-addressing table with linear probing, shared by
/// StringRowTable and RowTable (deletion without tombstones: later entries shift back).
@_spi(GraphStoreInternals) public enum LinearProbing {
    /// Whether the entry at `next`, whose home is `home`, must move into the empty slot `hole`
    /// (the probe run being scanned from `hole`): it must when its home lies cyclically outside
    /// (hole, next], because a probe from its home would then stop at the hole before finding it.
    @inlinable
    @_spi(GraphStoreInternals) public static func mustFill(hole: Int, from next: Int, home: Int) -> Bool {
        hole <= next ? (home <= hole || home > next) : (home <= hole && home > next)
    }
}


/// One of an entity table's indexes — unique, hash, sorted or compound — as the table keeps it
/// up. The table holds every index of an entity in one list, and by property the ones whose key
/// that property is part of; it tells an index when a row leaves its key and when it takes one,
/// and the index reads the key from the table itself. A new kind of index is a new conforming
/// type, made in `EntityTable.init`, planned in `QueryPlanner` and run in `QueryExecutor`.
///
/// Every call is made under the graph's write lock (or, at open, before the graph is shared).
package protocol TableIndex: AnyObject {
    /// The attributes (by position) its key is made of.
    var keyAttributes: [Int] { get }
    /// The to-one relationships (by position) its key is made of.
    var keyRelationships: [Int] { get }
    /// Whether a bulk change still keeps it row by row (a unique index: later rows of the same
    /// transaction are checked against it) rather than marking it stale.
    var isKeptRowByRowInBulk: Bool { get }
    /// `row` is about to leave its key: deleted, inserted again, or a member about to change.
    /// The table still holds the old values. `bulk`: one of many changes in a large transaction.
    func remove(row: UInt32, from table: EntityTable, bulk: Bool)
    /// `row` has its key: inserted, or a member changed. The table holds the new values.
    func add(row: UInt32, to table: EntityTable, bulk: Bool)
    /// Many rows changed at once: brought up to date by `refresh` (or its next lookup) in one
    /// pass, not row by row.
    func markStale()
    /// At a transaction's end: brought up to date, if it waits to be.
    func refresh(in table: EntityTable)
    /// After a checkpoint image was loaded into `table`: the work that rebuilds this index. It
    /// runs beside other tables' jobs, reads only the table's restored columns and links, and
    /// writes only the index.
    func restoreJob(for table: EntityTable, image: EntityTable.Image) -> () -> Void
}

import Dispatch
import CSwiftRuntime
@_spi(GraphStoreInternals) import GraphStoreCore

/// The committed rows of one entity: a column per attribute, relationship targets by row, and
/// the indexes. Row `r` lives in slot `r - 1`. Mutated only under the graph's write lock.
///
/// The hot columns skip Swift's run-time exclusivity checks (`@exclusivity(unchecked)`): the
/// graph's read–write lock already keeps writers apart from readers, and the checks update a
/// thread-local access set on every read.
@_spi(GraphStoreInternals) public final class EntityTable {
    package let entity: Schema.Entity
    @exclusivity(unchecked) package var live = ChunkedArray<Bool>()
    @exclusivity(unchecked) package var liveCount = 0
    package let columns: [Column]
    /// The same columns, unretained (`columns` keeps them): writing a row's values through
    /// `columns[i]` retained and released a column per value, a seventh of a batch import.
    private let unretainedColumns: [Unretained<Column>]
    /// By relationship position: the target row of a to-one (0 = none); empty for to-many.
    @exclusivity(unchecked) package var toOne: [ChunkedArray<UInt32>]
    /// By relationship position: the ordered target rows of a to-many; empty for to-one.
    @exclusivity(unchecked) package var toMany: [MemberLists]
    /// For relationships without an inverse: target row → source rows (the "inverse set").
    @exclusivity(unchecked) package var reverse: [[UInt32: [UInt32]]]
    // By attribute position, nil where the attribute has no such index: lookups reach an
    // attribute's index without hashing the position. The same objects are in `indexes`.
    /// Unique attributes: value → row.
    package let unique: [UniqueIndex?]
    /// Indexed attributes: value → rows, and the rows in value order.
    package let secondary: [SecondaryIndex?]
    package let sorted: [SortedIndex?]
    /// Indexes over several properties (`Schema.Unique`, `Schema.Index`), by position.
    package let compound: [CompoundKeyIndex]
    /// Every index, as the table keeps them up (see TableIndex).
    private let indexes: [any TableIndex]
    /// By attribute position and by relationship position: the indexes whose key it is part of
    /// (a change to an attribute with none needs no old value).
    private let indexesOfAttribute: [[any TableIndex]], indexesOfToOne: [[any TableIndex]]
    /// Attribute positions by the numbers log records name them with (read without making a
    /// mapped copy of each record's values).
    private let positions: NumberIndex<Int>
    /// The positions of the to-one and of the to-many relationships.
    private let toOnePositions: [Int], toManyPositions: [Int]
    /// The highest row number ever applied.
    @exclusivity(unchecked) package var highestRow: UInt64 = 0

    package init(entity: Schema.Entity, schema: Schema) {
        self.entity = entity
        let columns = entity.attributes.map { Column(type: $0.type, defaultValue: $0.defaultValue) }
        self.columns = columns
        unretainedColumns = columns.map(Unretained.init)
        toOne = entity.relationships.map { _ in [] }
        // A member's place in its list is kept when it can be in one list only.
        toMany = entity.relationships.map { MemberLists(keepsPositions: $0.isToMany && schema.inverse(of: $0)?.isToMany == false) }
        reverse = entity.relationships.map { _ in [:] }
        let unique = entity.attributes.map { $0.isUnique ? UniqueIndex(attribute: $0.index, keysAreStrings: $0.type.kind == .string) : nil }
        let sorted = entity.attributes.map { $0.isIndexed ? SortedIndex(attribute: $0.index) : nil }
        let secondary = entity.attributes.indices.map { i in sorted[i].map { SecondaryIndex(attribute: i, column: columns[i], sorted: $0) } }
        let compound = entity.compoundIndexes.map(CompoundKeyIndex.init)
        (self.unique, self.sorted, self.secondary, self.compound) = (unique, sorted, secondary, compound)
        // Removed and added in this order when a row's value changes.
        let indexes: [any TableIndex] = unique.compactMap { $0 } + secondary.compactMap { $0 } + sorted.compactMap { $0 } + compound
        self.indexes = indexes
        indexesOfAttribute = entity.attributes.map { a in indexes.filter { $0.keyAttributes.contains(a.index) } }
        indexesOfToOne = entity.relationships.map { r in indexes.filter { $0.keyRelationships.contains(r.index) } }
        positions = NumberIndex(entity.attributes.map { ($0.number, $0.index) })
        toOnePositions = entity.relationships.filter { !$0.isToMany }.map(\.index)
        toManyPositions = entity.relationships.filter(\.isToMany).map(\.index)
    }

    package var slotCount: Int { live.count }

    /// The rows of `rows` whose to-one `relationship` (by position) names `target`, in order:
    /// `rows` intersected with that target's inverse set, one read of the link column a row.
    package func rows(_ rows: ArraySlice<UInt32>, linkingTo target: UInt32, through relationship: Int) -> [UInt32] {
        let targets = toOne[relationship]
        return rows.filter { row in Int(row) >= 1 && Int(row) <= targets.count && targets[Int(row) - 1] == target }
    }

    /// The row whose unique `attribute` holds `value`.
    package func uniqueRow(attribute: Int, value: Value) -> UInt64? {
        // The index unretained (`unique` keeps it): retaining it around the call was a retain
        // and a release per point lookup.
        unique.withUnsafeBufferPointer { indexes in
            indexes[attribute].map(Unretained.init)
        }?.with { $0[value] }.map(UInt64.init)
    }

    /// Starts loading the values of `row` for the attributes in `attributes` (positions as bits).
    package func prefetch(row: UInt64, attributes: UInt64, toOnes: Bool = false) {
        var remaining = attributes
        while remaining != 0 {
            let attribute = remaining.trailingZeroBitCount
            remaining &= remaining &- 1
            guard attribute < unretainedColumns.count else { break }
            unretainedColumns[attribute].with { $0.prefetch(Int(row) - 1) }
        }
        guard toOnes, row > 0 else { return }
        let slot = Int(row) - 1
        for i in toOnePositions {
            if let address = toOne[i].address(of: slot) { graphstore_prefetch(address) }
        }
    }

    package func isLive(_ row: UInt64) -> Bool {
        guard row > 0 && row <= UInt64(live.count) else { return false }
        // With every slot live (no deletions, no slot waiting for its insert) the flag need not be
        // read: in a large table it is a cache miss per random row.
        return liveCount == live.count || live[Int(row - 1)]
    }

    /// All live rows, ascending.
    package var liveRows: [UInt64] {
        var rows: [UInt64] = []
        rows.reserveCapacity(liveCount)
        for (slot, isLive) in live.enumerated() where isLive { rows.append(UInt64(slot + 1)) }
        return rows
    }

    package func grow(to slots: Int) {
        guard slots > live.count else { return }
        let extra = slots - live.count
        live.append(repeating: false, count: extra)
        for i in columns.indices { columns[i].grow(to: slots) }
        // By position, not through the relationship descriptions (a retain and release each, per row).
        for i in toManyPositions { toMany[i].grow(by: extra) }
        for i in toOnePositions { toOne[i].append(repeating: 0, count: extra) }
    }

    /// Makes room for `additional` more rows without repeated reallocation (bulk loads).
    package func reserve(additional: Int) {
        let capacity = live.count + additional
        live.reserveCapacity(capacity)
        for column in columns { column.reserve(capacity) }
        for i in toManyPositions { toMany[i].reserveCapacity(capacity) }
        for i in toOnePositions { toOne[i].reserveCapacity(capacity) }
        for case let index? in unique { index.reserveCapacity(index.count + additional) }
    }

    // MARK: Rows

    /// Inserts a row with the stored values of a log record (properties this table does not
    /// have are skipped: attributes removed from the models).
    package func insert(row: UInt64, values: [PropertyValue], bulk: Bool) {
        insert(row: row, bulk: bulk) { forEachPosition(of: values, $0) }
    }

    /// A record's values with their attributes' positions (values of attributes this table no
    /// longer has are skipped).
    @inline(__always)
    private func forEachPosition(of values: [PropertyValue], _ body: (Int, Value) -> Void) {
        for stored in values { if let index = positions[stored.property] { body(index, stored.value) } }
    }

    /// Inserts an insert block's rows, column by column: each of the block's columns is read,
    /// and each of the table's written, in one pass (row by row, a row's fifteen values came
    /// from and went to fifteen places, and most of them missed the cache).
    package func insert(_ block: RowBlock, bulk: Bool) {
        precondition(block.kind == .insert, "an insert block")
        for row in block.rows { makeLive(row, bulk: bulk) }
        var given = [Bool](repeating: false, count: columns.count)
        for column in block.properties.indices {
            guard let index = positions[block.properties[column]] else { continue }
            given[index] = true
            unretainedColumns[index].with { block.write(column: column, into: $0) }
            if block.releasesColumnsWhenApplied { block.releaseColumn(column) }
        }
        for index in columns.indices where !given[index] {
            unretainedColumns[index].with { target in
                for row in block.rows { target.set(target.defaultValue, at: Int(row - 1)) }
            }
        }
        // Index by index: in bulk, those rebuilt at the transaction's end are marked once, not
        // called once per row.
        for index in indexes {
            if bulk && !index.isKeptRowByRowInBulk {
                index.markStale()
                continue
            }
            for row in block.rows { index.add(row: UInt32(row), to: self, bulk: bulk) }
        }
    }

    /// `values` calls its argument with each given value's attribute position.
    @inline(__always)
    private func insert(row: UInt64, bulk: Bool, values: ((Int, Value) -> Void) -> Void) {
        makeLive(row, bulk: bulk)
        setAll(Int(row - 1), values)
        addToIndexes(row: row, bulk: bulk)
    }

    /// Marks an inserted row live (a row inserted again leaves its indexes first).
    @inline(__always)
    private func makeLive(_ row: UInt64, bulk: Bool) {
        let slot = Int(row - 1)
        grow(to: slot + 1)
        if live[slot] { removeFromIndexes(row: row, bulk: bulk) }
        if !live[slot] { liveCount += 1 }
        live[slot] = true
        highestRow = max(highestRow, row)
    }

    /// Gives the slot `values` and every other attribute its default, setting each column once.
    @inline(__always)
    private func setAll(_ slot: Int, _ values: ((Int, Value) -> Void) -> Void) {
        guard columns.count <= 64 else {
            for column in columns { column.set(column.defaultValue, at: slot) }
            values { index, value in columns[index].set(value, at: slot) }
            return
        }
        var given: UInt64 = 0
        values { index, value in
            unretainedColumns[index].with { $0.set(value, at: slot) }
            given |= 1 << UInt64(index)
        }
        var missing = ~given & (columns.count == 64 ? ~0 : (1 << UInt64(columns.count)) - 1)
        while missing != 0 {
            unretainedColumns[missing.trailingZeroBitCount].with { $0.set($0.defaultValue, at: slot) }
            missing &= missing - 1
        }
    }

    package func update(row: UInt64, values: [PropertyValue], bulk: Bool) {
        update(row: row, bulk: bulk) { forEachPosition(of: values, $0) }
    }

    /// Applies an update block's rows column by column, as `insert(_:bulk:)` does: row by row,
    /// each value would be made a `Value` and written through `Column.set(_:at:)`. Rows that are not live are skipped. A column with a unique index, or with a
    /// secondary index kept up row by row (not `bulk`), is still written a row at a time so
    /// that each changed value patches its index.
    package func update(_ block: RowBlock, bulk: Bool) {
        precondition(block.kind == .update, "an update block")
        let rows = block.rows
        let items: [Int]? = rows.allSatisfy(isLive) ? nil : rows.indices.filter { isLive(rows[$0]) }
        guard items?.isEmpty != true else { return }
        for column in block.columns.indices {
            guard let index = positions[block.properties[column]] else { continue }
            let isIndexed = !indexesOfAttribute[index].isEmpty
            if isIndexed && (!bulk || unique[index] != nil) {
                let target = unretainedColumns[index]
                for item in items ?? Array(rows.indices) {
                    let row = rows[item]
                    // A string rewritten as it is (an upsert's key, which found the row) changes
                    // nothing: checked without making `Value`s.
                    if let string = block.string(column: column, ofRow: item),
                       target.with({ $0.string(at: Int(row - 1)) == string }) { continue }
                    if let value = block.value(column: column, ofRow: item) { update(row: row, attribute: index, to: value, bulk: bulk) }
                }
                continue
            }
            // A bulk change's indexes are rebuilt at the transaction's end.
            for index in indexesOfAttribute[index] { index.markStale() }
            unretainedColumns[index].with { block.write(column: column, into: $0, items: items) }
        }
    }

    @inline(__always)
    private func update(row: UInt64, bulk: Bool, values: ((Int, Value) -> Void) -> Void) {
        guard isLive(row) else { return }
        values { index, value in update(row: row, attribute: index, to: value, bulk: bulk) }
    }

    /// Sets one value of a live row, moving the row in the attribute's indexes if it changed.
    @inline(__always)
    private func update(row: UInt64, attribute index: Int, to value: Value, bulk: Bool) {
        let slot = Int(row - 1)
        let column = unretainedColumns[index]
        let indexes = indexesOfAttribute[index]
        guard !indexes.isEmpty else {
            column.with { $0.set(value, at: slot) }
            return
        }
        let old = column.with { $0.value(at: slot) }
        if old == value { return }
        for index in indexes { index.remove(row: UInt32(row), from: self, bulk: bulk) }
        column.with { $0.set(value, at: slot) }
        for index in indexes { index.add(row: UInt32(row), to: self, bulk: bulk) }
    }

    /// Points a to-one relationship of `slot` at `target` (0: none), keeping the compound
    /// indexes it is a member of in step.
    package func setToOne(_ relationship: Int, slot: Int, to target: UInt32) {
        let indexes = indexesOfToOne[relationship]
        let keyed = !indexes.isEmpty && slot < live.count && live[slot]
        if keyed { for index in indexes { index.remove(row: UInt32(slot + 1), from: self, bulk: false) } }
        toOne[relationship][slot] = target
        if keyed { for index in indexes { index.add(row: UInt32(slot + 1), to: self, bulk: false) } }
    }

    /// Removes a row from the columns and indexes (relationships are detached by the graph first).
    package func delete(row: UInt64, bulk: Bool) {
        guard isLive(row) else { return }
        removeFromIndexes(row: row, bulk: bulk)
        let slot = Int(row - 1)
        live[slot] = false
        liveCount -= 1
        for column in columns { column.clear(slot) }
    }

    /// The target row of `row`'s to-one `relationship`, or nil when it has none.
    package func toOneTarget(row: UInt64, relationship: Int) -> UInt64? {
        let target = toOne[relationship][Int(row - 1)]
        return target == 0 ? nil : UInt64(target)
    }

    /// Reads a to-one column at each row (warming the cache for a predicate that reads it next).
    package func touchToOne(_ relationship: Int, rows: [UInt64]) -> UInt64 {
        let targets = toOne[relationship]
        var sum: UInt64 = 0
        for row in rows where row > 0 && Int(row) <= targets.count { sum &+= UInt64(targets[Int(row - 1)]) }
        return sum
    }

    package func value(row: UInt64, attribute: Int) -> Value {
        columns[attribute].value(at: Int(row - 1))
    }

    // MARK: Indexes

    private func addToIndexes(row: UInt64, bulk: Bool) {
        for index in indexes { index.add(row: UInt32(row), to: self, bulk: bulk) }
    }

    private func removeFromIndexes(row: UInt64, bulk: Bool) {
        for index in indexes { index.remove(row: UInt32(row), from: self, bulk: bulk) }
    }

    /// Brings the indexes up to date at the end of a transaction (under the write lock).
    package func refreshIndexes() {
        for index in indexes { index.refresh(in: self) }
    }
}

// MARK: - Images (checkpoints)

extension EntityTable {
    /// A table's state at one moment, by attribute and relationship position. Columns or
    /// relationships that are nil (absent from a checkpoint written under another schema) start
    /// empty; sorted orders that are missing are rebuilt.
    package struct Image {
        package var slotCount: Int
        package var live: ChunkedArray<Bool>
        package var columns: [Column.Image?]
        package var toOne: [ChunkedArray<UInt32>?]
        package var toMany: [[[UInt32]]?]
        package var sorted: [Int: [UInt32]]
    }

    /// O(columns): the live flags, columns and to-ones share their chunks copy-on-write with the
    /// live table (a to-many's lists and a sorted order are copied).
    package func image() -> Image {
        Image(slotCount: slotCount, live: live, columns: columns.map { $0.image() },
              toOne: entity.relationships.map { $0.isToMany ? nil : toOne[$0.index] },
              toMany: entity.relationships.map { $0.isToMany ? toMany[$0.index].allMembers : nil },
              sorted: Dictionary(uniqueKeysWithValues: sorted.enumerated().compactMap { index, sorted in sorted.map { (index, $0.orderedRows) } }))
    }

    /// Replaces an empty table's contents with an image. The arrays the image has are taken as
    /// they are (no copy). Returns the work that rebuilds what is derived from them — the unique
    /// and hash indexes, the reverse sets of one-way relationships, any sorted order the image
    /// lacks — as independent jobs (to run side by side with other tables'), and a closure that
    /// installs their results once all have run.
    package func restore(_ image: Image) -> (jobs: [() -> Void], finish: () -> Void) {
        live = image.live
        liveCount = image.live.count(of: true)
        highestRow = UInt64(image.slotCount)
        for (i, column) in columns.enumerated() {
            if let columnImage = image.columns[i] {
                column.restore(columnImage)
            } else {
                // An attribute the checkpoint predates: every row starts at its default.
                column.grow(to: image.slotCount)
                for slot in 0..<slotCount where live[slot] { column.set(entity.attributes[i].defaultValue, at: slot) }
            }
        }
        for r in entity.relationships {
            if r.isToMany {
                toMany[r.index].restore(image.toMany[r.index] ?? Array(repeating: [], count: image.slotCount))
            } else {
                toOne[r.index] = image.toOne[r.index] ?? ChunkedArray(repeating: 0, count: image.slotCount)
            }
        }
        // Each job reads the arrays above and writes only its own result.
        let live = self.live, slots = image.slotCount
        var jobs: [() -> Void] = []
        let reverseSets = ResultSlots<[UInt32: [UInt32]]>(count: entity.relationships.count)
        for r in entity.relationships where r.inverse == nil {
            let toOne = r.isToMany ? ChunkedArray() : self.toOne[r.index], toMany = r.isToMany ? self.toMany[r.index].allMembers : []
            jobs.append {
                var sources: [UInt32: [UInt32]] = [:]
                for slot in 0..<slots where live[slot] {
                    let targets = r.isToMany ? toMany[slot] : (toOne[slot] == 0 ? [] : [toOne[slot]])
                    for target in targets { sources[target, default: []].append(UInt32(slot + 1)) }
                }
                reverseSets[r.index] = sources
            }
        }
        let positions = ResultSlots<[UInt32]>(count: entity.relationships.count)
        for r in entity.relationships where toMany[r.index].keepsPositions {
            let lists = self.toMany[r.index].allMembers
            jobs.append { positions[r.index] = MemberLists.positions(of: lists) }
        }
        jobs += indexes.map { $0.restoreJob(for: self, image: image) }
        return (jobs, { [self] in
            for r in entity.relationships where r.inverse == nil { reverse[r.index] = reverseSets[r.index] ?? [:] }
            for r in entity.relationships where toMany[r.index].keepsPositions { toMany[r.index].installPositions(positions[r.index] ?? []) }
        })
    }
}

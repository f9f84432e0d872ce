@_spi(GraphStoreInternals) import GraphStoreCore
import Synchronization

/// The committed object graph in memory: every entity's rows, relationships both ways, and the
/// indexes. A transaction is applied under the write lock, so readers (any number, side by side)
/// see it entirely or not at all.
@_spi(GraphStoreInternals) public final class Graph: @unchecked Sendable {
    // `tables` and `lastTransaction` are guarded by `lock`; `schema` and the numbering never change.
    package let schema: Schema
    @usableFromInline let lock = ReadWriteLock()
    // Replaced only under the write lock, and read under a lock: no run-time exclusivity checks
    // (a dynamic check on every read showed in profiles of linking a large import).
    @usableFromInline @exclusivity(unchecked) private(set) var tables: [EntityTable] {
        didSet { unretainedTables = tables.map(Unretained.init) }
    }
    /// The same tables unretained (`tables` keeps them), and every relationship's positions as
    /// plain values: linking read tables and schema descriptions, retaining and releasing each.
    private var unretainedTables: [Unretained<EntityTable>]
    private let sides: [[RelationshipSide]]
    @usableFromInline private(set) var committed: UInt64 = 0
    /// The next row number to hand out, per entity (reserved at insert, so identifiers are permanent at once).
    private let nextRows: Locked<[UInt64]>
    /// While loading a whole log at open, sorted indexes are merged once at the end.
    private var loading = false

    package init(schema: Schema) {
        self.schema = schema
        let tables = schema.entities.map { EntityTable(entity: $0, schema: schema) }
        self.tables = tables
        unretainedTables = tables.map(Unretained.init)
        sides = schema.entities.map { entity in entity.relationships.map { RelationshipSide($0, in: schema) } }
        nextRows = Locked(schema.entities.map { _ in 1 })
    }

    /// The number of the last transaction applied.
    package var lastTransaction: UInt64 { lock.withReadLock { committed } }

    /// Hands out a fresh row number for a new object of `entity`.
    package func reserveRow(entity: Int) -> UInt64 {
        nextRows.withLock { rows in
            defer { rows[entity] += 1 }
            return rows[entity]
        }
    }

    // The two reads of a point lookup, each taking the read lock once, without a GraphView:
    // making one retains the tables, and releases them after.

    /// The value of `attribute` in a live `row` of `entity`; nil when the row is not live.
    package func liveValue(entity: Int, row: UInt64, attribute: Int) -> Value? {
        lock.withReadLock {
            withTable(entity) { $0.isLive(row) ? $0.value(row: row, attribute: attribute) : nil }
        }
    }

    /// The target row of a live row's to-one relationship (nil when the row is gone or the
    /// relationship empty): what every to-one read asks, without making a view of the graph.
    package func liveToOne(entity: Int, row: UInt64, relationship: Int) -> UInt64? {
        lock.withReadLock {
            withTable(entity) { $0.isLive(row) ? $0.toOneTarget(row: row, relationship: relationship) : nil }
        }
    }

    /// Starts loading `row`'s values of `attributes` (positions as bits) and its to-one targets
    /// into the cache (a large result read in order, ResultReadAhead).
    package func prefetch(entity: Int, row: UInt64, attributes: UInt64) {
        lock.withReadLock { withTable(entity) { $0.prefetch(row: row, attributes: attributes, toOnes: true) } }
    }

    /// The row whose unique `attribute` of `entity` holds `value`; with `loading` (attribute
    /// positions as bits), those values of the row start loading into the cache.
    package func row(entity: Int, uniqueAttribute attribute: Int, value: Value, loading: UInt64 = 0) -> UInt64? {
        lock.withReadLock {
            withTable(entity) { table in
                let row = table.uniqueRow(attribute: attribute, value: value)
                if loading != 0, let row { table.prefetch(row: row, attributes: loading) }
                return row
            }
        }
    }

    /// The rows whose compound index `compound` of `entity` has `key`.
    package func rows(entity: Int, compound: Int, key: [Value]) -> [UInt64] {
        lock.withReadLock { withTable(entity) { $0.compound[compound].rows(for: key).map(UInt64.init) } }
    }

    /// Reads the graph under the read lock.
    @inlinable @_spi(GraphStoreInternals) public func read<R>(_ body: (GraphView) throws -> R) rethrows -> R {
        try lock.withReadLock { try body(GraphView(tables: tables, lastTransaction: committed)) }
    }

    // MARK: Applying transactions

    /// Applies a committed transaction atomically. Operations naming numbers this schema does not
    /// know (properties removed from the models) are skipped.
    package func apply(_ transaction: LogTransaction) {
        apply(transaction.operations, number: transaction.number)
    }

    package func apply(_ operations: [LogOperation], number: UInt64) {
        apply(TransactionChanges(operations: operations), number: number)
    }

    package func apply(_ changes: TransactionChanges, number: UInt64) {
        lock.withWriteLock {
            let bulk = changes.operationCount > SortedIndex.patchLimit ? prepareForLargeTransaction(changes)
                : Array(repeating: false, count: tables.count)
            for block in changes.blocks { apply(block, bulk: bulk) }
            for block in changes.links { apply(block) }
            for operation in changes.operations { apply(operation, bulk: bulk) }
            if !loading { for table in tables { table.refreshIndexes() } }
            committed = max(committed, number)
        }
        // Keep row reservation ahead of every applied row.
        nextRows.withLock { rows in
            for (i, table) in tables.enumerated() { rows[i] = max(rows[i], table.highestRow + 1) }
        }
    }

    // MARK: Images (checkpoints)

    /// Every table's state and the transaction it is as of, captured under the read lock in
    /// O(tables + columns): arrays are shared copy-on-write, so the image stays fixed while
    /// later commits go on (each first write to a column copies that column once).
    package func captureImage() -> (transaction: UInt64, tables: [EntityTable.Image]) {
        lock.withReadLock { (committed, tables.map { $0.image() }) }
    }

    /// Replaces the whole graph with table images (one per entity of the schema) as of `number`.
    /// The new tables are built aside and swapped in at once.
    package func install(_ images: [EntityTable.Image], number: UInt64) {
        let fresh = schema.entities.map { EntityTable(entity: $0, schema: schema) }
        // Every table's index rebuilding runs side by side (tables are independent objects).
        let restored = zip(fresh, images).filter { $0.1.slotCount > 0 }.map { table, image in table.restore(image) }
        runSideBySide(restored.flatMap(\.jobs))
        for table in restored { table.finish() }
        lock.withWriteLock {
            tables = fresh
            committed = number
        }
        nextRows.withLock { rows in
            for (i, table) in fresh.enumerated() { rows[i] = max(rows[i], table.highestRow + 1) }
        }
    }

    /// Defers index merging while a whole log is applied (recovery); `finishLoading` merges.
    package func beginLoading() { lock.withWriteLock { loading = true } }

    package func finishLoading() {
        lock.withWriteLock {
            loading = false
            for table in tables { table.refreshIndexes() }
        }
    }

    /// One pass over a large transaction: room for its inserts, each table grown once to its
    /// highest new row (a slot per row, added one insert at a time, was thirty appends per row),
    /// and the tables it changes so much that their indexes are rebuilt once at its end rather
    /// than kept up row by row — more rows inserted, updated or deleted than a merge handles
    /// well, and at least an eighth of the table (a few hundred changes to a table of millions
    /// patch its indexes instead of rebuilding them). Returns those tables.
    private func prepareForLargeTransaction(_ changes: TransactionChanges) -> [Bool] {
        var changed = [Int](repeating: 0, count: tables.count), inserted = changed
        var highest = [UInt64](repeating: 0, count: tables.count)
        for block in changes.blocks {
            guard let e = schema.entityIndexByNumber[block.entity] else { continue }
            changed[e] += block.count
            if block.kind == .insert {
                inserted[e] += block.count
                highest[e] = block.rows.reduce(highest[e], max)
            }
        }
        for operation in changes.operations {
            switch operation {
            case let .insert(entity, row, _):
                guard let e = schema.entityIndexByNumber[entity] else { continue }
                changed[e] += 1
                inserted[e] += 1
                highest[e] = max(highest[e], row)
            case let .update(entity, _, _), let .delete(entity, _):
                if let e = schema.entityIndexByNumber[entity] { changed[e] += 1 }
            default: break
            }
        }
        // Decided before the inserts grow the tables.
        let bulk = tables.indices.map { changed[$0] > SortedIndex.patchLimit && changed[$0] * 8 >= tables[$0].liveCount }
        for e in tables.indices where inserted[e] > 0 {
            tables[e].reserve(additional: inserted[e])
            // Rows are numbered densely; a far-off number (a damaged record) grows nothing here.
            if highest[e] <= UInt64(tables[e].slotCount + 2 * inserted[e]) { tables[e].grow(to: Int(highest[e])) }
        }
        return bulk
    }

    /// A block's rows, straight from its columns (see `apply(_:bulk:)` for an operation).
    private func apply(_ block: RowBlock, bulk: [Bool]) {
        guard let e = schema.entityIndexByNumber[block.entity] else { return }
        let table = tables[e]
        switch block.kind {
        case .insert: table.insert(block, bulk: bulk[e])
        case .update: table.update(block, bulk: bulk[e])
        }
    }

    /// A link block's links, as its `.link` operations would be.
    private func apply(_ block: LinkBlock) {
        guard let (e, r) = schema.relationshipByNumber[block.relationship] else { return }
        let side = sides[e][r]
        for (source, target) in block.links { link(side, source: source, target: target) }
    }

    /// `bulk`: by table, whether its indexes are rebuilt at the end instead (see `prepareForLargeTransaction`).
    private func apply(_ operation: LogOperation, bulk: [Bool]) {
        switch operation {
        case let .insert(entityNumber, row, values):
            guard let e = schema.entityIndexByNumber[entityNumber] else { return }
            tables[e].insert(row: row, values: values, bulk: bulk[e])
        case let .update(entityNumber, row, values):
            guard let e = schema.entityIndexByNumber[entityNumber] else { return }
            tables[e].update(row: row, values: values, bulk: bulk[e])
        case let .delete(entityNumber, row):
            guard let e = schema.entityIndexByNumber[entityNumber], tables[e].isLive(row) else { return }
            detachAll(entity: e, row: row)
            tables[e].delete(row: row, bulk: bulk[e])
        case let .link(number, source, target):
            guard let (e, r) = schema.relationshipByNumber[number] else { return }
            link(sides[e][r], source: source, target: target)
        case let .unlink(number, source, target):
            guard let (e, r) = schema.relationshipByNumber[number] else { return }
            unlink(sides[e][r], source: source, target: target)
        case .schema:
            break  // schema records are read by the container before the graph exists
        }
    }

    // MARK: Relationships, kept in step on both sides

    /// `body` with a table, not retained (hot paths only).
    @inline(__always) private func withTable<R>(_ e: Int, _ body: (EntityTable) -> R) -> R {
        unretainedTables[e].with(body)
    }

    /// Whether both rows a link or unlink names are live: rows that are not have nothing to
    /// link or detach (and a damaged record's row 0, or one past 32 bits, names no slot).
    @inline(__always) private func bothLive(_ side: RelationshipSide, source: UInt64, target: UInt64) -> Bool {
        withTable(side.entity, { $0.isLive(source) }) && withTable(side.target, { $0.isLive(target) })
    }

    private func link(_ side: RelationshipSide, source: UInt64, target: UInt64) {
        guard bothLive(side, source: source, target: target) else { return }
        // A to-one whose inverse is a to-many links from the list's side: its membership check
        // reads this to-one, which would already name the target and keep the list from growing.
        if !side.isToMany, let inverse = side.inverse, inverse.isToMany {
            return link(sides[inverse.entity][inverse.index], source: target, target: source)
        }
        guard attachOneSide(side, source: source, target: target) else { return }  // already linked
        if let inverse = side.inverse {
            attachOneSide(sides[inverse.entity][inverse.index], source: target, target: source)
        } else {
            tables[side.entity].reverse[side.index][UInt32(target), default: []].append(UInt32(source))
        }
    }

    private func unlink(_ side: RelationshipSide, source: UInt64, target: UInt64) {
        guard bothLive(side, source: source, target: target) else { return }
        detachOneSide(side, source: source, target: target)
        if let inverse = side.inverse {
            detachOneSide(sides[inverse.entity][inverse.index], source: target, target: source)
        } else {
            removeReverse(side, source: source, target: target)
        }
    }

    /// Points `source`'s side of a relationship at `target`. A to-one that pointed elsewhere is
    /// moved: the old target loses `source` from its side. Returns false when already linked.
    @discardableResult
    private func attachOneSide(_ side: RelationshipSide, source: UInt64, target: UInt64) -> Bool {
        let slot = Int(source - 1)
        if side.isToMany {
            // A member appears once (a link may repeat, say after an upsert relinks a row).
            if let inverse = side.inverse, !inverse.isToMany {
                // The member's own to-one says which list holds it (searching the list made
                // importing a million flights quadratic in each airline's flights). It leaves
                // that list first: its kept position names one list.
                let old = UInt64(withTable(inverse.entity) { $0.toOne[inverse.index][Int(target - 1)] })
                if old == source { return false }
                if old != 0 { detachOneSide(side, source: old, target: target) }
            } else if withTable(side.entity, { $0.toMany[side.index].contains(UInt32(target), in: slot) }) {
                return false
            }
            withTable(side.entity) { $0.toMany[side.index].append(UInt32(target), to: slot) }
        } else {
            let old = UInt64(withTable(side.entity) { $0.toOne[side.index][slot] })
            if old == target { return false }
            if old != 0 {
                if let inverse = side.inverse {
                    detachOneSide(sides[inverse.entity][inverse.index], source: old, target: source)
                } else {
                    removeReverse(side, source: source, target: old)
                }
            }
            withTable(side.entity) { $0.setToOne(side.index, slot: slot, to: UInt32(target)) }
        }
        return true
    }

    private func detachOneSide(_ side: RelationshipSide, source: UInt64, target: UInt64) {
        let table = tables[side.entity]
        guard source > 0, Int(source) <= table.slotCount else { return }
        let slot = Int(source - 1)
        if side.isToMany {
            table.toMany[side.index].remove(UInt32(target), from: slot)
        } else if table.toOne[side.index][slot] == UInt32(target) {
            table.setToOne(side.index, slot: slot, to: 0)
        }
    }

    private func removeReverse(_ side: RelationshipSide, source: UInt64, target: UInt64) {
        let table = tables[side.entity]
        guard var sources = table.reverse[side.index][UInt32(target)],
              let i = sources.firstIndex(of: UInt32(source)) else { return }
        sources.remove(at: i)
        table.reverse[side.index][UInt32(target)] = sources.isEmpty ? nil : sources
    }

    /// Before a row is deleted: unlink it from everything, on both sides, whatever the log said.
    private func detachAll(entity e: Int, row: UInt64) {
        let table = tables[e]
        let slot = Int(row - 1)
        for relationship in schema.entities[e].relationships {
            let targets: [UInt32] = relationship.isToMany ? table.toMany[relationship.index].members(of: slot)
                : (table.toOne[relationship.index][slot] == 0 ? [] : [table.toOne[relationship.index][slot]])
            for target in targets { unlink(sides[e][relationship.index], source: row, target: UInt64(target)) }
        }
        // One-way relationships of other entities that point at this row.
        for other in schema.entities {
            for relationship in other.relationships where relationship.targetIndex == e && relationship.inverse == nil {
                for source in tables[other.index].reverse[relationship.index][UInt32(row)] ?? [] {
                    unlink(sides[other.index][relationship.index], source: UInt64(source), target: row)
                }
            }
        }
    }
}

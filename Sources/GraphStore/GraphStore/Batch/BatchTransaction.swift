@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// Turns batches into one transaction's changes, under the container's commit lock and
/// against the graph as committed (see `BatchInsert` for what a row does).
///
/// Rows come out first, as blocks kept by column (every batch's inserts, then its updates), and
/// links after them as operations, so every link names rows that exist when it is applied.
final class BatchTransaction {
    let schema: Schema
    let view: GraphView
    let graph: Graph
    // One thread encodes (under the commit lock), each access whole: no run-time exclusivity
    // checks (one per link appended).
    @exclusivity(unchecked) private var inserts: [RowBlock] = []
    @exclusivity(unchecked) private var updates: [RowBlock] = []
    @exclusivity(unchecked) private var links: [LogOperation] = []
    private(set) var result = BatchInsertResult()
    /// Rows of the batches encoded so far, by entity: each unique attribute's claims (value →
    /// batch row) and the batch rows' row numbers — what a later batch's `toOne(_:by:)` keys
    /// find before committed rows, read where they are (copying every flight's ident into a
    /// table of row numbers cost a hash per row).
    private var claimed: [Int: (claims: [UniqueIndex?], rowNumber: [UInt64])] = [:]
    private var entitiesDone: Set<Int> = []

    init(schema: Schema, view: GraphView, graph: Graph) {
        self.schema = schema
        self.view = view
        self.graph = graph
    }

    /// Every batch's inserts, then their updates (blocks of rows), then the links. The
    /// transaction is empty afterwards.
    func takeChanges() -> TransactionChanges {
        defer { (inserts, updates, links) = ([], [], []) }
        return TransactionChanges(blocks: inserts + updates, operations: links)
    }

    func encode<Model>(_ batch: BatchInsert<Model>) throws {
        let entity = batch.entity
        if let misuse = batch.misuse { throw ModelContextError.batchInvalid(entity: entity.name, reason: misuse) }
        guard entitiesDone.insert(entity.index).inserted else {
            throw ModelContextError.batchInvalid(entity: entity.name, reason: "two batches of one model in one execute (make it one batch)")
        }
        var values = batch.values, targets = batch.links
        // Only the columns some row sets are read (an upsert sets three of fifteen).
        let valueColumns = values.setColumns, linkColumns = targets.setColumns
        // Each row's final row number, and the batch row it was merged into (itself if none).
        var rowNumber = [UInt64](repeating: 0, count: batch.count)
        var mergedInto = Array(0..<batch.count)
        var isNew = [Bool](repeating: false, count: batch.count)
        let defaults = entity.attributes.map(\.defaultValue)
        // By unique attribute: value → the batch row that has it (the unique indexes' own
        // tables; strings are hashed without going through `Value`).
        let claims = entity.attributes.map { $0.isUnique ? UniqueIndex(attribute: $0.index, keysAreStrings: $0.type.kind == .string) : nil }
        let uniques = entity.uniqueAttributes.map(\.index)
        // A row's committed owner of each of its unique values, once looked up; which values
        // were looked up among the claims and found free.
        var owners = [UInt64?](repeating: nil, count: uniques.count)
        var lookedUp = [Bool](repeating: false, count: uniques.count), unclaimed = lookedUp
        // The batch row writing each committed row (-1: none). A row found by its committed
        // value is claimed by number, not by value: nothing else can hold a committed row's own
        // value (a row taking it for another row fails below), and no key of an upsert is
        // hashed into the claims.
        var writerOfCommitted = [Int32](repeating: -1, count: uniques.isEmpty ? 0 : view.table(entity.index).slotCount + 1)
        func violation(_ attribute: Int, _ value: Value) -> ModelContextError {
            .uniqueConstraintViolation(entity: entity.name, attribute: entity.attributes[attribute].name, value: value.description)
        }
        // An upsert looks its rows' keys up one after another, each lookup waiting on a cache
        // miss in a large index: the first unique string key is fetched some rows ahead.
        let keyAhead = uniques.first, rowsAhead = 8
        let indexAhead = keyAhead.flatMap { view.table(entity.index).unique[$0] }
        for i in 0..<batch.count {
            if let keyAhead, let indexAhead, i + rowsAhead < batch.count, values.columns[keyAhead].layout == .string,
               values.columns[keyAhead].state(ofRow: i + rowsAhead) == BatchColumn.set {
                indexAhead.prefetch(values.columns[keyAhead].strings[i + rowsAhead])
            }
            // Which row does it write: an earlier row of the batch, a committed row, or a new one.
            var earlier: Int?
            var committed: UInt64?
            for u in uniques.indices {
                lookedUp[u] = false
                unclaimed[u] = false
            }
            for (u, attribute) in uniques.enumerated() {
                guard values.columns[attribute].state(ofRow: i) == BatchColumn.set, let value = values[i, attribute] else { continue }
                // (An upsert of committed rows claims nothing by value: no hashing then.)
                if claims[attribute]!.count > 0, let j = claims[attribute]![value] { earlier = Int(j); break }
                unclaimed[u] = true
                owners[u] = view.row(entity: entity.index, uniqueAttribute: attribute, value: value)
                lookedUp[u] = true
                if let row = owners[u] {
                    committed = row
                    if writerOfCommitted[Int(row)] >= 0 { earlier = Int(writerOfCommitted[Int(row)]) }
                    break
                }
            }
            let owner: Int
            if let j = earlier {
                // Later values win: the row's settings are copied over the earlier row's.
                for k in valueColumns { if let value = values[i, k] { values[j, k] = value } }
                for k in linkColumns { if let target = targets[i, k] { targets[j, k] = target } }
                mergedInto[i] = j
                owner = j
            } else {
                rowNumber[i] = committed ?? graph.reserveRow(entity: entity.index)
                isNew[i] = committed == nil
                if let committed { writerOfCommitted[Int(committed)] = Int32(i) }
                owner = i
            }
            // Every unique value the row sets is its own now — and a new row's unset ones, which
            // take their default — another row keeping one is a conflict.
            for (u, attribute) in uniques.enumerated() {
                // The committed row's own value, kept by that row: claimed by number above.
                if lookedUp[u], let committedOwner = owners[u], committedOwner == rowNumber[owner] { continue }
                guard let value = values[i, attribute] ?? (owner == i && isNew[i] ? defaults[attribute] : nil), value != .null else { continue }
                if !unclaimed[u], claims[attribute]!.count > 0, let other = claims[attribute]![value], other != owner {
                    throw violation(attribute, value)
                }
                let committedOwner = lookedUp[u] ? owners[u] : view.row(entity: entity.index, uniqueAttribute: attribute, value: value)
                if let committedOwner, committedOwner != rowNumber[owner] { throw violation(attribute, value) }
                // Room for the rest of the batch once a first row claims by value (an upsert of
                // committed rows never does, and keeps no table).
                if claims[attribute]!.count == 0 { claims[attribute]!.reserveCapacity(batch.count - i) }
                claims[attribute]![value] = UInt32(owner)
            }
        }
        // Rows, as two blocks kept by column (no operation per row: see RowBlock).
        var newRows: [UInt64] = [], newSources: [Int] = [], updatedRows: [UInt64] = [], updatedSources: [Int] = []
        for i in 0..<batch.count where mergedInto[i] == i {
            if isNew[i] {
                newRows.append(rowNumber[i])
                newSources.append(i)
            } else {
                // A row that sets nothing writes nothing (it still counts as updated).
                if valueColumns.contains(where: { values.columns[$0].state(ofRow: i) != BatchColumn.unset }) {
                    updatedRows.append(rowNumber[i])
                    updatedSources.append(i)
                }
                result.updated += 1
            }
        }
        result.inserted += newRows.count
        if !newRows.isEmpty {
            inserts.append(RowBlock(kind: .insert, entity: entity.number, properties: entity.attributeNumbers,
                                    columns: values.columns, defaults: defaults, rows: newRows, sources: newSources))
        }
        if !updatedRows.isEmpty {
            updates.append(RowBlock(kind: .update, entity: entity.number, properties: entity.attributeNumbers,
                                    columns: values.columns, defaults: [], rows: updatedRows, sources: updatedSources))
        }
        // Links, relationship by relationship, so that what each needs is worked out once, not
        // once per row: a new row links what it names, an updated row moves only what changed.
        // Within a relationship rows keep their order (the order of an inverse to-many list).
        // Room for a link per row and column set (an import's): growing by doubling copied and
        // touched twice the memory.
        links.reserveCapacity(links.count + batch.count * linkColumns.count)
        for relationship in entity.relationships where !relationship.isToMany && linkColumns.contains(relationship.index) {
            let column = targets.columns[relationship.index]
            let targetEntity = schema.entities[relationship.targetIndex]
            let side = LinkSide(relationship, in: schema)
            // The earlier batches' rows by the key attribute last seen (one per handle).
            var keyAttribute = -1, earlier = EarlierRows()
            for i in 0..<min(batch.count, column.count) where mergedInto[i] == i {
                guard let target = column[i] else { continue }
                let newTarget: UInt64?
                switch target {
                case .nothing:
                    newTarget = nil
                case let .row(row):
                    // Identifiers come from saved objects: the row must be committed.
                    guard view.isLive(entity: targetEntity.index, row: row) else {
                        throw ModelContextError.batchTargetNotFound(entity: entity.name, relationship: relationship.name,
                                                                    target: "\(targetEntity.name)/\(row)")
                    }
                    newTarget = row
                case let .key(attribute, value):
                    if attribute != keyAttribute { (keyAttribute, earlier) = (attribute, earlierRows(of: targetEntity.index, byUnique: attribute)) }
                    guard let row = earlier.row(value) ?? view.row(entity: targetEntity.index, uniqueAttribute: attribute, value: value) else {
                        throw ModelContextError.batchTargetNotFound(entity: entity.name, relationship: relationship.name,
                                                                    target: "\(targetEntity.name) with \(targetEntity.attributes[attribute].name) \(value)")
                    }
                    newTarget = row
                }
                let row = rowNumber[i]
                let oldTarget = isNew[i] ? nil : view.toOne(entity: entity.index, row: row, relationship: relationship.index)
                if oldTarget == newTarget { continue }
                if let oldTarget { links.append(side.operation(source: row, target: oldTarget, unlink: true)) }
                if let newTarget { links.append(side.operation(source: row, target: newTarget, unlink: false)) }
            }
        }
        // What later batches' keys find.
        claimed[entity.index] = (claims, rowNumber)
    }

    /// The rows the batches before this one gave `entity`, by their values of a unique attribute.
    private func earlierRows(of entity: Int, byUnique attribute: Int) -> EarlierRows {
        guard let (claims, rowNumber) = claimed[entity] else { return EarlierRows() }
        return EarlierRows(claims: claims[attribute], rowNumber: rowNumber)
    }
}

/// Which side writes a relationship's links (a pair's links are written from one side): its
/// number, and whether source and target swap.
private struct LinkSide {
    let number: PropertyNumber
    let swaps: Bool

    init(_ relationship: Schema.Relationship, in schema: Schema) {
        if !schema.writesLinks(relationship), let inverse = schema.inverse(of: relationship) {
            (number, swaps) = (inverse.number, true)
        } else {
            (number, swaps) = (relationship.number, false)
        }
    }

    func operation(source: UInt64, target: UInt64, unlink: Bool) -> LogOperation {
        let (from, to) = swaps ? (target, source) : (source, target)
        return unlink ? .unlink(relationship: number, source: from, target: to) : .link(relationship: number, source: from, target: to)
    }
}

/// The rows an earlier batch gave its entity, by the values of one unique attribute: its
/// claims (value → batch row) and its batch rows' row numbers.
private struct EarlierRows {
    var claims: UniqueIndex?
    var rowNumber: [UInt64] = []

    func row(_ value: Value) -> UInt64? {
        claims?[value].map { rowNumber[Int($0)] }
    }
}

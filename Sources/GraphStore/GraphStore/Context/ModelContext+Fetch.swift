import Foundation
import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreGraph
@_spi(GraphStoreInternals) import GraphStoreCore

/// Fetching: every live row of the entity (with this context's unsaved changes, unless the
/// descriptor says otherwise), filtered by the predicate and sorted by the sort descriptors.
extension ModelContext {
    /// The objects the descriptor finds, in its order, from its offset, at most its limit:
    /// committed rows (through an index when the predicate has one) and, unless
    /// `includePendingChanges` is false, this context's unsaved inserts and changes, less its
    /// deletes. Throws `ModelContextError.typeNotInSchema` for a type the container does not store,
    /// and rethrows what a predicate evaluated on objects throws.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        if let partitions { return try partitions.context(for: T.self, in: schema).fetch(descriptor) }
        let entered = try link.enter("fetch")
        defer { link.leave(entered) }
        runPendingAutosave()
        guard descriptor.includePendingChanges || !hasChanges else { return try fetchCommitted(descriptor) }
        guard let entity = schema.entity(for: T.self) else { throw ModelContextError.typeNotInSchema("\(T.self)") }
        // A lookup by a unique key, with or without unsaved changes, first: one or two objects,
        // which need neither a plan nor read-ahead.
        if let found = lookupByUniqueKey(descriptor, entity: entity) {
            return try sortedAndPaged(found, sortBy: descriptor.sortBy, offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
        }
        let results = try fetchWithoutChanges(descriptor, entity: entity)
            ?? leadingOfAll(descriptor, entity: entity)
            ?? sortedAndPaged(try candidates(descriptor, entity: entity), sortBy: descriptor.sortBy,
                              offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
        if results.count >= ResultReadAhead.minimumCount {
            link.resultReadAhead.publish(entity: entity.index, count: results.count) { i in
                let backing = results[i].persistentBacking
                return (backing, backing.state == .persistent ? backing.row : 0)
            }
        }
        return results
    }

    /// A predicate fetch by a context without unsaved changes (other than a unique-key lookup,
    /// tried before): the shape's compiled query run on rows as a prepared fetch runs
    /// (`fetchOnRows`). Nil when the predicate runs on objects (or there is none, or there are
    /// changes): `candidates` then.
    private func fetchWithoutChanges<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws -> [T]? {
        guard queryPlanningEnabled, !hasChanges, let expression = descriptor.expression else { return nil }
        let (compiled, constants) = compiledQuery(expression: expression, entity: entity)
        return try fetchOnRows(compiled, entity: entity, values: constants, sortBy: descriptor.sortBy,
                               offset: descriptor.fetchOffset, limit: descriptor.fetchLimit)
    }

    /// A fetch of every object with a limit, by a context without unsaved changes: objects
    /// only for the rows that can lead (`LeadingRows`), sorted (unless the rows were put in
    /// order) and paged. Nil when those cannot be told apart.
    private func leadingOfAll<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws -> [T]? {
        guard descriptor.predicate == nil, let limit = descriptor.fetchLimit, !descriptor.sortBy.isEmpty, !hasChanges else { return nil }
        let count = LeadingRows.count(offset: descriptor.fetchOffset, limit: limit)
        guard let leading = graph.read({ LeadingRows.ofAll(by: descriptor.sortBy, count: count, entity: entity, in: $0) }) else { return nil }
        return try sortedAndPaged(objects(entity: entity.index, rows: leading.rows, as: T.self), sortBy: leading.inOrder ? [] : descriptor.sortBy,
                                  offset: descriptor.fetchOffset, limit: limit)
    }

    /// A fetch's matches in its order, from its offset, at most its limit of them.
    func sortedAndPaged<T: PersistentModel>(_ matches: consuming [T], sortBy: [SortDescriptor<T>], offset: Int?, limit: Int?) throws -> [T] {
        // One object or none needs no order, and only an offset or a zero limit pages it: told
        // before the sort descriptors are touched, whose generic metadata lookups were a tenth
        // of a `#Predicate` lookup by key.
        if matches.count < 2, (offset ?? 0) <= 0, limit.map({ $0 > 0 }) ?? true { return matches }
        // Taken, not copied: the fetch's own array is put in order in place (see `stableSort`).
        var results = consume matches
        if !sortBy.isEmpty && results.count > 1 { try stableSort(&results, by: sortBy) }
        let start = min(offset ?? 0, results.count)
        let end = limit.map { min(results.count, start + max(0, $0)) } ?? results.count
        return start == 0 && end == results.count ? results : Array(results[start..<end])
    }

    /// How many objects the descriptor finds, after its offset and within its limit (without a predicate, counted without making any object).
    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        if let partitions { return try partitions.context(for: T.self, in: schema).fetchCount(descriptor) }
        let entered = try link.enter("fetchCount")
        defer { link.leave(entered) }
        // Counting everything needs no objects.
        if descriptor.predicate == nil, !hasChanges || !descriptor.includePendingChanges, let entity = schema.entity(for: T.self) {
            let count = graph.read { $0.table(entity.index).liveCount }
            let offset = min(descriptor.fetchOffset ?? 0, count)
            return min(count - offset, descriptor.fetchLimit ?? .max)
        }
        var unpaged = descriptor
        unpaged.sortBy = []
        unpaged.fetchLimit = nil
        unpaged.fetchOffset = nil
        guard let entity = schema.entity(for: T.self) else { throw ModelContextError.typeNotInSchema("\(T.self)") }
        let count = descriptor.includePendingChanges || !hasChanges
            ? try (lookupByUniqueKey(unpaged, entity: entity) ?? candidates(unpaged, entity: entity)).count
            : try fetchCommitted(unpaged).count
        let offset = min(descriptor.fetchOffset ?? 0, count)
        return min(count - offset, descriptor.fetchLimit ?? .max)
    }

    /// The identifiers of the objects the descriptor finds, in its order.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        let entered = try link.enter("fetchIdentifiers")
        defer { link.leave(entered) }
        return try fetch(descriptor).map(\.persistentModelID)
    }

    /// The descriptor's matches as a collection whose objects are made `batchSize` at a time, as
    /// they are read (SwiftData's batched fetch). Which rows match, and in what order, is
    /// settled now; an object whose row is deleted before it is read comes back deleted
    /// (`isDeleted`), as `model(for:)` gives it.
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int) throws -> FetchResultsCollection<T> {
        let identifiers = try fetchIdentifiers(descriptor)
        return FetchResultsCollection(count: identifiers.count, batchSize: batchSize) { [self] range in
            identifiers[range].map { identifier in
                // The context's own type for the identifier's entity, which is T.
                model(for: identifier) as! T
            }
        }
    }

    /// The descriptor's matching identifiers, handed out `batchSize` at a time.
    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>,
                                                     batchSize: Int) throws -> FetchResultsCollection<PersistentIdentifier> {
        let identifiers = try fetchIdentifiers(descriptor)
        return FetchResultsCollection(count: identifiers.count, batchSize: batchSize) { Array(identifiers[$0]) }
    }

    /// `#Predicate { $0.uniqueKey == value }`: the unique index answers it directly (no plan, no
    /// compiled predicate), and with unsaved changes `pendingUnique` adds the unsaved object
    /// that holds the value, so the seed apps' find-or-create per record stays O(1) however many
    /// records are pending. Nil when the fetch is anything else (or the pending map cannot be
    /// trusted: two unsaved objects share the value).
    private func lookupByUniqueKey<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) -> [T]? {
        guard plansQueries, let expression = descriptor.expression, let lookup = keyLookup(expression),
              let key = uniqueKey(lookup.keyPath, in: entity), !key.isExternal,
              let value = lookup.value, value != .null else { return nil }
        let pendingChanges = hasChanges
        if pendingChanges { keepPendingUnique() }
        if pendingChanges && (pendingUniqueIsAmbiguous || !descriptor.includePendingChanges) { return nil }
        // Plain conditionals, not Optional.map/flatMap: in this generic function (unspecialised
        // for the app's model types) those closures cost generic metadata lookups per call.
        let loading = link.readAhead.attributesToLoad(entity: entity.index)
        var committed: T?
        if let row = graph.row(entity: entity.index, uniqueAttribute: key.attribute, value: value, loading: loading),
           let model = downcast(object(entity: entity.index, row: row), to: T.self) {
            committed = model
        }
        func committedOnly() -> [T] {
            guard let committed else { return [] }
            return modelArray([committed], of: T.self)
        }
        guard pendingChanges else { return committedOnly() }
        if let model = committed, model.persistentBacking.isDeletedOrChangedAway(attribute: key.attribute, from: value) { committed = nil }
        guard let owner = pendingUniqueOwner(entity: entity.index, attribute: key.attribute, value: value),
              let pending = downcast(owner, to: T.self),
              pending !== committed else { return committedOnly() }
        guard let committed else { return modelArray([pending], of: T.self) }
        // Both: in the order a scan gives, rows first by number, unsaved inserts after them.
        let pendingRow = pending.persistentBacking.state == .inserted ? UInt64.max : pending.persistentBacking.row
        return modelArray(pendingRow < committed.persistentBacking.row ? [pending, committed] : [committed, pending], of: T.self)
    }

    /// `includePendingChanges: false`: filter and sort what is committed, ignoring this context's
    /// unsaved inserts, changes and deletes, then hand out this context's objects for those rows.
    private func fetchCommitted<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        guard let entity = schema.entity(for: T.self) else { throw ModelContextError.typeNotInSchema("\(T.self)") }
        var committedOnly = descriptor
        committedOnly.fetchLimit = nil
        committedOnly.fetchOffset = nil
        let rows = plan(committedOnly, entity: entity, ignoringPendingChanges: true).1.sorted()
        var copies = rows.compactMap { committedCopy(entity: entity.index, row: $0) as? T }
        if let predicate = descriptor.predicate { copies = try evaluatingOnObjects { try copies.filter { try predicate.evaluate($0) } } }
        if !descriptor.sortBy.isEmpty { copies = try stableSorted(copies, by: descriptor.sortBy) }
        let offset = min(descriptor.fetchOffset ?? 0, copies.count)
        let end = descriptor.fetchLimit.map { min(copies.count, offset + max(0, $0)) } ?? copies.count
        return copies[offset..<end].compactMap { object(entity: entity.index, row: $0.persistentBacking.row) as? T }
    }

    /// Calls `block` with each object the descriptor fetches, a batch at a time, so that objects
    /// of finished batches can be released. Throws `mutationDuringEnumeration` if the context has
    /// unsaved changes at the start or after a batch, unless `allowEscapingMutations`.
    public func enumerate<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, batchSize: Int = 5_000,
                                              allowEscapingMutations: Bool = false, block: (T) throws -> Void) throws {
        if let partitions {
            return try partitions.context(for: T.self, in: schema).enumerate(descriptor, batchSize: batchSize,
                                                                             allowEscapingMutations: allowEscapingMutations, block: block)
        }
        let entered = try link.enter("enumerate")
        defer { link.leave(entered) }
        guard allowEscapingMutations || !hasChanges else { throw ModelContextError.mutationDuringEnumeration }
        let identifiers = try fetchIdentifiers(descriptor)
        var start = 0
        while start < identifiers.count {
            let end = min(identifiers.count, start + max(1, batchSize))
            for identifier in identifiers[start..<end] {
                if let model = existingModel(for: identifier) as? T { try block(model) }
            }
            start = end
            guard allowEscapingMutations || !hasChanges else { throw ModelContextError.mutationDuringEnumeration }
        }
    }

    /// How a fetch will find its rows, as text: the index or inverse set used, or a scan.
    public func explain<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> String {
        if let partitions { return try partitions.context(for: T.self, in: schema).explain(descriptor) }
        let entered = try link.enter("explain")
        defer { link.leave(entered) }
        guard let entity = schema.entity(for: T.self) else { throw ModelContextError.typeNotInSchema("\(T.self)") }
        let (plan, rows) = plan(descriptor, entity: entity, describing: true)
        var lines = [plan?.plan ?? "scan \(entity.name): \(rows.count) row(s)"]
        if let expression = descriptor.expression {
            let (compiled, constants) = compiledQuery(expression: expression, entity: entity)
            let onRows = compiled.condition != nil && constants.storedComplete
            lines.append(onRows ? "filter by the predicate, compiled, on rows" : "filter by the predicate on objects")
        }
        if descriptor.includePendingChanges && hasChanges { lines.append("with this context's unsaved changes") }
        if !descriptor.sortBy.isEmpty { lines.append("sort by \(descriptor.sortBy.count) key(s)") }
        if descriptor.fetchOffset ?? 0 > 0 || descriptor.fetchLimit != nil {
            lines.append("offset \(descriptor.fetchOffset ?? 0), limit \(descriptor.fetchLimit.map(String.init) ?? "none")")
        }
        return lines.joined(separator: "\n")
    }

    /// Whether fetches use indexes (tests turn it off to compare with a plain scan).
    var plansQueries: Bool {
        get { queryPlanningEnabled }
        set { queryPlanningEnabled = newValue }
    }

    /// The rows a descriptor's plan allows (nil and every live row: a scan). Steps through a
    /// relationship stand down for entities this context has unsaved changes to, unless
    /// `ignoringPendingChanges`.
    private func plan<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity, ignoringPendingChanges: Bool = false,
                                          describing: Bool = false) -> (QueryExecutor.Candidates?, [UInt64]) {
        guard queryPlanningEnabled, let expression = descriptor.expression else {
            return (nil, graph.read { $0.table(entity.index).liveRows })
        }
        let pendingEntities: Set<Int> = ignoringPendingChanges ? [] : Set(unsavedModels.compactMap { $0.persistentBacking.entity?.index })
        let (compiled, constants) = compiledQuery(expression: expression, entity: entity)
        return graph.read { view in
            let executor = QueryExecutor(plan: compiled.plan, schema: schema, entity: entity, view: view,
                                         stored: constants.stored, given: constants.given, marks: rowMarks,
                                         hasPendingChanges: { pendingEntities.contains($0) }, describes: describing)
            guard let candidates = executor.candidates() else { return (nil, view.table(entity.index).liveRows) }
            return (candidates, candidates.rows.map(UInt64.init))
        }
    }

    /// The compiled query for a predicate's shape (made on the first fetch of that shape here),
    /// and the predicate's constants, its slots' values: found by the expression's type and
    /// signature when its tree converts statically (no tree made, no key path hashed), by shape
    /// otherwise and the first time.
    private func compiledQuery<E: StandardPredicateExpression<Bool>>(expression: E, entity: Schema.Entity) -> (CompiledQuery, constants: SlotValues) {
        let type = predicateExpressionTypes.of(E.self)
        guard let convertible = type.convertible, let signer = type.signer else {
            let (compiled, constants) = compiledQuery(PredicateNode(expression), entity: entity)
            return (compiled, SlotValues(given: constants))
        }
        let (signature, constants) = signer.sign(expression)
        let id = ObjectIdentifier(E.self)
        if let kept = compiledQueriesBySignature.query(type: id, entity: entity.index, signature: signature) { return (kept, constants) }
        let (compiled, _) = compiledQuery(convertible.predicateNode(of: expression), entity: entity)
        if compiledQueriesBySignature.count >= 256 { compiledQueriesBySignature.removeAll() }
        compiledQueriesBySignature.keep(compiled, type: id, entity: entity.index, signature: signer.sign(expression, retainingKeyPaths: true).signature)
        return (compiled, constants)
    }

    /// The key path of `$0.key == constant` and the constant's stored form (nil when it has
    /// none); nil for any other expression.
    private func keyLookup<E: StandardPredicateExpression<Bool>>(_ expression: E) -> (keyPath: AnyKeyPath, value: Value?)? {
        let known = predicateExpressionTypes.of(E.self)
        if let layout = known.keyLookupLayout { return layout.parts(of: expression) }
        if let storable = known.storableKeyLookup { return storable.storedParts(of: expression) }
        guard let lookup = known.keyLookup?.parts(of: expression) else { return nil }
        return (lookup.keyPath, QueryPlanner.storedValue(lookup.constant))
    }

    /// The same, by the shape of a converted predicate.
    func compiledQuery(_ node: PredicateNode, entity: Schema.Entity) -> (CompiledQuery, constants: [Any]) {
        let (shapeHash, constants) = QueryShape.fingerprint(of: node)
        let key = CompiledQueryKey(entity: entity.index, shapeHash: shapeHash)
        if let kept = compiledQueries[key]?.first(where: { $0.shape.isShape(of: node) }) { return (kept.query, constants) }
        // An app fetches a handful of shapes; one that builds predicates of ever new shapes
        // would only fill this.
        if compiledQueries.count >= 256 { compiledQueries.removeAll() }
        let shape = QueryShape.parameterizing(node).shape
        let compiled = CompiledQuery(shape.node, schema: schema, entity: entity)
        compiledQueries[key, default: []].append((shape, compiled))
        return (compiled, constants)
    }

    /// The descriptor's matches, unsorted and unpaged, with this context's unsaved changes (the
    /// callers try `lookupByUniqueKey` first): on rows when the predicate compiles, else the
    /// plan's rows, or every row, filtered on objects.
    private func candidates<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity) throws -> [T] {
        // A predicate that does not compile for rows was planned on the way: that plan is used.
        var planned: (QueryExecutor.Candidates?, [UInt64])?
        if let rowMatches = try matchOnRows(descriptor, entity: entity, planned: &planned) { return rowMatches }
        let (plan, rows) = planned ?? plan(descriptor, entity: entity)
        var results: [T] = []
        results.reserveCapacity(rows.count)
        var seen = Set<UInt64>()
        for row in rows {
            guard let model = downcast(object(entity: entity.index, row: row), to: T.self) else { continue }
            if descriptor.includePendingChanges && model.persistentBacking.state == .deleted { continue }
            results.append(model)
            if plan != nil { seen.insert(row) }
        }
        if plan != nil {
            if descriptor.includePendingChanges {
                // Unsaved changes may make rows the index does not list match: check them too.
                for backing in changedBackings(entity: entity.index) {
                    if let model = downcast(backing, to: T.self), !seen.contains(backing.row) { results.append(model) }
                }
            }
            // Planned rows come in no particular order; results come in row order, as a scan's do.
            results.sort { $0.persistentBacking.row < $1.persistentBacking.row }
        }
        if descriptor.includePendingChanges { results.append(contentsOf: inserted.compactMap { $0 as? T }) }
        guard let predicate = descriptor.predicate else { return results }
        return try evaluatingOnObjects { try results.filter { try predicate.evaluate($0) } }
    }

    /// Evaluates the predicate on committed rows, compiled (see RowEvaluation), and makes objects
    /// only for the rows that match. Rows with unsaved changes in this context, and unsaved
    /// inserts, are evaluated on their objects. Nil when the predicate has a shape that must be
    /// evaluated on objects (then `planned` holds the plan it made, for the caller's fallback), or
    /// unsaved changes elsewhere could change what a chain reads.
    private func matchOnRows<T: PersistentModel>(_ descriptor: FetchDescriptor<T>, entity: Schema.Entity,
                                                 planned: inout (QueryExecutor.Candidates?, [UInt64])?) throws -> [T]? {
        guard queryPlanningEnabled, let expression = descriptor.expression, let predicate = descriptor.predicate else { return nil }
        let pending = unsavedModels
        guard pending.allSatisfy({ $0.persistentBacking.entity?.index == entity.index }) else { return nil }
        let pendingRows = Set(pending.filter { $0.persistentBacking.state != .inserted }.map(\.persistentBacking.row))
        let pendingEntities: Set<Int> = pending.isEmpty ? [] : [entity.index]
        let (compiled, constants) = compiledQuery(expression: expression, entity: entity)
        let (stored, given, complete) = (constants.stored, constants.given, constants.storedComplete)
        let matchedRows: [UInt64]? = graph.read { view in
            let executor = QueryExecutor(plan: compiled.plan, schema: schema, entity: entity, view: view,
                                         stored: stored, given: given, marks: rowMarks,
                                         hasPendingChanges: { pendingEntities.contains($0) })
            var found: QueryExecutor.Candidates?
            if let rows = compiled.matches(in: executor, storedComplete: complete, excluding: pendingRows, planned: &found) {
                return rows
            }
            planned = (found, found.map { $0.rows.map(UInt64.init) } ?? view.table(entity.index).liveRows)
            return nil
        }
        guard let matched = matchedRows?.sorted() else { return nil }
        var results = objects(entity: entity.index, rows: matched, as: T.self)
        for backing in changedBackings(entity: entity.index) {
            if let model = downcast(backing, to: T.self), try evaluatingOnObjects({ try predicate.evaluate(model) }) { results.append(model) }
        }
        if !changed.isEmpty { results.sort { $0.persistentBacking.row < $1.persistentBacking.row } }
        for model in inserted {
            if let model = model as? T, try evaluatingOnObjects({ try predicate.evaluate(model) }) { results.append(model) }
        }
        return results
    }

    /// Sorts by the descriptors in order; ties keep their previous order (stable).
    func stableSorted<T>(_ items: [T], by descriptors: [SortDescriptor<T>]) throws -> [T] {
        // Decorate, sort, undecorate: each key that is a number, a date or a string is read
        // once per object instead of twice per comparison (a key path read through a model,
        // computed properties included, costs far more than comparing two values). Keys of
        // other kinds still decide through `compare`.
        let order = evaluatingOnObjects { sortOrder(items, by: descriptors) { SortKeys(items, $0) } }
        var sorted = items
        Self.permute(&sorted, into: order)
        return sorted
    }

    /// The same for objects of this context (see `stableSort`).
    func stableSorted<T: PersistentModel>(_ items: [T], by descriptors: [SortDescriptor<T>]) throws -> [T] {
        var sorted = items
        try stableSort(&sorted, by: descriptors)
        return sorted
    }

    /// Puts objects of this context in the descriptors' order, stably. A key that is a stored
    /// attribute is read from the objects' committed rows when the context has no unsaved
    /// changes (each object then holds what its row holds): a column read per object instead of
    /// a key path read through it.
    func stableSort<T: PersistentModel>(_ items: inout [T], by descriptors: [SortDescriptor<T>]) throws {
        let order = evaluatingOnObjects {
            sortOrder(items, by: descriptors) { committedSortKeys(items, $0) ?? SortKeys(items, $0) }
        }
        Self.permute(&items, into: order)
    }

    /// Rearranges `items` so that the k-th is the one that was at `order[k]` (`order` is a
    /// permutation of the positions), moving each item once. Copying them in the new order
    /// instead retained each object, and in that order the objects' headers lie anywhere in
    /// memory: a cache miss per object, for a million of them the largest part of the sort.
    static func permute<T>(_ items: inout [T], into order: [Int]) {
        precondition(order.count == items.count, "an order of \(order.count) positions for \(items.count) items")
        items.withUnsafeMutableBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return }
            let arranged = UnsafeMutablePointer<T>.allocate(capacity: buffer.count)
            defer { arranged.deallocate() }
            for (k, position) in order.enumerated() { (arranged + k).moveInitialize(from: base + position, count: 1) }
            base.moveInitialize(from: arranged, count: buffer.count)
        }
    }

    /// `descriptor`'s key of every object read from its committed row (see `stableSorted`), or
    /// nil when that cannot stand for what the objects hold.
    private func committedSortKeys<T: PersistentModel>(_ items: [T], _ descriptor: SortDescriptor<T>) -> SortKeys? {
        guard !hasChanges, let keyPath = descriptor.keyPath, let first = items.first, let entity = first.persistentBacking.entity,
              case let .attribute(attribute)? = entity.property(for: keyPath),
              !attribute.isEphemeral, !attribute.options.contains(.externalStorage) else { return nil }
        let (entityIndex, attributeIndex) = (entity.index, attribute.index)
        return graph.read { view in
            SortKeys(items, descriptor, sample: first[keyPath: keyPath]) { item in
                let backing = item.persistentBacking
                guard backing.entityIndex == entityIndex, backing.state == .persistent, backing.row > 0,
                      view.isLive(entity: entityIndex, row: backing.row) else { return nil }
                return view.value(entity: entityIndex, row: backing.row, attribute: attributeIndex)
            }
        }
    }

    /// The positions of `items` in the order of the descriptors, each descriptor's key read
    /// once per item by `keys` (nil: compared through the descriptor). The first key orders
    /// everything; the others are read only when it ties somewhere, and order only its runs of
    /// ties.
    private func sortOrder<T>(_ items: [T], by descriptors: [SortDescriptor<T>], keys: (SortDescriptor<T>) -> SortKeys?) -> [Int] {
        guard let firstDescriptor = descriptors.first else { return Array(items.indices) }
        // A descriptor is touched only for a key that was not read: in this unspecialised
        // function, a generic value made per comparison looks its type up at run time. The keys
        // are read in place (copying one out retains its arrays, per comparison).
        let first = keys(firstDescriptor)
        func firstOrder(_ i: Int, _ j: Int) -> ComparisonResult {
            first?.compare(i, j) ?? firstDescriptor.compare(items[i], items[j])
        }
        // A number first key (a sort by date or distance): positions by the keys' order-keeping
        // bits, by radix from 256 items; otherwise by comparing the first key alone, ties in
        // position order (stable).
        var order: [Int]
        if let byNumber = first?.numberOrder() {
            order = byNumber
        } else {
            order = (0..<items.count).sorted { i, j in
                switch firstOrder(i, j) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: return i < j
                }
            }
        }
        guard descriptors.count > 1 else { return order }
        var rest: [SortKeys?]?
        order.withUnsafeMutableBufferPointer { order in
            var start = 0
            while start < order.count {
                var end = start + 1
                while end < order.count, firstOrder(order[start], order[end]) == .orderedSame { end += 1 }
                if end - start > 1 {
                    if rest == nil { rest = descriptors.dropFirst().map(keys) }
                    rest!.withUnsafeBufferPointer { rest in
                        /// Whether item `i` goes before item `j` by the other keys (stably).
                        func precedes(_ i: Int, _ j: Int) -> Bool {
                            for k in rest.indices {
                                switch rest[k]?.compare(i, j) ?? descriptors[k + 1].compare(items[i], items[j]) {
                                case .orderedAscending: return true
                                case .orderedDescending: return false
                                case .orderedSame: continue
                                }
                            }
                            return i < j
                        }
                        order[start..<end].sort(by: precedes)
                    }
                }
                start = end
            }
        }
        return order
    }
}

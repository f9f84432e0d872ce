import Foundation

/// Fetching: every live row of the entity (with this context's unsaved changes, unless the
/// descriptor says otherwise), filtered by the predicate and sorted by the sort descriptors.
extension ModelContext {
    public func fetch<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        try checkOwner("fetch")
        runPendingAutosave()
        var results = try candidates(descriptor)
        if !descriptor.sortBy.isEmpty {
            results = try stableSorted(results, by: descriptor.sortBy)
        }
        let offset = min(descriptor.fetchOffset ?? 0, results.count)
        let end = descriptor.fetchLimit.map { min(results.count, offset + max(0, $0)) } ?? results.count
        return Array(results[offset..<end])
    }

    public func fetchCount<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> Int {
        try checkOwner("fetchCount")
        var unpaged = descriptor
        unpaged.sortBy = []
        let count = try candidates(unpaged).count
        let offset = min(descriptor.fetchOffset ?? 0, count)
        return min(count - offset, descriptor.fetchLimit ?? .max)
    }

    public func fetchIdentifiers<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [PersistentIdentifier] {
        try fetch(descriptor).map(\.persistentModelID)
    }

    private func candidates<T: PersistentModel>(_ descriptor: FetchDescriptor<T>) throws -> [T] {
        guard let entity = schema.entity(for: T.self) else { throw ModelContextError.typeNotInSchema("\(T.self)") }
        let rows = graph.read { $0.table(entity.index).liveRows }
        var results: [T] = []
        results.reserveCapacity(rows.count)
        for row in rows {
            guard let model = object(entity: entity.index, row: row) as? T else { continue }
            if descriptor.includePendingChanges && model.persistentBacking.state == .deleted { continue }
            results.append(model)
        }
        if descriptor.includePendingChanges {
            results.append(contentsOf: inserted.compactMap { $0 as? T })
        }
        guard let predicate = descriptor.predicate else { return results }
        return try results.filter { try predicate.evaluate($0) }
    }

    /// Sorts by the descriptors in order; ties keep their previous order (stable).
    func stableSorted<T>(_ items: [T], by descriptors: [SortDescriptor<T>]) throws -> [T] {
        let indexed = Array(items.enumerated())
        return indexed.sorted { a, b in
            for descriptor in descriptors {
                switch descriptor.compare(a.element, b.element) {
                case .orderedAscending: return true
                case .orderedDescending: return false
                case .orderedSame: continue
                }
            }
            return a.offset < b.offset
        }.map(\.element)
    }
}

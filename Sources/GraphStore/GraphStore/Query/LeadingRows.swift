import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreGraph

/// The rows that can be among the first `count` results of a sorted fetch (its offset plus its
/// limit), found from the committed values of its first sort key when that is a stored number
/// or date: the `count` rows that key puts first, and every row tied with the last of them.
/// The later sort keys read from stored values then narrow those ties (`narrowed`): with every
/// key stored, the rows are exactly the first `count`, in the fetch's order, and only they
/// become objects; otherwise sorting the handful's objects by every descriptor gives the first
/// `count` results. A fetch with a limit used to make and sort an object for every match (a
/// "top ten" of a million flights; or of the hundreds tied on the longest route).
///
/// Nil when the first key cannot tell: another kind of first key, a nil or inexact value among
/// the leading rows, or no fewer rows than all. For a context without unsaved changes only (its
/// objects then hold what the graph holds).
enum LeadingRows {
    /// The rows that can lead: in the fetch's order when `inOrder` (every sort key was read
    /// from the rows), else in row order, for their objects to be sorted.
    struct Found {
        var rows: [UInt64]
        var inOrder: Bool
    }

    /// How many results a fetch's page reaches: its offset plus its limit.
    static func count(offset: Int?, limit: Int) -> Int { max(0, offset ?? 0) + max(0, limit) }

    /// Of every live row: walked from the front (or the back, for a reverse sort) of the
    /// attribute's sorted index when it has one, else read from the column.
    static func ofAll<T>(by sortBy: [SortDescriptor<T>], count: Int, entity: Schema.Entity, in view: GraphView) -> Found? {
        guard count > 0, let (attribute, forward) = firstKey(sortBy, entity: entity) else { return nil }
        let table = view.table(entity.index)
        guard count < table.liveCount else { return nil }
        guard let index = table.sorted[attribute.index] else { return of(table.liveRows, by: sortBy, count: count, entity: entity, in: view) }
        let column = table.columns[attribute.index]
        func key(_ row: UInt32) -> Double? { numberKey(column.value(at: Int(row) - 1)) }
        // The index's order is the key's ascending order, ties by row: a reverse sort walks it
        // from the back.
        let total = index.count
        let taken = forward ? index.rows(at: 0..<count) : index.rows(at: (total - count)..<total)
        guard taken.allSatisfy({ key($0) != nil }), let boundary = key(forward ? taken[taken.count - 1] : taken[0]) else { return nil }
        var rows = taken.map(UInt64.init)
        var position = forward ? count : total - count - 1
        while position >= 0 && position < total {
            let row = index.row(at: position)
            guard key(row) == boundary else { break }
            rows.append(UInt64(row))
            position += forward ? 1 : -1
        }
        return narrowed(rows.sorted(), by: sortBy, count: count, entity: entity, in: view)
    }

    /// Of `rows` (a predicate's matches), in row order.
    static func of<T>(_ rows: [UInt64], by sortBy: [SortDescriptor<T>], count: Int, entity: Schema.Entity, in view: GraphView) -> Found? {
        guard count > 0, count < rows.count, let (attribute, forward) = firstKey(sortBy, entity: entity) else { return nil }
        let column = view.table(entity.index).columns[attribute.index]
        var keys: [Double] = []
        keys.reserveCapacity(rows.count)
        for row in rows {
            guard let key = numberKey(column.value(at: Int(row) - 1)) else { return nil }
            keys.append(forward ? key : -key)
        }
        // The count-th smallest key (in the sort's direction): every row up to it may lead.
        let boundary = keys.sorted()[count - 1]
        return narrowed(rows.indices.filter { keys[$0] <= boundary }.map { rows[$0] }, by: sortBy, count: count, entity: entity, in: view)
    }

    /// Of `rows` (in row order) that the first key lets lead, those that the sort keys read
    /// from stored values still let lead: with every key stored, the first `count` by the keys
    /// and then by row (the order a stable sort of their objects keeps), in that order; else
    /// every row that does not follow the count-th on the keys read before the first that is
    /// not stored (or holds a nil), in row order.
    static func narrowed<T>(_ rows: [UInt64], by sortBy: [SortDescriptor<T>], count: Int, entity: Schema.Entity, in view: GraphView) -> Found {
        let table = view.table(entity.index)
        var keys: [SortKeys] = []
        for descriptor in sortBy {
            guard let attribute = storedKey(descriptor, entity: entity),
                  let key = SortKeys(count: rows.count, order: descriptor.order, stringComparator: descriptor.stringComparator,
                                     stored: { table.columns[attribute.index].value(at: Int(rows[$0]) - 1) }) else { break }
            keys.append(key)
        }
        let everyKey = keys.count == sortBy.count
        guard !keys.isEmpty, count > 0, everyKey || rows.count > count else { return Found(rows: rows, inOrder: false) }
        // Each key's ranks, worked out once: a key compared in place is copied per comparison
        // (its string comparator's layout is not known here).
        let ranks = keys.map { $0.ranks() }
        func compare(_ i: Int, _ j: Int) -> ComparisonResult {
            for key in ranks.indices where ranks[key][i] != ranks[key][j] {
                return ranks[key][i] < ranks[key][j] ? .orderedAscending : .orderedDescending
            }
            return .orderedSame
        }
        let order = rows.indices.sorted { i, j in
            switch compare(i, j) {
            case .orderedAscending: true
            case .orderedDescending: false
            case .orderedSame: i < j
            }
        }
        if everyKey { return Found(rows: order.prefix(count).map { rows[$0] }, inOrder: true) }
        let last = order[count - 1]
        return Found(rows: rows.indices.filter { compare($0, last) != .orderedDescending }.map { rows[$0] }, inOrder: false)
    }

    /// The first sort descriptor's attribute and direction, when it reads a stored attribute.
    static func firstKey<T>(_ sortBy: [SortDescriptor<T>], entity: Schema.Entity) -> (Schema.Attribute, forward: Bool)? {
        guard let first = sortBy.first, let attribute = storedKey(first, entity: entity) else { return nil }
        return (attribute, first.order == .forward)
    }

    /// The attribute a sort descriptor reads, when its stored values order as the descriptor
    /// orders its values (`StoredOrder`): not an enum stored by its raw value, whose
    /// `Comparable` may order it otherwise.
    static func storedKey<T>(_ descriptor: SortDescriptor<T>, entity: Schema.Entity) -> Schema.Attribute? {
        guard let keyPath = descriptor.keyPath, StoredOrder.holds(for: type(of: keyPath).valueType),
              case let .attribute(attribute)? = entity.property(for: keyPath),
              !attribute.isEphemeral, !attribute.options.contains(.externalStorage) else { return nil }
        return attribute
    }

    /// A number or date as a Double that orders exactly as the value does; nil for anything
    /// else (nil, strings, which Foundation compares its own way).
    static func numberKey(_ value: Value) -> Double? {
        let key: Double
        switch value {
        case let .int(int): key = Double(int)
        case let .uint(uint): key = Double(uint)
        case let .double(double): key = double
        case let .date(date): key = date.timeIntervalSinceReferenceDate
        default: return nil
        }
        return SortKeys.isExact(key) ? key : nil
    }
}

import CSwiftRuntime
import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// One attribute's values for every row slot of an entity, stored by kind so that a million
/// doubles take 8 MB, not a million boxed values. Optional attributes keep a null flag per slot.
/// Values are kept in chunks (`ChunkedArray`), so that growing a column or writing to it while a
/// checkpoint holds its image copies a chunk, never the column. Like EntityTable's, the storage
/// skips run-time exclusivity checks: the graph's lock orders access.
package final class Column {
    package let type: AttributeType
    @exclusivity(unchecked) private var bools = ChunkedArray<Bool>()
    @exclusivity(unchecked) private var ints = ChunkedArray<Int64>()
    @exclusivity(unchecked) private var doubles = ChunkedArray<Double>()
    @exclusivity(unchecked) private var strings = ChunkedArray<String>()
    @exclusivity(unchecked) private var values = ChunkedArray<Value>()
    @exclusivity(unchecked) private var nulls = ChunkedArray<Bool>()
    /// How many slots are null. While none are (a non-optional attribute's usual state), reads
    /// skip the null flag: in a large column it is a cache miss per random row.
    @exclusivity(unchecked) package private(set) var nullCount = 0
    /// How values are held; the raw value is what checkpoints record.
    package let layout: ColumnLayout
    package let defaultValue: Value

    package init(type: AttributeType, defaultValue: Value) {
        self.type = type
        self.defaultValue = defaultValue
        layout = ColumnLayout(storing: type.kind)
    }

    package var count: Int { nulls.count }

    /// Adds slots up to `count`, holding the default value.
    package func grow(to newCount: Int) {
        let extra = newCount - count
        guard extra > 0 else { return }
        nulls.append(repeating: true, count: extra)
        nullCount += extra
        switch layout {
        case .bool: bools.append(repeating: false, count: extra)
        case .int, .uint: ints.append(repeating: 0, count: extra)
        case .double, .float, .date: doubles.append(repeating: 0, count: extra)
        case .string: strings.append(repeating: "", count: extra)
        case .value, .none: values.append(repeating: .null, count: extra)
        }
    }

    /// Whether `orderKey` orders this column's values: integer layouts.
    package var hasOrderKeys: Bool { layout == .int || layout == .uint }

    /// Slot `slot`'s value as an unsigned key in the order `Value.ordered` puts the column's
    /// values (nulls first, as 0; signed values with the sign bit flipped). Two keys that
    /// differ order their values; equal keys are equal values, except 0, which is also the
    /// null's. For integer layouts only (`hasOrderKeys`).
    package func orderKey(at slot: Int) -> UInt64 {
        isNull(slot) ? 0 : UInt64(bitPattern: ints[slot]) ^ orderKeyFlip
    }

    /// What `orderKey` flips in a value's bits: signed values are ordered as unsigned keys by
    /// flipping the sign bit.
    private var orderKeyFlip: UInt64 { layout == .int ? 1 << 63 : 0 }

    /// `orderKey` of a value of this column (a value the column held, such as the one a
    /// changed row was placed by); nil for a value of another kind.
    package func orderKey(of value: Value) -> UInt64? {
        switch (value, layout) {
        case (.null, _): return 0
        case let (.int(v), .int): return UInt64(bitPattern: v) ^ orderKeyFlip
        case let (.uint(v), .uint): return v ^ orderKeyFlip
        default: return nil
        }
    }

    /// `rows` in the order `SortedIndex.precedes` puts them (nulls first, then by value, ties
    /// by row), for an integer column: sorting (key, row) pairs instead of comparing `Value`s
    /// read through `value(at:)`, which dominated rebuilding the index after an upsert. Nil for
    /// other layouts.
    package func rowsInIntegerOrder(_ rows: [UInt32]) -> [UInt32]? {
        guard layout == .int || layout == .uint else { return nil }
        var nullRows: [UInt32] = [], keyedRows: [UInt32] = [], keys: [UInt64] = []
        keyedRows.reserveCapacity(rows.count)
        keys.reserveCapacity(rows.count)
        let flip = orderKeyFlip
        // Ties go by row: the radix sort keeps the rows' order, so they go in sorted (a
        // rebuild's live rows already are).
        let inOrder = zip(rows, rows.dropFirst()).allSatisfy { $0 < $1 }
        for row in inOrder ? rows : rows.sorted() {
            let slot = Int(row) - 1
            if isNull(slot) {
                nullRows.append(row)
            } else {
                keyedRows.append(row)
                keys.append(UInt64(bitPattern: ints[slot]) ^ flip)
            }
        }
        return nullRows + radixSorted(rows: keyedRows, keys: keys)
    }

    package func reserve(_ capacity: Int) {
        nulls.reserveCapacity(capacity)
        switch layout {
        case .bool: bools.reserveCapacity(capacity)
        case .int, .uint: ints.reserveCapacity(capacity)
        case .double, .float, .date: doubles.reserveCapacity(capacity)
        case .string: strings.reserveCapacity(capacity)
        case .value, .none: values.reserveCapacity(capacity)
        }
    }

    /// Reads each slot's null flag and fixed-size value (warming the cache for a predicate that
    /// reads them next); strings and boxed values are left alone.
    package func touch(rows: [UInt64]) -> UInt64 {
        var sum: UInt64 = 0
        for row in rows where row > 0 && Int(row) <= nulls.count { sum &+= nulls[Int(row - 1)] ? 1 : 0 }
        switch layout {
        case .int, .uint:
            for row in rows where row > 0 && Int(row) <= ints.count { sum &+= UInt64(bitPattern: ints[Int(row - 1)]) }
        case .double, .float, .date:
            for row in rows where row > 0 && Int(row) <= doubles.count { sum &+= doubles[Int(row - 1)].bitPattern }
        default:
            break
        }
        return sum
    }

    /// Whether the slot holds nil (`value(at:) == .null`), without making the value.
    package func holdsNull(at slot: Int) -> Bool {
        if isNull(slot) { return true }
        if layout == .value { return values[slot] == .null }
        return false
    }

    package func value(at slot: Int) -> Value {
        if isNull(slot) { return .null }
        switch layout {
        case .bool: return .bool(bools[slot])
        case .int: return .int(ints[slot])
        case .uint: return .uint(UInt64(bitPattern: ints[slot]))
        case .double: return .double(doubles[slot])
        case .float: return .float(Float(doubles[slot]))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: doubles[slot]))
        case .string: return .string(strings[slot])
        case .value, .none: return values[slot]
        }
    }

    /// Stores `value`; a value of another shape than the column's is stored as-is in a boxed
    /// column or, for typed columns, converted where lossless and otherwise kept as null.
    package func set(_ value: Value, at slot: Int) {
        if case .null = value {
            setNull(true, at: slot)
            switch layout {
            case .string: strings[slot] = ""
            case .value, .none: values[slot] = .null
            default: break
            }
            return
        }
        setNull(false, at: slot)
        switch (layout, value) {
        case let (.bool, .bool(v)): bools[slot] = v
        case let (.int, .int(v)): ints[slot] = v
        case let (.int, .uint(v)): ints[slot] = Int64(truncatingIfNeeded: v)
        case let (.uint, .uint(v)): ints[slot] = Int64(bitPattern: v)
        case let (.uint, .int(v)): ints[slot] = v
        case let (.double, .double(v)): doubles[slot] = v
        case let (.double, .float(v)): doubles[slot] = Double(v)
        case let (.float, .float(v)): doubles[slot] = Double(v)
        case let (.float, .double(v)): doubles[slot] = v
        case let (.date, .date(v)): doubles[slot] = v.timeIntervalSinceReferenceDate
        case let (.string, .string(v)): strings[slot] = v
        case (.value, _): values[slot] = value
        default: setNull(true, at: slot)
        }
    }

    /// Sets the slot of each of `rows` from a batch column (`sources[i]` is the batch row of
    /// `rows[i]`; an unset one takes `fallback`, or keeps its value when that is nil: an
    /// update), as `set(_:at:)` would with each row's value, but reading the batch's typed
    /// storage where it holds what this column holds: making a `Value` of each and matching it
    /// would be most of applying a batch's columns.
    package func set(from batch: BatchColumn, rows: [UInt64], sources: [Int], fallback: Value?) {
        @inline(__always) func each(_ body: (_ slot: Int, _ source: Int) -> Void) {
            for index in rows.indices {
                let slot = Int(rows[index] - 1), source = sources[index]
                switch batch.state(ofRow: source) {
                case BatchColumn.set:
                    setNull(false, at: slot)
                    body(slot, source)
                case BatchColumn.null: set(.null, at: slot)
                default: if let fallback { set(fallback, at: slot) }
                }
            }
        }
        switch (layout, batch.layout) {
        case (.int, .int), (.int, .uint), (.uint, .uint), (.uint, .int):
            each { slot, source in ints[slot] = Int64(bitPattern: batch.words[source]) }
        case (.double, .double), (.double, .float), (.float, .float), (.float, .double), (.date, .date):
            each { slot, source in doubles[slot] = Double(bitPattern: batch.words[source]) }
        case (.bool, .bool):
            each { slot, source in bools[slot] = batch.words[source] != 0 }
        case (.string, .string):
            each { slot, source in strings[slot] = batch.strings[source] }
        default:
            for index in rows.indices {
                if let value = batch[sources[index]] ?? fallback { set(value, at: Int(rows[index] - 1)) }
            }
        }
    }

    /// Sets a slot's null flag, keeping `nullCount`.
    /// Written only when it changes: a write copies the flag's chunk while a checkpoint holds it.
    private func setNull(_ isNull: Bool, at slot: Int) {
        guard nulls[slot] != isNull else { return }
        nullCount += isNull ? 1 : -1
        nulls[slot] = isNull
    }

    /// Frees a deleted row's heap storage.
    package func clear(_ slot: Int) { set(.null, at: slot) }

    // Typed fast paths for queries and sorting.
    package func double(at slot: Int) -> Double? {
        guard !isNull(slot) else { return nil }
        switch layout {
        case .double, .float, .date: return doubles[slot]
        case .int: return Double(ints[slot])
        default: return nil
        }
    }

    package func string(at slot: Int) -> String? {
        guard !isNull(slot), layout == .string else { return nil }
        return strings[slot]
    }

    /// Whether the slot is null (its flag is read only while some slot is).
    package func isNull(_ slot: Int) -> Bool { nullCount > 0 && nulls[slot] }

    /// Starts loading `slot`'s value (and its null flag, while any are set) into the cache, for a
    /// read expected soon (AttributeReadAhead).
    package func prefetch(_ slot: Int) {
        guard slot >= 0, slot < nulls.count else { return }
        if nullCount > 0 { Self.prefetch(nulls.address(of: slot)) }
        switch layout {
        case .bool: Self.prefetch(bools.address(of: slot))
        case .int, .uint: Self.prefetch(ints.address(of: slot))
        case .double, .float, .date: Self.prefetch(doubles.address(of: slot))
        case .string: Self.prefetch(strings.address(of: slot))
        case .value, .none: Self.prefetch(values.address(of: slot))
        }
    }

    @inline(__always)
    private static func prefetch<T>(_ address: UnsafeMutablePointer<T>?) {
        if let address { graphstore_prefetch(address) }
    }

    // MARK: Images (checkpoints)

    /// The column's values at one moment. Capturing is O(1): the chunks are copy-on-write, so a
    /// later write to the live column copies the chunk it writes to, and the image stays as it
    /// was.
    package struct Image {
        package var layout: ColumnLayout
        package var nulls: ChunkedArray<Bool>
        package var bools = ChunkedArray<Bool>()
        package var ints = ChunkedArray<Int64>()
        package var doubles = ChunkedArray<Double>()
        package var strings = ChunkedArray<String>()
        package var values = ChunkedArray<Value>()
    }

    package func image() -> Image {
        Image(layout: layout, nulls: nulls, bools: bools, ints: ints, doubles: doubles, strings: strings, values: values)
    }

    /// Replaces the contents with an image's. An image of another layout (a migrated type) is
    /// converted value by value.
    package func restore(_ image: Image) {
        guard image.layout == layout else {
            let source = Column(layout: image.layout, defaultValue: .null)
            source.restore(image)
            grow(to: source.count)
            for slot in 0..<source.count { set(source.value(at: slot), at: slot) }
            return
        }
        nulls = image.nulls
        nullCount = nulls.count(of: true)
        bools = image.bools
        ints = image.ints
        doubles = image.doubles
        strings = image.strings
        values = image.values
    }

    private init(layout: ColumnLayout, defaultValue: Value) {
        self.layout = layout
        self.defaultValue = defaultValue
        type = AttributeType(kind: .bool, isOptional: true)
    }
}

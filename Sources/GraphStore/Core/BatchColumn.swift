import Foundation

/// One attribute's values in a batch, by batch row, in typed storage: numbers, dates and bools
/// as 8-byte words, strings as strings, anything else as `Value`s, and a state byte per row
/// (unset, set, null). As optional `Value`s (24 bytes a slot) a batch's columns were most of
/// the fresh memory an import touched, and freeing them looked at every slot; a flight's dates
/// and numbers take 9 bytes here. A column holds one kind of value (an attribute's values are
/// all of its stored type, or null); a value of another kind turns it into a column of `Value`s.
@usableFromInline package struct BatchColumn: Sendable {
    @usableFromInline package static let unset: UInt8 = 0, set: UInt8 = 1, null: UInt8 = 2

    @usableFromInline package var layout = ColumnLayout.none
    /// A state per row up to the last row set.
    @usableFromInline package var states: [UInt8] = []
    /// Bool, int, uint, double, float (widened) and date (seconds since 2001) values' bits.
    @usableFromInline package var words: [UInt64] = []
    @usableFromInline package var strings: [String] = []
    @usableFromInline package var values: [Value] = []
    /// Rows the batch expects (room is made for them when the storage is chosen).
    private var expectedRows = 0

    @usableFromInline package init() {}

    /// Rows up to the last one set.
    @inlinable package var count: Int { states.count }
    @inlinable package var isEmpty: Bool { states.isEmpty }

    /// No rows; the storage (and its kind, for values of the same attribute) kept for rows
    /// set later.
    package mutating func removeAll() {
        states.removeAll(keepingCapacity: true)
        words.removeAll(keepingCapacity: true)
        strings.removeAll(keepingCapacity: true)
        values.removeAll(keepingCapacity: true)
        expectedRows = 0
    }

    package mutating func reserveCapacity(_ rows: Int) {
        expectedRows = rows
        states.reserveCapacity(rows)
        switch layout {
        case .none: break
        case .string: strings.reserveCapacity(rows)
        case .value: values.reserveCapacity(rows)
        default: words.reserveCapacity(rows)
        }
    }

    /// Sets `row` (nearly always the next one: rows are filled in order).
    @inlinable @inline(__always) package mutating func set(_ value: Value, row: Int) {
        if row == states.count {
            switch (layout, value) {
            case let (.int, .int(v)): words.append(UInt64(bitPattern: v))
            case let (.date, .date(d)): words.append(d.timeIntervalSinceReferenceDate.bitPattern)
            case let (.string, .string(s)): strings.append(s)
            case let (.double, .double(v)): words.append(v.bitPattern)
            // A null after the storage is chosen (an optional date not yet known): a placeholder.
            // Through `setSlowly` it was compared with `.null` twice and cost three times a value.
            case (.bool, .null), (.int, .null), (.uint, .null), (.double, .null), (.float, .null), (.date, .null):
                words.append(0)
                states.append(Self.null)
                return
            case (.string, .null):
                strings.append("")
                states.append(Self.null)
                return
            default: return setSlowly(value, row: row)
            }
            states.append(Self.set)
            return
        }
        setSlowly(value, row: row)
    }

    /// Sets `row` to `value`, or unsets it (nil).
    @usableFromInline package mutating func setSlowly(_ value: Value?, row: Int) {
        // Matched, not compared with `==`: the synthesized equality costs a call per test.
        let isNull: Bool
        if case .null? = value { isNull = true } else { isNull = false }
        if let value, !isNull {
            if layout == .none { start(with: value) }
            if !holds(value) { widenToValues() }
        }
        while states.count <= row { appendPlaceholder() }
        guard let value else { return states[row] = Self.unset }
        if isNull { return states[row] = Self.null }
        states[row] = Self.set
        switch (layout, value) {
        case let (.bool, .bool(v)): words[row] = v ? 1 : 0
        case let (.int, .int(v)): words[row] = UInt64(bitPattern: v)
        case let (.uint, .uint(v)): words[row] = v
        case let (.double, .double(v)): words[row] = v.bitPattern
        case let (.float, .float(v)): words[row] = Double(v).bitPattern
        case let (.date, .date(d)): words[row] = d.timeIntervalSinceReferenceDate.bitPattern
        case let (.string, .string(s)): strings[row] = s
        default: values[row] = value
        }
    }

    /// `row`'s value; nil when the row left it unset.
    @usableFromInline package subscript(row: Int) -> Value? {
        guard row < states.count else { return nil }
        switch states[row] {
        case Self.unset: return nil
        case Self.null: return .null
        default: return value(at: row)
        }
    }

    /// `row`'s state: `unset`, `set` or `null` (rows past the last one set are unset).
    @inlinable package func state(ofRow row: Int) -> UInt8 {
        row < states.count ? states[row] : Self.unset
    }

    /// Writes a set row's value of `columns[column]` as `ByteWriter.value` writes it (the same
    /// bytes), straight from its typed storage: making a `Value` of each was most of a batch
    /// record's encoding. Static, and reading what it writes out first: a method called on the
    /// column had it copied (its four arrays retained and released) for every value, since the
    /// writer writes through a pointer that might point anywhere.
    @inline(__always) package static func encodeValue(of columns: [BatchColumn], column: Int, row: Int, into writer: inout ByteWriter) {
        let layout = columns[column].layout
        switch layout {
        case .string:
            let string = columns[column].strings[row]
            writer.u8(ValueTag.string.rawValue)
            writer.string(string)
        case .value:
            let value = columns[column].values[row]
            writer.value(value)
        case .none:
            writer.u8(ValueTag.null.rawValue)
        default:
            encode(word: columns[column].words[row], of: layout, into: &writer)
        }
    }

    /// A word-stored value (bool, int, uint, double, float, date) as `ByteWriter.value` writes it.
    @inline(__always) package static func encode(word: UInt64, of layout: ColumnLayout, into writer: inout ByteWriter) {
        switch layout {
        case .bool: writer.u8(word != 0 ? ValueTag.true.rawValue : ValueTag.false.rawValue)
        case .int:
            writer.u8(ValueTag.int.rawValue)
            writer.zigzag(Int64(bitPattern: word))
        case .uint:
            writer.u8(ValueTag.uint.rawValue)
            writer.varint(word)
        case .double:
            writer.u8(ValueTag.double.rawValue)
            writer.u64(word)
        case .float:
            writer.u8(ValueTag.float.rawValue)
            writer.u32(Float(Double(bitPattern: word)).bitPattern)
        case .date:
            writer.u8(ValueTag.date.rawValue)
            writer.u64(word)
        case .none, .string, .value:
            preconditionFailure("not a word-stored layout")
        }
    }

    private func value(at row: Int) -> Value {
        switch layout {
        case .none: return .null
        case .bool: return .bool(words[row] != 0)
        case .int: return .int(Int64(bitPattern: words[row]))
        case .uint: return .uint(words[row])
        case .double: return .double(Double(bitPattern: words[row]))
        case .float: return .float(Float(Double(bitPattern: words[row])))
        case .date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: words[row])))
        case .string: return .string(strings[row])
        case .value: return values[row]
        }
    }

    private func holds(_ value: Value) -> Bool { layout == .value || ColumnLayout(holding: value) == layout }

    /// The first value decides the storage (rows before it are unset or null).
    private mutating func start(with value: Value) {
        layout = ColumnLayout(holding: value)
        let placeholders = states.count
        reserveCapacity(max(expectedRows, placeholders + 1))
        switch layout {
        case .string: strings.append(repeating: "", count: placeholders)
        case .value: values.append(repeating: .null, count: placeholders)
        default: words.append(repeating: 0, count: placeholders)
        }
    }

    /// A value of another kind: every row is kept as a `Value` from now on.
    private mutating func widenToValues() {
        let existing = (0..<states.count).map { states[$0] == Self.set ? value(at: $0) : .null }
        layout = .value
        words = []
        strings = []
        values = existing
    }

    private mutating func appendPlaceholder() {
        states.append(Self.unset)
        switch layout {
        case .none: break
        case .string: strings.append("")
        case .value: values.append(.null)
        default: words.append(0)
        }
    }
}

/// A batch's attribute columns, by attribute position (see `BatchColumn`).
@usableFromInline package struct BatchColumns {
    @usableFromInline package var columns: [BatchColumn]
    /// Rows to make room for when a column is first set (`BatchInsert.reserveCapacity`).
    @usableFromInline package var reservedRows = 0

    package init(columns: Int) {
        self.columns = Array(repeating: BatchColumn(), count: columns)
    }

    @inlinable @inline(__always) package mutating func set(_ value: Value, row: Int, column: Int) {
        if columns[column].count == 0 && reservedRows > 0 { reserve(column) }
        columns[column].set(value, row: row)
    }

    @usableFromInline package mutating func reserve(_ column: Int) {
        columns[column].reserveCapacity(reservedRows)
    }

    /// The columns some row sets, in order.
    package var setColumns: [Int] { columns.indices.filter { !columns[$0].isEmpty } }

    package subscript(row: Int, column: Int) -> Value? {
        get { columns[column][row] }
        set { columns[column].setSlowly(newValue, row: row) }
    }
}

/// A batch's link targets, column by column (attribute values have typed columns of their
/// own, `BatchColumn`): a column is made when a row first sets it, and holds a slot per row up
/// to the last row that set it (nil: unset). A batch setting one relationship of every row
/// keeps one column, not a slot for every relationship of every row, and starting a row writes
/// nothing.
@usableFromInline struct BatchSlots<Element> {
    @usableFromInline var columns: [[Element?]]
    /// Rows to make room for when a column is made (`BatchInsert.reserveCapacity`).
    @usableFromInline var reservedRows = 0

    init(columns: Int) {
        self.columns = Array(repeating: [], count: columns)
    }

    /// Sets `row`'s slot (rows are set in order, so this is nearly always an append; the first
    /// set of a column reserves its room).
    @inlinable mutating func set(_ element: Element, row: Int, column: Int) {
        if columns[column].count == row && row > 0 {
            columns[column].append(element)
        } else {
            setOutOfOrder(element, row: row, column: column)
        }
    }

    @usableFromInline mutating func setOutOfOrder(_ element: Element?, row: Int, column: Int) {
        if columns[column].isEmpty { columns[column].reserveCapacity(max(reservedRows, row + 1)) }
        while columns[column].count <= row { columns[column].append(nil) }
        columns[column][row] = element
    }

    /// The columns some row sets, in order.
    var setColumns: [Int] { columns.indices.filter { !columns[$0].isEmpty } }

    subscript(row: Int, column: Int) -> Element? {
        get { row < columns[column].count ? columns[column][row] : nil }
        set { setOutOfOrder(newValue, row: row, column: column) }
    }
}

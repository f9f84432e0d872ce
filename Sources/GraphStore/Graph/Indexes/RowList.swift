/// A key's rows in an index that lists them (compound, secondary), kept in ascending order:
/// adding or taking out one row is then a binary search, where it was a scan of every row the
/// key has, and a key may have a great many (a million flights to a few hundred airports).
/// A new row, the highest yet, is appended.
extension Array where Element == UInt32 {
    /// Puts `row` in its place; false when it is there already.
    @discardableResult
    mutating func insertInOrder(_ row: UInt32) -> Bool {
        if let last, last < row {
            append(row)
            return true
        }
        let position = firstPosition(notBelow: row)
        if position < count && self[position] == row { return false }
        insert(row, at: position)
        return true
    }

    /// Takes `row` out; false when it is not there.
    @discardableResult
    mutating func removeInOrder(_ row: UInt32) -> Bool {
        let position = firstPosition(notBelow: row)
        guard position < count && self[position] == row else { return false }
        remove(at: position)
        return true
    }

    private func firstPosition(notBelow row: UInt32) -> Int {
        var low = 0, high = count
        while low < high {
            let mid = (low + high) / 2
            if self[mid] < row { low = mid + 1 } else { high = mid }
        }
        return low
    }
}

/// A plain text table: columns padded to their widest cell, numbers right-aligned.
public struct Table {
    public var headers: [String]
    public var rows: [[String]]
    /// Columns to right-align (numbers).
    public var rightAligned: Set<Int>

    public init(headers: [String], rows: [[String]], rightAligned: Set<Int> = []) {
        self.headers = headers
        self.rows = rows
        self.rightAligned = rightAligned
    }

    public var rendered: String {
        var widths = headers.map(\.count)
        for row in rows {
            for (i, cell) in row.enumerated() where i < widths.count { widths[i] = max(widths[i], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { i, cell in
                let pad = String(repeating: " ", count: max(0, widths[i] - cell.count))
                return rightAligned.contains(i) ? pad + cell : cell + pad
            }.joined(separator: "  ").trimmingTrailingSpaces()
        }
        var lines = [line(headers), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines += rows.map(line)
        return lines.joined(separator: "\n")
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var s = self
        while s.hasSuffix(" ") { s.removeLast() }
        return s
    }
}

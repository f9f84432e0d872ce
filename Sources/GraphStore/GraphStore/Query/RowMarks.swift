/// A context's scratch space for intersecting two lists of rows without hashing: the smaller
/// list marks its rows with this query's generation, the larger keeps the marked ones. The
/// array (4 bytes per row of the largest entity intersected) is made once and never cleared:
/// a new generation forgets the old marks. Used only on the context's own thread.
final class RowMarks {
    private var marks: [UInt32] = []
    private var generation: UInt32 = 0

    /// The rows of `large` that are also in `small`, in `large`'s order. Rows are at most
    /// `slots`. For row numbers as the planner widens them and as the graph keeps them alike.
    func intersect<Small: Sequence, Large: Sequence>(_ small: Small, _ large: Large, slots: Int) -> [Large.Element]
        where Small.Element: BinaryInteger, Large.Element == Small.Element {
        let current = nextGeneration(slots: slots)
        return marks.withUnsafeMutableBufferPointer { marks in
            for row in small where Int(row) <= slots { marks[Int(row)] = current }
            return large.filter { Int($0) <= slots && marks[Int($0)] == current }
        }
    }

    /// A generation no mark has yet, with room for rows up to `slots`.
    private func nextGeneration(slots: Int) -> UInt32 {
        if marks.count <= slots {
            marks = Array(repeating: 0, count: slots + 1)
            generation = 0
        }
        generation &+= 1
        if generation == 0 {
            // After 4 billion intersections: forget every mark for real.
            marks = Array(repeating: 0, count: marks.count)
            generation = 1
        }
        return generation
    }

}

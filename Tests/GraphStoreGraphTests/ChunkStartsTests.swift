import Testing
@testable import GraphStoreGraph
import GraphStoreTestSupport

/// The Fenwick tree of chunk starts against the running sums of an array of counts: every
/// start and every position located, through counts changed one row at a time, for numbers of
/// chunks on both sides of powers of two.
@Suite struct ChunkStartsTests {
    @Test(arguments: [1, 2, 3, 7, 8, 9, 64, 100])
    func matchesRunningSums(chunks: Int) {
        var random = SplitMix64(seed: UInt64(chunks))
        var counts = (0..<chunks).map { _ in 1 + Int(random.next() % 9) }
        var starts = ChunkStarts(counts: counts)
        for step in 0..<400 {
            let chunk = Int(random.next() % UInt64(chunks))
            // Chunks are never empty: the sorted order drops a chunk it empties.
            let delta = counts[chunk] > 1 && random.next() % 2 == 0 ? -1 : 1
            counts[chunk] += delta
            starts.add(delta, toChunk: chunk)
            guard step % 20 == 0 else { continue }
            var sum = 0
            for (index, count) in counts.enumerated() {
                #expect(starts.start(ofChunk: index) == sum)
                for offset in 0..<count {
                    let located = starts.locate(sum + offset, lastChunkCount: counts[chunks - 1])
                    #expect(located.chunk == index && located.offset == offset, "position \(sum + offset)")
                }
                sum += count
            }
            let end = starts.locate(sum, lastChunkCount: counts[chunks - 1])
            #expect(end.chunk == chunks - 1 && end.offset == counts[chunks - 1])
        }
    }
}

/// Sorts `rows` by their `keys` (unsigned, smallest first); rows with equal keys keep their
/// order in the input. An LSD radix sort, 11 bits a pass, and a pass is skipped when every
/// key has the same digit there (small integers take two passes, not six). Rebuilding a
/// sorted index after an upsert sorted every (key, row) pair through a comparison closure.
package func radixSorted(rows: [UInt32], keys: [UInt64]) -> [UInt32] {
    precondition(rows.count == keys.count, "a key for every row")
    let count = rows.count
    guard count > 1 else { return rows }
    let digitBits = 11, buckets = 1 << digitBits, passes = (64 + digitBits - 1) / digitBits
    // Every pass's digit counts in one read of the keys.
    var counts = [Int](repeating: 0, count: buckets * passes)
    keys.withUnsafeBufferPointer { keys in
        counts.withUnsafeMutableBufferPointer { counts in
            for key in keys {
                for pass in 0..<passes {
                    counts[pass * buckets + Int((key >> UInt64(pass * digitBits)) & UInt64(buckets - 1))] += 1
                }
            }
        }
    }
    var sourceRows = rows, sourceKeys = keys
    var targetRows = [UInt32](repeating: 0, count: count), targetKeys = [UInt64](repeating: 0, count: count)
    var offsets = [Int](repeating: 0, count: buckets)
    for pass in 0..<passes {
        let base = pass * buckets
        // Every key has the same digit here: this pass would keep the order.
        if counts[base + Int((keys[0] >> UInt64(pass * digitBits)) & UInt64(buckets - 1))] == count { continue }
        var sum = 0
        for bucket in 0..<buckets {
            offsets[bucket] = sum
            sum += counts[base + bucket]
        }
        let shift = UInt64(pass * digitBits)
        sourceKeys.withUnsafeBufferPointer { sourceKeys in
            sourceRows.withUnsafeBufferPointer { sourceRows in
                targetKeys.withUnsafeMutableBufferPointer { targetKeys in
                    targetRows.withUnsafeMutableBufferPointer { targetRows in
                        offsets.withUnsafeMutableBufferPointer { offsets in
                            for i in 0..<count {
                                let key = sourceKeys[i]
                                let bucket = Int((key >> shift) & UInt64(buckets - 1))
                                let place = offsets[bucket]
                                offsets[bucket] = place + 1
                                targetKeys[place] = key
                                targetRows[place] = sourceRows[i]
                            }
                        }
                    }
                }
            }
        }
        swap(&sourceRows, &targetRows)
        swap(&sourceKeys, &targetKeys)
    }
    return sourceRows
}

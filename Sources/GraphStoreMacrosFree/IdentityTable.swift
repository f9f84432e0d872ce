import CSwiftRuntime
import Foundation

/// An insert-only map from an object's identity to a word, read without a lock.
///
/// Every new object asks for its class's facts (ClassMetadata, by class identity): under a lock
/// with a dictionary that cost a lock, a hash and a probe each time. Here a reader probes a fixed array, loading each key with acquire ordering;
/// a writer (under the lock) stores the value, then publishes the key with release ordering.
/// Entries are never removed or moved, and each key object is kept alive, so its address is
/// never reused for another key. When the table is half full it refuses inserts, and callers
/// fall back to their locked dictionary.
final class IdentityTable: @unchecked Sendable {
    private let mask: Int
    /// Key, value, key, value…; a key of 0 is an empty entry.
    private let words: UnsafeMutablePointer<UInt>
    private let lock = NSLock()
    private var count = 0
    private var owners: [AnyObject] = []

    init(capacity: Int) {
        var size = 8
        while size < 2 * capacity { size *= 2 }
        mask = size - 1
        words = .allocate(capacity: 2 * size)
        words.initialize(repeating: 0, count: 2 * size)
    }

    deinit { words.deallocate() }

    /// The word stored for `key`, if any.
    @inline(__always)
    func value(for key: ObjectIdentifier) -> UInt? {
        let address = UInt(bitPattern: key)
        var index = Self.hash(address) & mask
        while true {
            let stored = graphstore_load_acquire(words + 2 * index)
            if stored == address { return words[2 * index + 1] }
            if stored == 0 { return nil }
            index = (index + 1) & mask
        }
    }

    /// Stores `value` for `key` unless the table is half full (or `key` is already there);
    /// returns whether `key` now has an entry. `owner` is the object `key` identifies, kept
    /// alive here (nil for one that lives forever, such as a class).
    @discardableResult
    func insert(_ value: UInt, for key: ObjectIdentifier, keeping owner: AnyObject?) -> Bool {
        lock.lock()
        defer { lock.unlock() }
        let address = UInt(bitPattern: key)
        var index = Self.hash(address) & mask
        while words[2 * index] != 0 {
            if words[2 * index] == address { return true }
            index = (index + 1) & mask
        }
        guard 2 * (count + 1) <= mask + 1 else { return false }
        if let owner { owners.append(owner) }
        count += 1
        words[2 * index + 1] = value
        graphstore_store_release(words + 2 * index, address)
        return true
    }

    @inline(__always)
    private static func hash(_ address: UInt) -> Int {
        Int(truncatingIfNeeded: (address >> 4) &* 0x9E37_79B9_7F4A_7C15 >> 32)
    }
}

import Foundation

/// The text a JSON writer appends to: bytes in memory it owns, appended to with a bounds check
/// and a copy, nothing more.
///
/// Writing into a `[UInt8]` cost about a hundred instructions an append (`append(contentsOf:)`
/// is generic, and a `String.UTF8View` or a slice of raw bytes is copied a byte at a time), and
/// a flight is some eighty appends. The writer that makes a `JSONText` frees it (`deallocate`);
/// it is passed `inout` and never copied.
struct JSONText {
    private var base: UnsafeMutablePointer<UInt8>
    private var capacity: Int
    /// Bytes written.
    private(set) var count = 0

    init(capacity: Int) {
        self.capacity = Swift.max(capacity, 64)
        base = .allocate(capacity: self.capacity)
    }

    func deallocate() { base.deallocate() }

    /// A copy of the bytes written.
    var data: Data { Data(bytes: base, count: count) }

    /// Forgets the bytes written, keeping the memory.
    mutating func removeAll() { count = 0 }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(toHold: count + extra) }
    }

    private mutating func grow(toHold needed: Int) {
        var newCapacity = capacity
        while newCapacity < needed { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.initialize(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    @inline(__always)
    mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard let source = bytes.baseAddress else { return }
        reserve(bytes.count)
        (base + count).initialize(from: source, count: bytes.count)
        count += bytes.count
    }

    /// Appends the bytes of a literal.
    @inline(__always)
    mutating func append(literal: StaticString) {
        literal.withUTF8Buffer { append($0) }
    }

    /// A newline and the indentation of `depth` (two spaces a level), as pretty-printing writes
    /// before each entry and each closing bracket.
    mutating func appendNewline(depth: Int) {
        reserve(1 + 2 * depth)
        count = Self.putNewline(at: base + count, depth: depth) - base
    }

    /// Writes a newline and the indentation of `depth` at `at`, where room was made; returns
    /// where they end.
    @inline(__always)
    private static func putNewline(at: UnsafeMutablePointer<UInt8>, depth: Int) -> UnsafeMutablePointer<UInt8> {
        at.pointee = 0x0A
        (at + 1).initialize(repeating: UInt8(ascii: " "), count: 2 * depth)
        return at + 1 + 2 * depth
    }

    /// What comes before an object's value: `,` after the entry before, a newline, the
    /// indentation of `depth`, `"name" : ` (a name that needs no escape), with room made once.
    mutating func appendKey(_ name: UnsafeBufferPointer<UInt8>, afterEntry: Bool, depth: Int) {
        reserve(1 + 1 + 2 * depth + name.count + 4)
        var at = base + count
        if afterEntry {
            at.pointee = UInt8(ascii: ",")
            at += 1
        }
        at = Self.putNewline(at: at, depth: depth)
        at.pointee = UInt8(ascii: "\"")
        if let start = name.baseAddress { (at + 1).initialize(from: start, count: name.count) }
        at += 1 + name.count
        at[0] = UInt8(ascii: "\""); at[1] = UInt8(ascii: " "); at[2] = UInt8(ascii: ":"); at[3] = UInt8(ascii: " ")
        count = at + 4 - base
    }

    /// Lets `fill` write at most `maximum` bytes in place; it returns how many it wrote.
    @inline(__always)
    mutating func append(atMost maximum: Int, _ fill: (UnsafeMutablePointer<UInt8>) -> Int) {
        reserve(maximum)
        count += fill(base + count)
    }
}

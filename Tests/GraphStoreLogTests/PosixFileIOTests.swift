import Foundation
import GraphStoreLog
import Testing

/// The POSIX file system seam against the real kernel.
@Suite struct PosixFileIOTests {
    /// Directory entries are packed by their own lengths, so the last one in readdir's buffer can
    /// be shorter than `dirent`; listing must read each name in place (copying the whole struct
    /// once read past the buffer and crashed a child under CI). Every count and name length.
    @Test func listingReturnsEveryNameWhateverItsLength() throws {
        let dir = TemporaryDirectory()
        let io = PosixFileIO()
        try io.createDirectory(dir.path)
        var expected: Set<String> = []
        for length in 1...255 {
            let name = String(repeating: Character(UnicodeScalar(UInt8(97 + length % 26))), count: length)
            let handle = try io.open(dir.path + "/" + name, mode: .create)
            handle.close()
            expected.insert(name)
            #expect(Set(try io.listDirectory(dir.path)) == expected, "after \(length) files")
        }
    }

    /// A large read is made in pieces side by side: whatever the offset and wherever the end of
    /// the file falls (in the first piece, in a later one, past the last), it returns exactly
    /// the file's bytes from the offset to the end or to the count.
    @Test func aLargeReadInPiecesReturnsExactlyTheFilesBytes() throws {
        let dir = TemporaryDirectory()
        let io = PosixFileIO()
        try io.createDirectory(dir.path)
        let piece = PosixFileHandle.sideBySideReadBytes
        let size = 2 * piece + 12_345
        let bytes = (0..<size).map { UInt8(truncatingIfNeeded: ($0 &* 2_654_435_761) >> 11) }
        let path = dir.path + "/large"
        let handle = try io.open(path, mode: .create)
        defer { handle.close() }
        try bytes.withUnsafeBytes { try handle.writeAll($0, at: 0) }
        #expect(try handle.readAll() == bytes)
        #expect(try handle.read(at: 1_000, count: size - 1_000) == Array(bytes[1_000...]))
        #expect(try handle.read(at: 7, count: piece + 3) == Array(bytes[7..<(piece + 10)]))
        // The end of the file in the last piece, in the first, and before the offset.
        #expect(try handle.read(at: 0, count: size + piece) == bytes)
        #expect(try handle.read(at: UInt64(size - 100), count: 4 * piece) == Array(bytes[(size - 100)...]))
        #expect(try handle.read(at: UInt64(size + 1), count: 2 * piece) == [])
    }

    @Test func listingAMissingDirectoryIsATypedError() {
        #expect(throws: StorageError.self) { try PosixFileIO().listDirectory("/nonexistent-\(UUID().uuidString)") }
    }
}

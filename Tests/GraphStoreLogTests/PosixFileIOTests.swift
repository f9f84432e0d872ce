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

    @Test func listingAMissingDirectoryIsATypedError() {
        #expect(throws: StorageError.self) { try PosixFileIO().listDirectory("/nonexistent-\(UUID().uuidString)") }
    }
}

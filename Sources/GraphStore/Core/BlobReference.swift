import Foundation

/// Where an external-storage value's bytes are: the blob file's name, and the length and
/// checksum the log records, so a missing, short or altered file is caught when it is read.
public struct BlobReference: Hashable, Sendable {
    /// The blob file's name: `<id>.blob` in the store's `blobs/` directory.
    public var id: UUID
    /// The number of bytes in the file after its header.
    public var length: UInt64
    /// Masked CRC-32C of the bytes.
    public var checksum: UInt32

    package init(id: UUID, length: UInt64, checksum: UInt32) {
        self.id = id
        self.length = length
        self.checksum = checksum
    }
}

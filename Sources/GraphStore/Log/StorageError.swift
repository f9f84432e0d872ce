/// Every way the storage layer can fail, each naming what and where.
///
/// Storage never traps on bad input: a damaged file, a failed system call or a misuse all
/// surface as one of these cases.
public enum StorageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// The log is damaged before its last good commit (or the damage cannot be told from that).
    case corruption(segment: UInt64, offset: UInt64, reason: String)
    /// A file in the store directory is not what the store expects (bad header, unknown version).
    case badSegmentHeader(path: String, reason: String)
    /// The segment was written by a newer format than this build reads.
    case unsupportedFormatVersion(path: String, found: UInt16, supported: UInt16)
    /// Another process holds the writer lock.
    case locked(path: String, holderPID: Int32?)
    /// A write or sync failed earlier; the writer refuses every commit until the store is reopened.
    case writerPoisoned(cause: String)
    /// The disk is full (ENOSPC) while writing `path`.
    case diskFull(path: String)
    /// A system call failed.
    case io(operation: String, path: String, errno: Int32)
    /// The store was opened read-only and a write was attempted.
    case readOnly
    /// The store is closed.
    case closed
    /// There is no store at this path (read-only opens never create one).
    case noStore(path: String)
    /// A transaction could not be encoded (for example it exceeds the record size limit).
    case transactionTooLarge(bytes: Int, limit: Int)
    /// A simulated crash from the fault-injecting FileIO: the process "died" here.
    case simulatedCrash
    /// The log no longer reaches back to the start (compaction dropped its beginning) and no
    /// checkpoint that it continues from could be read. Each problem names a checkpoint and why.
    case checkpointUnavailable(logStartsAfter: UInt64, problems: [String])
    /// History before `oldestAvailable` was compacted away (a history read or a time-travel open asked for it).
    case historyCompacted(requested: UInt64, oldestAvailable: UInt64)
    /// A transaction that is sound as a record cannot be applied: it names what no store holds
    /// (a row number 0 or beyond the limits, data before any schema record).
    case damagedTransaction(number: UInt64, reason: String)
    /// A store file is a symbolic link, a FIFO, a device or a directory: refused, never followed or read.
    case notRegularFile(path: String, kind: String)
    /// The store directory belongs to another user (uid `owner`): a store is opened only by its owner.
    case notOwned(path: String, owner: UInt32)

    /// A file the operation expected was not there (ENOENT): what a reader sees when a writer
    /// removed a file it had listed.
    package var isMissingFile: Bool {
        if case let .io(_, _, code) = self { return code == 2 }
        if case let .corruption(_, _, reason) = self { return reason.contains("is missing") }
        return false
    }

    /// What failed and where, in a sentence.
    public var description: String {
        switch self {
        case let .corruption(segment, offset, reason):
            return "log corrupt in segment \(segment) at offset \(offset): \(reason)"
        case let .badSegmentHeader(path, reason):
            return "bad segment header in \(path): \(reason)"
        case let .unsupportedFormatVersion(path, found, supported):
            return "\(path) has format version \(found); this build reads up to \(supported)"
        case let .locked(path, pid):
            let holder = pid.map { "process \($0)" } ?? "another process"
            return "store is locked for writing by \(holder) (lock file \(path))"
        case let .writerPoisoned(cause):
            return "writer refuses commits after an earlier I/O failure (\(cause)); reopen the store"
        case let .diskFull(path):
            return "disk full while writing \(path)"
        case let .io(operation, path, code):
            return "\(operation) failed on \(path): \(errnoDescription(code)) (errno \(code))"
        case .readOnly:
            return "the store is open read-only"
        case .closed:
            return "the store is closed"
        case let .noStore(path):
            return "no store at \(path)"
        case let .transactionTooLarge(bytes, limit):
            return "transaction of \(bytes) bytes exceeds the record limit of \(limit) bytes"
        case .simulatedCrash:
            return "simulated crash (fault injection)"
        case let .checkpointUnavailable(start, problems):
            return "the log starts after transaction \(start) and no usable checkpoint covers it"
                + (problems.isEmpty ? " (there is none)" : ":\n" + problems.map { "  - \($0)" }.joined(separator: "\n"))
        case let .historyCompacted(requested, oldest):
            return "history after transaction \(requested) is no longer kept; the oldest available starts after transaction \(oldest)"
        case let .damagedTransaction(number, reason):
            return "transaction \(number) cannot be applied: \(reason)"
        case let .notRegularFile(path, kind):
            return "\(path) is \(kind), not a regular file: refused"
        case let .notOwned(path, owner):
            return "\(path) belongs to another user (uid \(owner)): a store is opened only by its owner"
        }
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

package func errnoDescription(_ code: Int32) -> String {
    guard let message = strerror(code) else { return "unknown error" }
    return String(cString: message)
}

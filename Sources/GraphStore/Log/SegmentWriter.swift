import GraphStoreCore

/// Writes records into a store's segment files: the active segment, the offset its next record
/// goes to, space preallocated a step ahead, and rolling to a new segment when a record would
/// not fit (a record is never split). It knows nothing of transactions, threads or durability
/// policy beyond syncing a segment's header when it starts one and the segment when it seals
/// it: `TransactionLog` calls it under its lock, and `GroupCommit` decides when the active
/// segment's records are synced.
final class SegmentWriter {
    private let directory: String
    private let fileIO: any FileIO
    private let options: LogOptions
    /// The active segment's file: nil until the open completes, and after close.
    private(set) var handle: (any FileHandleIO)?
    private(set) var segment: UInt64 = 0
    /// Where the next record goes in the active segment.
    private(set) var offset: UInt64 = 0
    /// How far the active segment is preallocated: space is reserved a step ahead of the
    /// writes (not the whole segment at once), so a small store takes little disk while most
    /// commits still sync without changing the file's size.
    private var preallocatedEnd: UInt64 = 0

    init(directory: String, fileIO: any FileIO, options: LogOptions) {
        self.directory = directory
        self.fileIO = fileIO
        self.options = options
    }

    func path(ofSegment number: UInt64) -> String {
        joinPath(directory, SegmentFormat.fileName(segment: number))
    }

    /// Appends after `offset` in an existing segment (where recovery found the log's end).
    func resume(segment number: UInt64, at offset: UInt64) throws {
        let file = try fileIO.open(path(ofSegment: number), mode: .readWrite)
        do {
            preallocatedEnd = try file.size()
        } catch {
            file.close()
            throw error
        }
        handle = file
        segment = number
        self.offset = offset
    }

    /// Creates segment `number`, whose first record follows `previousTransaction`, and makes it
    /// the active one; with durability, its header and its directory entry are synced first.
    func start(segment number: UInt64, previousTransaction: UInt64) throws {
        let file = try fileIO.open(path(ofSegment: number), mode: .create)
        do {
            try file.writeAll(SegmentFormat.encodeHeader(.init(segment: number, previousTransaction: previousTransaction)), at: 0)
            try file.preallocate(to: min(options.segmentSize, options.preallocationStep))
            if options.durability != .none {
                try file.sync()
                try fileIO.syncDirectory(directory)
            }
        } catch {
            file.close()
            throw error
        }
        handle = file
        segment = number
        offset = UInt64(SegmentFormat.headerSize)
        preallocatedEnd = min(options.segmentSize, options.preallocationStep)
    }

    /// Whether the active segment holds no record yet.
    var isEmpty: Bool { offset <= UInt64(SegmentFormat.headerSize) }

    /// Whether a record of `bytes` would go to a new segment.
    func startsNewSegment(_ bytes: Int) -> Bool {
        offset + UInt64(bytes) > options.segmentSize && !isEmpty
    }

    /// Takes the place of a record of `bytes` in the active segment (the caller rolls first when
    /// `startsNewSegment`), preallocates past it, and returns the file and offset it is to be
    /// written at.
    func place(_ bytes: Int) throws -> (handle: any FileHandleIO, offset: UInt64) {
        try preallocate(through: offset + UInt64(bytes))
        let place = (handle: handle!, offset: offset)
        offset += UInt64(bytes)
        return place
    }

    /// Seals the active segment — its preallocated rest given back and, with durability,
    /// synced, so later segments never follow unsynced data — and starts the next.
    func roll(previousTransaction: UInt64) throws {
        try handle!.truncate(to: offset)
        if options.durability != .none { try handle!.sync() }
        handle!.close()
        try start(segment: segment + 1, previousTransaction: previousTransaction)
    }

    private func preallocate(through end: UInt64) throws {
        guard end > preallocatedEnd else { return }
        let step = options.preallocationStep
        preallocatedEnd = max(end, min(options.segmentSize, (end / step + 1) * step))
        try handle!.preallocate(to: preallocatedEnd)
    }

    /// Closes the active segment's file.
    func close() {
        handle?.close()
        handle = nil
    }

    deinit { handle?.close() }

    /// Writes records in order, each run of them contiguous in one file as one write (a
    /// streamed record is written on its own, as it is encoded).
    static func write(_ records: [(handle: any FileHandleIO, offset: UInt64, record: LogRecord)]) throws {
        var start = 0
        while start < records.count {
            let first: WrittenBytes
            switch records[start].record {
            case let .streamed(streamed):
                try streamed.write(to: records[start].handle, at: records[start].offset)
                start += 1
                continue
            case let .whole(bytes):
                first = bytes
            }
            var run = [first]
            var end = start + 1
            while end < records.count, records[end].handle === records[start].handle,
                  records[end].offset == records[end - 1].offset + UInt64(records[end - 1].record.count),
                  case let .whole(next) = records[end].record {
                run.append(next)
                end += 1
            }
            if run.count == 1 {
                try records[start].handle.writeAll(first.buffer, at: records[start].offset)
            } else {
                var joined: [UInt8] = []
                joined.reserveCapacity(run.reduce(0) { $0 + $1.count })
                for bytes in run { joined.append(contentsOf: bytes.buffer) }
                try records[start].handle.writeAll(joined, at: records[start].offset)
            }
            start = end
        }
    }
}

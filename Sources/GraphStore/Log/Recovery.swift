import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// Reads a store's segments in order at open, hands every good transaction to the caller, and
/// decides what a damaged spot is:
///
/// - a *torn tail*: the first bad record of the last segment with no well-framed record after
///   it, when it is a write that never reached its end (`SegmentScanner.isTornWrite`). It was
///   never acknowledged: a writer cuts it off (zeroing the bytes) and reports it; a reader stops
///   before it.
/// - *damage*: anything else — a complete record that fails its checks, wherever it is. The
///   open fails with `StorageError.corruption` naming segment, offset and reason, unless
///   `salvage` is set: then the longest valid prefix is kept, and the dropped bytes are moved
///   into a quarantine directory, never deleted.
///
/// Reading changes nothing on disk: what a writer must change (cut a torn tail, drop a segment
/// whose creation never finished, quarantine what salvage dropped) is returned as `repairs`,
/// which the caller applies once the whole open has succeeded (`apply`). An open that fails
/// leaves every byte as it was.
package struct Recovery {
    package let fileIO: any FileIO
    package let directory: String
    package let salvage: Bool
    package let segmentSize: UInt64

    /// Where the next append goes.
    package struct Position {
        package var segment: UInt64
        package var offset: UInt64
    }

    /// A change a writer makes to the directory once its open has succeeded.
    package enum Repair: Equatable {
        /// The newest segment's creation never finished: nothing in it was committed.
        case removeIncompleteSegment(UInt64)
        /// Cut a segment at `offset`, zero-filling (preallocating) it again up to `fileSize`.
        case cut(segment: UInt64, offset: UInt64, fileSize: UInt64)
        /// Salvage: keep the bytes of `segment` from `offset` and the `later` segments in the
        /// quarantine directory, then cut the segment there (remove it when not even its header
        /// is good) and take the later ones out of the log.
        case quarantine(directory: String, segment: UInt64, offset: UInt64, later: [UInt64])
    }

    package struct Outcome {
        package var report = OpenReport()
        /// The active segment and the end of its last good record; nil when there are no segments.
        package var end: Position?
        /// What a writer changes once the open has succeeded, in order.
        package var repairs: [Repair] = []
    }

    package func run(baseTransaction: UInt64 = 0, body: (LogTransaction) throws -> Void) throws -> Outcome {
        var outcome = Outcome()
        outcome.report.lastTransaction = baseTransaction
        let segments = try listSegments(fileIO: fileIO, directory: directory)
        outcome.report.segments = segments.count
        var last = baseTransaction
        var index = 0
        // After a checkpoint at `baseTransaction`: start at the last segment that begins at or
        // before it (earlier ones are history the checkpoint already holds), reading but not
        // applying the transactions up to it.
        if baseTransaction > 0 {
            var start = 0
            for (i, number) in segments.enumerated() {
                guard let previous = segmentStart(number), previous <= baseTransaction else { break }
                start = i
            }
            index = start
            if let first = segments.first.flatMap(segmentStart), first > baseTransaction {
                throw StorageError.corruption(segment: segments[0], offset: 0,
                                              reason: "the log starts after transaction \(first) but the checkpoint ends at \(baseTransaction)")
            }
            if let previous = segments.indices.contains(start) ? segmentStart(segments[start]) : nil { last = previous }
        }
        func deliver(_ transaction: LogTransaction) throws {
            if transaction.number > baseTransaction { try body(transaction) }
        }
        while index < segments.count {
            let number = segments[index]
            let isLast = index == segments.count - 1
            let path = joinPath(directory, SegmentFormat.fileName(segment: number))
            if index > 0 && number != segments[index - 1] + 1 {
                try damaged(segment: segments[index - 1] + 1, offset: 0, reason: "segment \(segments[index - 1] + 1) is missing",
                            bytes: UnsafeRawBufferPointer(start: nil, count: 0), later: Array(segments[index...]), outcome: &outcome)
                break
            }
            let bytes = try fileIO.readFile(path)
            let done: Bool = try bytes.withUnsafeBytes { raw in
                let header: SegmentFormat.Header
                switch SegmentFormat.decodeHeader(raw) {
                case let .success(h):
                    header = h
                case let .failure(.unsupportedVersion(found)):
                    throw StorageError.unsupportedFormatVersion(path: path, found: found, supported: SegmentFormat.formatVersion)
                case let .failure(problem):
                    let reason = problem == .incomplete ? "incomplete segment header" : "\(problem)"
                    // The header is written and synced before any record: a bad one with nothing
                    // after it is a creation that never finished.
                    if isLast && SegmentScanner.firstValidRecord(raw, after: -1) == nil
                        && (problem == .incomplete || SegmentScanner.isZero(raw, from: SegmentFormat.headerSize)) {
                        // A crash while creating the newest segment: nothing in it was ever committed.
                        outcome.report.tornTail = OpenReport.Drop(segment: number, offset: 0, bytes: droppedLength(raw, from: 0), reason: reason)
                        outcome.report.segments -= 1
                        outcome.repairs.append(.removeIncompleteSegment(number))
                        return true
                    }
                    try damaged(segment: number, offset: 0, reason: reason, bytes: raw, later: Array(segments[(index + 1)...]),
                                outcome: &outcome)
                    return true
                }
                guard header.segment == number else {
                    try damaged(segment: number, offset: 0, reason: "header names segment \(header.segment)",
                                bytes: raw, later: Array(segments[(index + 1)...]), outcome: &outcome)
                    return true
                }
                guard header.previousTransaction == last else {
                    try damaged(segment: number, offset: 0,
                                reason: "segment starts after transaction \(header.previousTransaction) but the log before it ends at \(last)",
                                bytes: raw, later: Array(segments[(index + 1)...]), outcome: &outcome)
                    return true
                }
                let scan = try SegmentScanner.scan(raw, from: SegmentFormat.headerSize, previousTransaction: last, skipThrough: baseTransaction, body: deliver)
                last = scan.lastTransaction
                outcome.report.transactionsRead += scan.transactionCount
                outcome.report.lastTransaction = last
                if let time = scan.lastTimestampMicros { outcome.report.lastCommitMicros = time }
                outcome.end = Position(segment: number, offset: UInt64(scan.end))
                guard case let .damaged(offset, reason) = scan.stop else { return false }
                let laterInSegment = SegmentScanner.firstValidRecord(raw, after: offset)
                if isLast && laterInSegment == nil && SegmentScanner.isTornWrite(raw, at: offset) {
                    outcome.report.tornTail = OpenReport.Drop(segment: number, offset: UInt64(offset),
                                                              bytes: droppedLength(raw, from: offset), reason: reason)
                    outcome.repairs.append(.cut(segment: number, offset: UInt64(offset), fileSize: UInt64(raw.count)))
                    return true
                }
                let why = laterInSegment.map { "\(reason); a valid record follows at offset \($0)" }
                    ?? (isLast ? "\(reason) (a complete record, not a torn write)" : reason)
                try damaged(segment: number, offset: offset, reason: why, bytes: raw,
                            later: Array(segments[(index + 1)...]), outcome: &outcome)
                return true
            }
            if done { break }
            index += 1
        }
        if last < baseTransaction, outcome.report.salvaged.isEmpty {
            throw StorageError.corruption(segment: segments.last ?? 0, offset: 0,
                                          reason: "the log ends at transaction \(last), before the checkpoint at \(baseTransaction)")
        }
        outcome.report.lastTransaction = max(outcome.report.lastTransaction, baseTransaction)
        return outcome
    }

    package func segmentStart(_ number: UInt64) -> UInt64? {
        GraphStoreLog.segmentStart(number, directory: directory, fileIO: fileIO)
    }

    private func droppedLength(_ raw: UnsafeRawBufferPointer, from offset: Int) -> UInt64 {
        guard let lastByte = SegmentScanner.lastNonZero(raw, from: offset) else { return 0 }
        return UInt64(lastByte - offset + 1)
    }

    /// Damage: fail, or (salvage) keep the prefix and plan to quarantine the rest.
    private func damaged(segment: UInt64, offset: Int, reason: String, bytes raw: UnsafeRawBufferPointer,
                         later: [UInt64], outcome: inout Outcome) throws {
        guard salvage else {
            throw StorageError.corruption(segment: segment, offset: UInt64(offset), reason: reason)
        }
        var drops = [OpenReport.Drop(segment: segment, offset: UInt64(offset), bytes: droppedLength(raw, from: offset), reason: reason)]
        for number in later {
            let size = (try? fileIO.fileSize(joinPath(directory, SegmentFormat.fileName(segment: number)))) ?? 0
            drops.append(OpenReport.Drop(segment: number, offset: 0, bytes: size, reason: "after damage in segment \(segment)"))
        }
        outcome.report.salvaged = drops
        let quarantine = joinPath(directory, "salvage-\(outcome.report.lastTransaction)-\(Int(Date().timeIntervalSince1970))")
        outcome.report.quarantineDirectory = quarantine
        // A segment that was there (not a missing one) loses its bytes from `offset`.
        let present = raw.count > 0
        outcome.repairs.append(.quarantine(directory: quarantine, segment: present ? segment : 0, offset: UInt64(offset), later: later))
        if present && offset < SegmentFormat.headerSize { outcome.report.segments -= 1 }
        outcome.report.segments -= later.count
        if offset < SegmentFormat.headerSize, outcome.end?.segment == segment { outcome.end = nil }
    }

    // MARK: Applying repairs (a writer, once its open succeeded)

    package func apply(_ repairs: [Repair]) throws {
        for repair in repairs {
            switch repair {
            case let .removeIncompleteSegment(number):
                try fileIO.removeFile(segmentPath(number))
                try fileIO.syncDirectory(directory)
            case let .cut(segment, offset, fileSize):
                try zeroTail(path: segmentPath(segment), from: offset, fileSize: fileSize)
            case let .quarantine(quarantine, segment, offset, later):
                try moveToQuarantine(quarantine, segment: segment, offset: offset, later: later)
            }
        }
    }

    private func segmentPath(_ number: UInt64) -> String { joinPath(directory, SegmentFormat.fileName(segment: number)) }

    /// Cuts a segment at `offset` and restores zeroed preallocated space after it, durably, so
    /// that no stale bytes survive past the new end.
    private func zeroTail(path: String, from offset: UInt64, fileSize: UInt64) throws {
        let handle = try fileIO.open(path, mode: .readWrite)
        defer { handle.close() }
        try handle.truncate(to: offset)
        try handle.preallocate(to: max(fileSize, min(segmentSize, LogOptions.defaultPreallocationStep)))
        try handle.sync()
    }

    private func moveToQuarantine(_ quarantine: String, segment: UInt64, offset: UInt64, later: [UInt64]) throws {
        try fileIO.createDirectory(quarantine)
        let damagedPath = segmentPath(segment)
        let size = segment == 0 ? 0 : try fileIO.fileSize(damagedPath)
        if size > offset {
            // Keep the dropped bytes of the damaged segment, then cut it.
            let dropped = try fileIO.open(damagedPath, mode: .readOnly)
            let bytes = try dropped.read(at: offset, count: Int(size - offset))
            dropped.close()
            let keep = try fileIO.open(joinPath(quarantine, SegmentFormat.fileName(segment: segment) + ".from-\(offset)"), mode: .create)
            try keep.writeAll(bytes, at: 0)
            try keep.sync()
            keep.close()
        }
        for number in later {
            let name = SegmentFormat.fileName(segment: number)
            try fileIO.rename(joinPath(directory, name), to: joinPath(quarantine, name))
        }
        try fileIO.syncDirectory(quarantine)
        if segment != 0 {
            if offset < UInt64(SegmentFormat.headerSize) {
                // Not even the header is good: the whole segment went to quarantine.
                try fileIO.removeFile(damagedPath)
            } else {
                try zeroTail(path: damagedPath, from: offset, fileSize: size)
            }
        }
        try fileIO.syncDirectory(directory)
    }
}

/// The segment numbers present in a store directory, ascending.
package func listSegments(fileIO: any FileIO, directory: String) throws -> [UInt64] {
    try fileIO.listDirectory(directory).compactMap(SegmentFormat.segmentNumber(fileName:)).sorted()
}

/// The transaction a segment's header says precedes it; nil when the header is unreadable.
package func segmentStart(_ number: UInt64, directory: String, fileIO: any FileIO) -> UInt64? {
    guard let handle = try? fileIO.open(joinPath(directory, SegmentFormat.fileName(segment: number)), mode: .readOnly) else { return nil }
    defer { handle.close() }
    guard let bytes = try? handle.read(at: 0, count: SegmentFormat.headerSize) else { return nil }
    return bytes.withUnsafeBytes { raw in
        if case let .success(header) = SegmentFormat.decodeHeader(raw) { return header.previousTransaction }
        return nil
    }
}

/// Where the kept log starts: the transaction before its first segment (0 when compaction has
/// removed nothing, or there are no segments).
package func logStart(directory: String, fileIO: any FileIO) throws -> UInt64 {
    try listSegments(fileIO: fileIO, directory: directory).first.flatMap { segmentStart($0, directory: directory, fileIO: fileIO) } ?? 0
}

import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

@Suite struct RecoveryTests {
    /// The offsets where each record of segment 1 starts, and the end of the last one.
    func recordOffsets(_ bytes: [UInt8]) -> [Int] {
        var offsets: [Int] = []
        bytes.withUnsafeBytes { raw in
            var offset = SegmentFormat.headerSize
            while case let .record(_, next) = SegmentScanner.decodeRecord(raw, at: offset) {
                offsets.append(offset)
                offset = next
            }
            offsets.append(offset)
        }
        return offsets
    }

    @Test func tornTailIsCutAndReportedThenOverwritten() throws {
        let (fs, committed) = try makeMemoryStore(count: 5, segmentSize: 16384)
        let path = segmentPath("/store", 1)
        var bytes = fs.contents(of: path)!
        let offsets = recordOffsets(bytes)
        // Half of the last record survives the "crash".
        let lastStart = offsets[4], lastEnd = offsets[5]
        let cut = lastStart + (lastEnd - lastStart) / 2
        for i in cut..<lastEnd { bytes[i] = 0 }
        fs.setContents(of: path, to: bytes)

        let log = try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 16384, fileIO: fs))
        let tail = try #require(log.report.tornTail)
        #expect(tail.segment == 1 && tail.offset == UInt64(lastStart))
        #expect(tail.bytes > 0 && tail.bytes <= UInt64(cut - lastStart))
        #expect(log.lastTransaction == 4)
        // The next commit takes the torn one's place and number; no stale byte survives after it.
        try log.append([.delete(entity: 0, row: 1)])
        log.close()
        let (transactions, report) = try readAll("/store", fileIO: fs)
        #expect(report.isClean)
        #expect(transactions.map(\.operations) == Array(committed.prefix(4)) + [[.delete(entity: 0, row: 1)]])
    }

    @Test func damageBeforeTheLastGoodCommitIsATypedError() throws {
        let (fs, _) = try makeMemoryStore(count: 6, segmentSize: 16384)
        let path = segmentPath("/store", 1)
        var bytes = fs.contents(of: path)!
        let offsets = recordOffsets(bytes)
        bytes[offsets[2] + 12] ^= 0x40
        fs.setContents(of: path, to: bytes)
        #expect(throws: StorageError.self) { try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 16384, fileIO: fs)) }
        do {
            _ = try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 16384, fileIO: fs))
        } catch let StorageError.corruption(segment, offset, reason) {
            #expect(segment == 1)
            #expect(offset == UInt64(offsets[2]))
            #expect(reason.contains("checksum"))
            #expect(reason.contains("valid record follows at offset \(offsets[3])"))
        }
        // Nothing was changed by the refused open.
        #expect(fs.contents(of: path) == bytes)
    }

    @Test func salvageKeepsTheLongestValidPrefixAndQuarantinesTheRest() throws {
        let (fs, committed) = try makeMemoryStore(count: 150, segmentSize: 2048)
        let segments = try listSegments(fileIO: fs, directory: "/store")
        try #require(segments.count >= 3)
        let path = segmentPath("/store", 2)
        var bytes = fs.contents(of: path)!
        let offsets = recordOffsets(bytes)
        bytes[offsets[1] + 3] ^= 0x01  // the length of segment 2's second record
        fs.setContents(of: path, to: bytes)

        var kept: [LogTransaction] = []
        let log = try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 2048, salvage: true, fileIO: fs)) { kept.append($0) }
        let drops = log.report.salvaged
        #expect(drops.first?.segment == 2 && drops.first?.offset == UInt64(offsets[1]))
        #expect(drops.count == segments.count - 1)  // segment 2's tail and each later segment
        #expect(kept.map(\.operations) == Array(committed.prefix(kept.count)))
        let quarantine = try #require(log.report.quarantineDirectory)
        #expect(try fs.listDirectory(quarantine).count == segments.count - 1)
        try log.append([.delete(entity: 0, row: 5)])
        log.close()
        let (after, report) = try readAll("/store", fileIO: fs)
        #expect(report.isClean)
        #expect(after.count == kept.count + 1)
    }

    @Test func aMissingSegmentIsDamage() throws {
        let (fs, _) = try makeMemoryStore(count: 150, segmentSize: 2048)
        try #require(try listSegments(fileIO: fs, directory: "/store").count >= 3)
        try fs.removeFile(segmentPath("/store", 2))
        #expect(throws: StorageError.corruption(segment: 2, offset: 0, reason: "segment 2 is missing")) {
            try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 16384, fileIO: fs))
        }
    }

    @Test func anIncompleteNewestSegmentIsDroppedAsATornTail() throws {
        let (fs, committed) = try makeMemoryStore(count: 40, segmentSize: 2048)
        let last = try listSegments(fileIO: fs, directory: "/store").last!
        // A crash right after creating the next segment file, before its header was written.
        fs.setContents(of: segmentPath("/store", last + 1), to: [UInt8](repeating: 0, count: 100))
        let log = try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 16384, fileIO: fs))
        #expect(log.report.tornTail?.segment == last + 1)
        #expect(log.lastTransaction == UInt64(committed.count))
        log.close()
        #expect(!fs.fileExists(segmentPath("/store", last + 1)))
    }

    @Test func aNewerFormatVersionIsRefusedByName() throws {
        let (fs, _) = try makeMemoryStore(count: 2)
        let path = segmentPath("/store", 1)
        var bytes = fs.contents(of: path)!
        var header = SegmentFormat.encodeHeader(.init(segment: 1, previousTransaction: 0))
        header[8] = 9
        let crc = header.withUnsafeBytes { CRC32C.mask(CRC32C.checksum(UnsafeRawBufferPointer(rebasing: $0[..<28]))) }
        withUnsafeBytes(of: crc.littleEndian) { for i in 0..<4 { header[28 + i] = $0[i] } }
        bytes.replaceSubrange(0..<32, with: header)
        fs.setContents(of: path, to: bytes)
        #expect(throws: StorageError.unsupportedFormatVersion(path: path, found: 9, supported: 1)) {
            try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 16384, fileIO: fs))
        }
    }

    /// SQLite-style: for a small store, truncate at and flip a byte at every offset. Each open
    /// recovers a prefix of the commits or throws the typed error; none traps.
    @Test func everyOffsetDamageRecoversAPrefixOrThrows() throws {
        let (pristine, committed) = try makeMemoryStore(count: 8, seed: 11, segmentSize: 16384)
        let path = segmentPath("/store", 1)
        let original = pristine.contents(of: path)!
        let used = recordOffsets(original).last!
        var outcomes = (prefix: 0, error: 0)

        func check(_ bytes: [UInt8], _ what: String) {
            let fs = pristine.copy()
            fs.setContents(of: path, to: bytes)
            var recovered: [[LogOperation]] = []
            do {
                let log = try TransactionLog.open(directory: "/store", options: LogOptions(segmentSize: 16384, fileIO: fs)) { recovered.append($0.operations) }
                #expect(recovered == Array(committed.prefix(recovered.count)), "\(what)")
                // The cut store is sound: a second open finds nothing to cut.
                try log.append([])
                log.close()
                let (again, report) = try readAll("/store", fileIO: fs)
                #expect(report.isClean && again.count == recovered.count + 1, "\(what)")
                outcomes.prefix += 1
            } catch is StorageError {
                outcomes.error += 1
            } catch {
                Issue.record("\(what): untyped error \(error)")
            }
        }

        for offset in 0...used {
            check(Array(original[..<offset]), "truncated at \(offset)")
        }
        for offset in 0..<(used + 64) {
            for flip: UInt8 in [0x01, 0x80] {
                var bytes = original
                bytes[offset] ^= flip
                check(bytes, "flipped \(flip) at \(offset)")
            }
        }
        #expect(outcomes.prefix > 0 && outcomes.error > 0)
    }
}

import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

/// Each injected I/O fault gives a typed error, poisons the writer, and nothing after it is visible.
@Suite struct FaultInjectionTests {
    /// `streamedRecordBytes` 0 writes every record as it is encoded (`StreamedRecord`).
    func openFaulty(_ plan: FaultPlan, base: MemoryFileIO = MemoryFileIO(), durability: Durability = .full,
                    streamedRecordBytes: Int = LogOptions.defaultStreamedRecordBytes)
        throws -> (TransactionLog, FaultInjectingFileIO, MemoryFileIO)
    {
        let faulty = FaultInjectingFileIO(base: base, plan: FaultPlan())
        var options = LogOptions(durability: durability, segmentSize: 4096, fileIO: faulty)
        options.streamedRecordBytes = streamedRecordBytes
        let log = try TransactionLog.open(directory: "/s", options: options)
        faulty.setPlan(plan)
        return (log, faulty, base)
    }

    func committedOperations(_ fs: MemoryFileIO) throws -> [[LogOperation]] {
        try readAll("/s", fileIO: fs).0.map(\.operations)
    }

    let sample: [LogOperation] = [.insert(entity: 1, row: 1, values: [PropertyValue(0, .string("KSFO"))])]

    @Test func shortWritesAreContinuedTransparently() throws {
        let (log, faulty, fs) = try openFaulty(FaultPlan(shortWriteLimit: 3))
        for i in 0..<30 { try log.append([.delete(entity: 0, row: UInt64(i))] + sample) }
        log.close()
        #expect(faulty.writeCount > 30 * 10)
        #expect(try committedOperations(fs).count == 30)
    }

    @Test(arguments: [(Int32(5), "EIO"), (Int32(28), "ENOSPC")])
    func aFailedWritePoisonsTheWriter(code: Int32, name: String) throws {
        let (log, faulty, fs) = try openFaulty(FaultPlan())
        try log.append(sample)
        faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount, errno: code)))
        let expected: StorageError = code == 28 ? .diskFull(path: segmentPath("/s", 1)) : .io(operation: "write", path: segmentPath("/s", 1), errno: 5)
        #expect(throws: expected) { try log.append(sample) }
        // Every later commit throws too, even though the disk "works" again.
        #expect(throws: StorageError.writerPoisoned(cause: expected.description)) { try log.append(sample) }
        #expect(log.poisonedBy == expected)
        log.close()
        #expect(try committedOperations(fs) == [sample])
        // Reopening clears the poison.
        let reopened = try TransactionLog.open(directory: "/s", options: LogOptions(segmentSize: 16384, fileIO: fs))
        try reopened.append(sample)
        reopened.close()
        #expect(try committedOperations(fs).count == 2)
    }

    @Test(arguments: Durability.allCases.filter { $0 != .none })
    func aFailedSyncPoisonsTheWriter(durability: Durability) throws {
        let (log, faulty, fs) = try openFaulty(FaultPlan(), durability: durability)
        try log.append(sample)
        faulty.setPlan(FaultPlan(failSync: (index: faulty.syncCount, errno: 5)))
        #expect(throws: StorageError.io(operation: "fdatasync", path: segmentPath("/s", 1), errno: 5)) { try log.append(sample) }
        #expect(throws: StorageError.self) { try log.append(sample) }
        #expect(log.poisonedBy != nil)
        log.close()
        // The commit whose sync failed was written whole, so it may be there after reopen, never in part.
        let after = try committedOperations(fs)
        #expect(after == [sample] || after == [sample, sample])
    }

    @Test func aFullDiskWhenPreallocatingANewSegmentIsTyped() throws {
        let (log, faulty, fs) = try openFaulty(FaultPlan())
        faulty.setPlan(FaultPlan(failPreallocate: 28))
        let big: [LogOperation] = [.insert(entity: 1, row: 2, values: [PropertyValue(0, .data(Data(count: 3000)))])]
        try log.append(big)
        #expect(throws: StorageError.diskFull(path: segmentPath("/s", 2))) { try log.append(big) }
        #expect(throws: StorageError.self) { try log.append(sample) }
        log.close()
        faulty.setPlan(FaultPlan())
        #expect(try committedOperations(fs) == [big])
    }

    /// A crash after every possible byte of a run of commits: the reopened store holds exactly the
    /// commits that were acknowledged, or those plus the one in flight if all its bytes landed.
    /// Records written whole, and written as they are encoded (header, then payload pieces).
    @Test(arguments: [LogOptions.defaultStreamedRecordBytes, 0])
    func aCrashAfterAnyByteLeavesAPrefixWithEveryAcknowledgedCommit(streamedRecordBytes: Int) throws {
        var generator = RandomTransactions(seed: 5)
        let workload = (0..<12).map { _ in generator.next() }
        // Bytes a clean run writes, to know how far to go.
        let (probeLog, probe, _) = try openFaulty(FaultPlan(), streamedRecordBytes: streamedRecordBytes)
        let start = probe.bytesWritten
        for operations in workload { try probeLog.append(operations) }
        let total = probe.bytesWritten - start
        probeLog.close()

        for crashAt in stride(from: 0, through: total, by: 1) {
            let (log, faulty, fs) = try openFaulty(FaultPlan(), streamedRecordBytes: streamedRecordBytes)
            faulty.setPlan(FaultPlan(crashAfterBytes: faulty.bytesWritten + crashAt))
            var acknowledged = 0
            for operations in workload {
                do {
                    try log.append(operations)
                    acknowledged += 1
                } catch {
                    #expect(error as? StorageError == .simulatedCrash)
                    break
                }
            }
            let recovered = try committedOperations(fs)
            #expect(recovered == Array(workload.prefix(recovered.count)), "crash at \(crashAt)")
            #expect(recovered.count == acknowledged || recovered.count == acknowledged + 1, "crash at \(crashAt)")
        }
    }
}

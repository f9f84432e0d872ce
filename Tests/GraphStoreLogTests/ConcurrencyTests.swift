import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreLog
import GraphStoreTestSupport
import Testing

@Suite struct ConcurrencyTests {
    /// With syncs that take a while, concurrent grouped commits share them: fewer syncs than
    /// commits, and every commit is there, numbered without gaps.
    @Test func groupedCommitsShareSyncs() throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan(syncDelay: .milliseconds(2)))
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: faulty))
        let syncsBefore = faulty.syncCount, writesBefore = faulty.writeCount
        let writers = 8, perWriter = 25
        let numbers = appendConcurrently(log, writers: writers, perWriter: perWriter)
        let syncs = faulty.syncCount - syncsBefore, writes = faulty.writeCount - writesBefore
        log.close()
        #expect(numbers == Array(1...UInt64(writers * perWriter)))
        #expect(syncs <= writers * perWriter / 2, "\(syncs) syncs for \(writers * perWriter) commits")
        // The sync leader writes the records handed in meanwhile together.
        #expect(writes <= writers * perWriter / 2, "\(writes) writes for \(writers * perWriter) commits")
        let (transactions, _) = try readAll("/s", fileIO: faulty.base)
        #expect(transactions.allSatisfy { CrashWorkload.identify($0) != nil })
        #expect(transactions.count == writers * perWriter)
    }

    /// Runs `writers` threads that each append `perWriter` commits, returning the numbers given,
    /// in order. (Real threads: concurrentPerform would run only as many writers as there are cores.)
    private func appendConcurrently(_ log: TransactionLog, writers: Int, perWriter: Int) -> [UInt64] {
        let numbers = Locked<[UInt64]>([])
        let group = DispatchGroup()
        for writer in 0..<writers {
            group.enter()
            Thread {
                for sequence in 0..<perWriter {
                    let receipt = try! log.append(CrashWorkload.operations(writer: writer, sequence: sequence))
                    numbers.withLock { $0.append(receipt.number) }
                }
                group.leave()
            }.start()
        }
        group.wait()
        return numbers.value.sorted()
    }

    /// A commit waiting for another thread's sync yields its processor for about four recent
    /// syncs' time, then sleeps: a sync shorter than that finds its waiters still yielding
    /// (woken without a system call), a longer one finds them asleep, and a limit of 0 sleeps
    /// at once. Each way, every commit returns only once durable, all of them in order.
    @Test(arguments: [
        (syncMicroseconds: 2_000, yieldLimit: 100_000, expectYielding: true, expectSleeping: false),
        (syncMicroseconds: 5_000, yieldLimit: 50, expectYielding: false, expectSleeping: true),
        (syncMicroseconds: 2_000, yieldLimit: 0, expectYielding: false, expectSleeping: true),
    ])
    func waitersYieldThenSleep(syncMicroseconds: Int, yieldLimit: Int, expectYielding: Bool, expectSleeping: Bool) throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan(syncDelay: .microseconds(syncMicroseconds)))
        var options = LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: faulty)
        options.groupCommitYieldLimitMicroseconds = yieldLimit
        let log = try TransactionLog.open(directory: "/s", options: options)
        let writers = 6, perWriter = 12
        let numbers = appendConcurrently(log, writers: writers, perWriter: perWriter)
        let waits = log.groupSyncWaits
        log.close()
        #expect(numbers == Array(1...UInt64(writers * perWriter)))
        #expect(waits.wokenYielding + waits.wokenSleeping > 0, "some commits waited for another thread's sync")
        // The first waits yield only briefly (no sync timed yet), so a few may sleep.
        if expectYielding { #expect(waits.wokenYielding > waits.wokenSleeping, "\(waits)") }
        if expectSleeping { #expect(waits.wokenSleeping > waits.wokenYielding, "\(waits)") }
        if yieldLimit == 0 { #expect(waits.wokenYielding == 0, "a limit of 0 never yields: \(waits)") }
        let (transactions, _) = try readAll("/s", fileIO: faulty.base)
        #expect(transactions.map(\.number) == Array(1...UInt64(writers * perWriter)))
    }

    /// Out-of-range waits are clamped, never trapped on: a negative limit or delay counts as 0
    /// (sleep at once, never wait for more commits), Int.max as a second.
    @Test(arguments: [Int.min, -1, Int.max])
    func outOfRangeWaitSettingsAreClamped(setting: Int) throws {
        var options = LogOptions(durability: .grouped, segmentSize: 1 << 20,
                                 fileIO: FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan(syncDelay: .microseconds(300))))
        options.groupCommitYieldLimitMicroseconds = setting
        options.groupCommitDelayMicroseconds = setting
        #expect(options.groupCommitYieldLimitNanoseconds == (setting < 0 ? 0 : 1_000_000_000))
        #expect(options.groupCommitDelayNanoseconds == (setting < 0 ? 0 : 1_000_000_000))
        let log = try TransactionLog.open(directory: "/s", options: options)
        let numbers = appendConcurrently(log, writers: 4, perWriter: 10)
        let waits = log.groupSyncWaits
        log.close()
        #expect(numbers == Array(1...40))
        if setting < 0 { #expect(waits.wokenYielding == 0, "\(waits)") }
    }

    /// Many grouped writers across small segments: a segment roll waits for the running group
    /// sync (which syncs the file the roll closes), and every commit is on disk once
    /// acknowledged, in order, with no gaps.
    @Test func groupedWritesAcrossSegmentRolls() throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan(syncDelay: .microseconds(300)))
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 2048, fileIO: faulty))
        let writers = 8, perWriter = 40
        let group = DispatchGroup()
        for writer in 0..<writers {
            group.enter()
            Thread {
                for sequence in 0..<perWriter { _ = try! log.append(CrashWorkload.operations(writer: writer, sequence: sequence)) }
                group.leave()
            }.start()
        }
        group.wait()
        log.close()
        let (transactions, _) = try readAll("/s", fileIO: faulty.base)
        #expect(transactions.map(\.number) == Array(1...UInt64(writers * perWriter)))
        #expect(transactions.allSatisfy { CrashWorkload.identify($0) != nil })
        #expect(try listSegments(fileIO: faulty.base, directory: "/s").count > 10)
    }

    /// A grouped commit's write fails (a full disk): that commit throws a typed error, the log is
    /// poisoned, and everything acknowledged before is intact.
    @Test func aFailedGroupWriteThrowsAndKeepsWhatWasAcknowledged() throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan())
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: faulty))
        for i in 0..<5 { try log.append(CrashWorkload.operations(writer: 0, sequence: i)) }
        faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount, errno: 28)))
        #expect(throws: StorageError.self) { try log.append(CrashWorkload.operations(writer: 0, sequence: 5)) }
        #expect(log.poisonedBy != nil)
        #expect(throws: StorageError.self) { try log.append(CrashWorkload.operations(writer: 0, sequence: 6)) }
        log.close()
        let (transactions, _) = try readAll("/s", fileIO: faulty.base)
        #expect(transactions.map(\.number) == [1, 2, 3, 4, 5])
    }

    /// Commits appended without waiting (as a container does before it leaves its commit lock)
    /// are made durable by `sync()` and by `close()`: nothing appended is dropped.
    @Test func syncAndCloseWriteWhatNoGroupSyncTookYet() throws {
        let memory = MemoryFileIO()
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: memory))
        let first = try log.append(CrashWorkload.operations(writer: 0, sequence: 0), waitForDurability: false)
        try log.sync()
        try log.waitUntilDurable(first)
        #expect(try readAll("/s", fileIO: memory).0.count == 1)
        _ = try log.append(CrashWorkload.operations(writer: 0, sequence: 1), waitForDurability: false)
        _ = try log.append(CrashWorkload.operations(writer: 0, sequence: 2), waitForDurability: false)
        log.close()
        #expect(try readAll("/s", fileIO: memory).0.map(\.number) == [1, 2, 3])
    }

    /// Reservations are written in the order they were made, whatever order their writers come
    /// in: a later one waits for the one before it.
    @Test func reservationsAreWrittenInReservationOrder() throws {
        let memory = MemoryFileIO()
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: memory))
        let first = try log.reserve(CrashWorkload.operations(writer: 0, sequence: 0))
        let second = try log.reserve(CrashWorkload.operations(writer: 0, sequence: 1))
        #expect(first.receipt.number == 1 && second.receipt.number == 2)
        let secondDone = Locked(false)
        let group = DispatchGroup()
        group.enter()
        Thread {
            _ = try? log.write(second)  // waits for the first
            secondDone.withLock { $0 = true }
            group.leave()
        }.start()
        usleep(20_000)
        #expect(!secondDone.value)
        #expect(try readAll("/s", fileIO: memory).0.isEmpty)
        try log.write(first)
        group.wait()
        #expect(secondDone.value)
        log.close()
        #expect(try readAll("/s", fileIO: memory).0.map(\.number) == [1, 2])
    }

    /// A reservation whose write fails poisons the log: the reservation after it throws without
    /// writing, and the log keeps what was written before.
    @Test func aFailedReservationWritePoisonsTheOnesAfterIt() throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan())
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: faulty))
        try log.append(CrashWorkload.operations(writer: 0, sequence: 0))
        let failing = try log.reserve(CrashWorkload.operations(writer: 0, sequence: 1))
        let after = try log.reserve(CrashWorkload.operations(writer: 0, sequence: 2))
        faulty.setPlan(FaultPlan(failWrite: (index: faulty.writeCount, errno: 28)))
        #expect(throws: StorageError.self) { try log.write(failing) }
        #expect(throws: StorageError.self) { try log.write(after) }
        #expect(log.poisonedBy != nil)
        log.close()
        #expect(try readAll("/s", fileIO: faulty.base).0.map(\.number) == [1])
    }

    /// Records handed in together are written together: when that write fails, each of its
    /// commits throws the failure itself (none is acknowledged), later ones are refused, and
    /// the log keeps what was written before.
    @Test func aFailedCombinedWriteFailsEachOfItsCommits() throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan())
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: faulty))
        try log.append(CrashWorkload.operations(writer: 0, sequence: 0))
        let first = try log.reserve(CrashWorkload.operations(writer: 0, sequence: 1))
        let later = try (2...3).map { try log.reserve(CrashWorkload.operations(writer: 0, sequence: $0)) }
        let errors = Locked<[String]>([])
        let group = DispatchGroup()
        for reservation in later {
            group.enter()
            Thread {
                do { try log.write(reservation) } catch { errors.withLock { $0.append("\(error)") } }
                group.leave()
            }.start()
        }
        usleep(20_000)  // both handed in, waiting for the first
        #expect(try readAll("/s", fileIO: faulty.base).0.map(\.number) == [1])
        let writesBefore = faulty.writeCount
        faulty.setPlan(FaultPlan(failWrite: (index: writesBefore, errno: 28)))
        var failure = ""
        do { try log.write(first) } catch { failure = "\(error)" }
        group.wait()
        #expect(!failure.isEmpty)
        #expect(faulty.writeCount - writesBefore == 1, "the three records in one write")
        #expect(errors.value == [failure, failure], "each writer throws the write's failure, not a refusal")
        #expect(throws: StorageError.self) { try log.reserve(CrashWorkload.operations(writer: 0, sequence: 4)) }
        log.close()
        #expect(try readAll("/s", fileIO: faulty.base).0.map(\.number) == [1])
    }

    /// A group sync fails (an I/O error) while other commits wait for it: every one of them
    /// throws a typed error (none returns as if durable, none waits forever), the log is
    /// poisoned, and what was acknowledged before is intact.
    ///
    /// With a generous yield limit and syncs that have been slow, the waiters are still yielding
    /// when the failure comes (no semaphore wake-up reaches them); with 0 they sleep.
    @Test(arguments: [0, 1_000_000])
    func aFailedGroupSyncFailsEveryCommitWaitingForIt(yieldLimit: Int) throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan(syncDelay: .milliseconds(20)))
        var options = LogOptions(durability: .grouped, segmentSize: 1 << 20, fileIO: faulty)
        options.groupCommitYieldLimitMicroseconds = yieldLimit
        let log = try TransactionLog.open(directory: "/s", options: options)
        // Slow syncs first: waiters then yield longer than the failing sync lasts.
        for i in 0..<12 { try log.append(CrashWorkload.operations(writer: 0, sequence: i)) }
        let waitsBefore = log.groupSyncWaits
        // The next sync fails after a while, so the other writers hand in and wait for it.
        faulty.setPlan(FaultPlan(failSync: (index: faulty.syncCount, errno: 5), syncDelay: .milliseconds(20)))
        let writers = 8
        let outcomes = Locked<[String]>([])
        let group = DispatchGroup()
        for writer in 1...writers {
            group.enter()
            Thread {
                do {
                    _ = try log.append(CrashWorkload.operations(writer: writer, sequence: 0))
                    outcomes.withLock { $0.append("durable") }
                } catch let error as StorageError {
                    outcomes.withLock { $0.append("\(error)") }
                } catch {
                    outcomes.withLock { $0.append("untyped \(error)") }
                }
                group.leave()
            }.start()
        }
        group.wait()
        let waits = log.groupSyncWaits
        #expect(outcomes.value.count == writers)
        #expect(!outcomes.value.contains("durable"), "no commit returns as durable after its sync failed")
        #expect(!outcomes.value.contains { $0.hasPrefix("untyped") })
        #expect(log.poisonedBy != nil)
        #expect(throws: StorageError.self) { try log.append(CrashWorkload.operations(writer: 0, sequence: 12)) }
        if yieldLimit == 0 {
            #expect(waits.wokenYielding == 0 && waits.wokenSleeping > waitsBefore.wokenSleeping, "\(waits)")
        } else {
            #expect(waits.wokenYielding > waitsBefore.wokenYielding, "the failure reached yielding waiters: \(waits)")
        }
        log.close()
        #expect(try readAll("/s", fileIO: faulty.base).0.prefix(12).map(\.number) == Array(1...12))
    }

    /// `sync()` and `close()` wait for reservations still being written, and write nothing
    /// out of order; commits keep reserving while a sync waits, and all of them land in order.
    @Test func syncAndCloseWaitForReservationsInFlight() throws {
        let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan(syncDelay: .microseconds(200)))
        let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: .grouped, segmentSize: 4096, fileIO: faulty))
        let reserveLock = NSLock()  // as a container's commit lock: reserve under it, write after
        let writers = 6, perWriter = 40
        let group = DispatchGroup()
        for writer in 0..<writers {
            group.enter()
            Thread {
                for sequence in 0..<perWriter {
                    let reservation = reserveLock.withLock { try! log.reserve(CrashWorkload.operations(writer: writer, sequence: sequence)) }
                    _ = try! log.write(reservation)
                }
                group.leave()
            }.start()
        }
        for _ in 0..<20 { try log.sync() }
        group.wait()
        log.close()
        let (transactions, _) = try readAll("/s", fileIO: faulty.base)
        #expect(transactions.map(\.number) == Array(1...UInt64(writers * perWriter)))
        #expect(transactions.allSatisfy { CrashWorkload.identify($0) != nil })
    }

    @Test func fullDurabilitySyncsEveryCommitAndNoneSyncsNone() throws {
        for (durability, expected) in [(Durability.full, 20), (.none, 0)] {
            let faulty = FaultInjectingFileIO(base: MemoryFileIO(), plan: FaultPlan())
            let log = try TransactionLog.open(directory: "/s", options: LogOptions(durability: durability, segmentSize: 1 << 20, fileIO: faulty))
            let before = faulty.syncCount
            for i in 0..<20 { try log.append([.delete(entity: 0, row: UInt64(i))]) }
            #expect(faulty.syncCount - before == expected, "\(durability)")
            log.close()
        }
    }

    @Test func aSecondWriterIsRefusedNamingTheHolder() throws {
        let dir = TemporaryDirectory()
        let writer = try TransactionLog.open(directory: dir.store())
        #expect(throws: StorageError.locked(path: dir.store() + "/LOCK", holderPID: getpid())) {
            try TransactionLog.open(directory: dir.store())
        }
        writer.close()
        // Released on close: the next writer gets in.
        let next = try TransactionLog.open(directory: dir.store())
        next.close()
    }

    /// A released lock (its holder's pid erased) can outlive its holder for a moment: a child
    /// process spawned just then holds a copy of the holder's descriptor until its exec. The next
    /// writer waits for that instead of failing; a lock that stays held without a pid is still
    /// refused, with a typed error.
    @Test func aJustReleasedLockStillHeldElsewhereIsWaitedFor() throws {
        let dir = TemporaryDirectory()
        try PosixFileIO().createDirectory(dir.store())
        let lingering = try PosixFileIO().open(dir.store() + "/LOCK", mode: .create)  // no pid in the file
        #expect(try lingering.tryLockExclusive())
        let letGo = Thread {
            usleep(30_000)
            lingering.close()
        }
        letGo.start()
        let writer = try TransactionLog.open(directory: dir.store())
        writer.close()

        let stuck = try PosixFileIO().open(dir.store() + "/LOCK", mode: .create)
        defer { stuck.close() }
        #expect(try stuck.tryLockExclusive())
        #expect(throws: StorageError.locked(path: dir.store() + "/LOCK", holderPID: nil)) {
            try TransactionLog.open(directory: dir.store())
        }
    }

    @Test func aReaderBesideTheWriterSeesCommitsAsOfItsOpenAndCanRefresh() throws {
        let dir = TemporaryDirectory()
        let writer = try TransactionLog.open(directory: dir.store(), options: LogOptions(segmentSize: 4096))
        for i in 0..<5 { try writer.append([.delete(entity: 0, row: UInt64(i))]) }
        var seen: [UInt64] = []
        let reader = try TransactionLog.open(directory: dir.store(), options: LogOptions(readOnly: true)) { seen.append($0.number) }
        #expect(seen == [1, 2, 3, 4, 5])
        for i in 5..<60 { try writer.append(CrashWorkload.operations(writer: 0, sequence: i)) }  // rolls segments
        #expect(reader.lastTransaction == 5)
        let read = try reader.refresh { seen.append($0.number) }
        #expect(read == 55)
        #expect(seen == Array(1...60))
        #expect(try reader.refresh { _ in } == 0)
        reader.close()
        writer.close()
    }
}

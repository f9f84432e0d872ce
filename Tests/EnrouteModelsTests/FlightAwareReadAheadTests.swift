import Foundation
import Testing
@testable import EnrouteModels

@Suite struct FlightAwareReadAheadTests {
    /// The sample's files with a file that is not JSON and a missing one among them.
    func filesWithRefusals() throws -> (urls: [URL], refusedAt: Set<Int>, directory: URL) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("read-ahead-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let broken = directory.appendingPathComponent("broken.json")
        try Data("{\"arrivals\": [".utf8).write(to: broken)
        let missing = directory.appendingPathComponent("missing.json")
        let sample = EnrouteSample.files
        return ([sample[0], sample[1], broken, sample[2], missing, sample[3]], [2, 4], directory)
    }

    @Test func filesComeInOrderAsTheyDecodeAlone() throws {
        let (urls, refusedAt, directory) = try filesWithRefusals()
        defer { try? FileManager.default.removeItem(at: directory) }
        let reader = FlightAwareReadAhead(urls, depth: 1)
        var seen = 0
        while let (url, file) = reader.next() {
            #expect(url == urls[seen])
            switch file {
            case let .success(decoded):
                #expect(!refusedAt.contains(seen))
                #expect(decoded == (try FlightAwareFile.load(url)))
            case let .failure(refusal):
                #expect(refusedAt.contains(seen))
                #expect(refusal.file == url.path)
                #expect(throws: FlightAwareFile.Refusal.self) { try FlightAwareFile.load(url) }
            }
            seen += 1
        }
        #expect(seen == urls.count)
        #expect(reader.next() == nil)
        #expect(reader.isFinished)
    }

    @Test func noFilesEndAtOnce() {
        let reader = FlightAwareReadAhead([])
        #expect(reader.next() == nil)
        #expect(reader.isFinished)
    }

    @Test func cancellingStopsTheThreadAndTheFiles() throws {
        let many = Array(repeating: EnrouteSample.files[3], count: 200)
        let reader = FlightAwareReadAhead(many, depth: 2)
        #expect(reader.next() != nil)
        reader.cancel()
        #expect(reader.next() == nil)
        let deadline = Date().addingTimeInterval(10)
        while !reader.isFinished && Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        #expect(reader.isFinished)
    }

    @Test func aLoadOfManyFilesStoresWhatLoadingEachStores() throws {
        let (urls, refusedAt, directory) = try filesWithRefusals()
        defer { try? FileManager.default.removeItem(at: directory) }

        let oneByOne = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        var expected = EnrouteImporter.Report()
        for (i, url) in urls.enumerated() where !refusedAt.contains(i) { expected.add(try EnrouteImporter(context: oneByOne).load(url)) }

        let together = ModelContext(try ModelContainer(for: Flight.self, configurations: ModelConfiguration(isStoredInMemoryOnly: true)))
        var refused: [String] = []
        var progress: [Int] = []
        let report = try EnrouteImporter(context: together).load(urls, refused: { refused.append($0.file) }, loaded: { progress.append($0) })
        #expect(report == expected)
        #expect(refused == refusedAt.sorted().map { urls[$0].path })
        #expect(progress == Array(1...urls.count))
        func flights(_ context: ModelContext) throws -> [String] {
            try context.fetch(FetchDescriptor<Flight>(sortBy: [SortDescriptor(\.ident)])).map { "\($0.ident) \($0.origin?.icao ?? "-") \($0.destination?.icao ?? "-") \($0.routeDistance)" }
        }
        #expect(try flights(together) == flights(oneByOne))
        #expect(!together.hasChanges)
    }

    @Test func anErrorStoringAFileStopsTheLoadAndKeepsWhatCameBefore() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("read-ahead-store-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: dir) }
        let container = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: dir))
        let context = ModelContext(container)
        var stored = 0
        // The store closes after the first file: the second file's save fails.
        #expect(throws: (any Error).self) {
            try EnrouteImporter(context: context).load(EnrouteSample.files, loaded: { done in
                stored = done
                if done == 1 { container.close() }
            })
        }
        #expect(stored == 1)
        let reopened = try ModelContainer(for: Flight.self, configurations: ModelConfiguration(url: dir))
        defer { reopened.close() }
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Airport>()) > 0)
        #expect(try ModelContext(reopened).fetchCount(FetchDescriptor<Flight>()) == 0)
    }
}

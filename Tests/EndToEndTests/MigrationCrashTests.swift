@_spi(GraphStoreInternals) import GraphStoreGraph
import Foundation
import Testing
@testable import GraphStore
import GraphStoreTestSupport
@_spi(GraphStoreInternals) import GraphStoreCore
@_spi(GraphStoreInternals) import GraphStoreEngine
@_spi(GraphStoreInternals) import GraphStoreLog

/// A child migrates a store (a custom stage that fills a new attribute item by item) and is
/// SIGKILLed at a random moment. After each kill the store is complete in the old version or
/// complete in the new one — never in between — and a later run finishes the migration.
@Suite(.serialized) struct MigrationCrashTests {
    static let items = 400

    /// The store's version and, per item, its label and (in version 2) its upper-cased label.
    func inspect(_ path: String) throws -> (version: String, items: [(label: String, upper: String?)]) {
        let store = try Store.open(directory: path, options: StoreOptions(log: LogOptions(readOnly: true), maintenance: .manual))
        defer { store.close() }
        let version = store.schemaHistory.last?.record.versionIdentifier ?? "?"
        let entity = try #require(store.schema.entity(named: "Item"))
        let label = entity.attribute(named: "label")!.index
        let upper = entity.attribute(named: "upper")?.index
        let items = store.graph.read { view in
            view.table(entity.index).liveRows.map { row -> (String, String?) in
                guard case let .string(text) = view.value(entity: entity.index, row: row, attribute: label) else { return ("?", nil) }
                let upperText: String? = upper.flatMap { index in
                    if case let .string(u) = view.value(entity: entity.index, row: row, attribute: index) { return u }
                    return nil
                }
                return (text, upperText)
            }
        }
        return (version, items)
    }

    @Test func aKillDuringMigrationLeavesTheOldVersionOrTheNewOneWhole() throws {
        var rng = SplitMix64(seed: UInt64(Date().timeIntervalSince1970 * 1000))
        var sawOld = false
        for iteration in 0..<max(3, CrashTests.iterations / 2) {
            let dir = TemporaryDirectory()
            let path = dir.store()
            let seed = try runTool("graphstore-crashtest", [path, "--migration-seed", "\(Self.items)"])
            #expect(seed.status == 0, "\(seed.stderr)")
            let child = try RunningChild("graphstore-crashtest", [path, "--migrate"])
            Thread.sleep(forTimeInterval: 0.02 + Double(rng.next() % 150) / 1000)
            let (lines, stderr) = child.kill()
            #expect(stderr.isEmpty, "iteration \(iteration): \(stderr)")

            let state = try inspect(path)
            #expect(state.items.count == Self.items, "iteration \(iteration)")
            #expect(Set(state.items.map(\.label)) == Set((0..<Self.items).map { "item \($0)" }))
            if state.version == "2.0.0" {
                #expect(state.items.allSatisfy { $0.upper == $0.label.uppercased() }, "iteration \(iteration): a half-migrated store")
            } else {
                sawOld = true
                #expect(state.version == "", "iteration \(iteration): version \(state.version)")
                #expect(!lines.contains("migrated"), "iteration \(iteration): acknowledged but not recorded")
            }
            // Running it again finishes the job.
            let again = try runTool("graphstore-crashtest", [path, "--migrate"])
            #expect(again.status == 0, "\(again.stderr)")
            let final = try inspect(path)
            #expect(final.version == "2.0.0")
            #expect(final.items.count == Self.items && final.items.allSatisfy { $0.upper == $0.label.uppercased() })
        }
        #expect(sawOld, "no kill landed before the migration committed")
    }
}

@Suite struct SchemaHistoryToolTests {
    @Test func infoListsTheSchemaVersions() throws {
        let dir = TemporaryDirectory()
        let path = dir.store()
        #expect(try runTool("graphstore-crashtest", [path, "--migration-seed", "10"]).status == 0)
        #expect(try runTool("graphstore-crashtest", [path, "--migrate"]).status == 0)
        let info = try runTool("graphstore", ["info", path])
        #expect(info.status == 0, "\(info.stderr)")
        #expect(info.stdout.contains("schema versions:    2"), "\(info.stdout)")
        #expect(info.stdout.contains("1. at transaction 1,"))
        #expect(info.stdout.contains("(version 2.0.0): Item(3+0)"), "\(info.stdout)")
        let history = try runTool("graphstore", ["history", path])
        #expect(history.stdout.contains("migration 1.0.0 → 2.0.0"), "\(history.stdout)")
    }
}

import Foundation
import Testing

@Suite struct EnrouteToolTests {
    @Test func statusOpensTheStoreItIsGiven() throws {
        let dir = TemporaryDirectory()
        let result = try runTool("enroute", ["--store", dir.store()])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("Enroute store at \(dir.store())"))
        #expect(FileManager.default.fileExists(atPath: dir.store() + "/LOCK"))
    }

    @Test func defaultStoreLivesUnderHome() throws {
        let home = TemporaryDirectory()
        let result = try runTool("enroute", [], environment: ["HOME": home.path])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(FileManager.default.fileExists(atPath: home.path + "/.graphstore/enroute"))
    }

    @Test func badArgumentsPrintUsage() throws {
        let result = try runTool("enroute", ["--frob"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("usage: enroute"))
        #expect(try runTool("enroute", ["--help"]).status == 0)
    }
}

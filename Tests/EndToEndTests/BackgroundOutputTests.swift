import Foundation
import Testing
import ToolSupport
#if canImport(Glibc)
import Glibc
#endif

/// Output written on a thread of its own: every chunk, in order, before `streaming` returns;
/// a refused write thrown with its errno (a full disk, a closed descriptor), the chunks after it
/// dropped; the body's own error rethrown once what it wrote is out.
@Suite struct BackgroundOutputTests {
    func chunks() -> [Data] {
        var random = UInt64(7)
        return (0..<300).map { i in
            random = random &* 6364136223846793005 &+ 1442695040888963407
            return Data(repeating: UInt8(i % 251), count: Int(random >> 40) % 70_000)
        }
    }

    @Test(arguments: [1, 4]) func everyChunkArrivesInOrder(depth: Int) throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/out"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let written = chunks()
        let count = try BackgroundOutput.streaming(to: descriptor, named: "the test file", depth: depth) { output in
            for chunk in written { try output.write(chunk) }
            return written.count
        }
        #expect(count == 300)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == written.reduce(Data(), +))
    }

    @Test func aFullDiskIsThrownWithWhereAndWhy() throws {
        let descriptor = open("/dev/full", O_WRONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var accepted = 0
        let thrown = #expect(throws: BackgroundOutput.WriteFailed.self) {
            try BackgroundOutput.streaming(to: descriptor, named: "the full device", depth: 1) { output in
                // One chunk waits at most: the second write is refused if the first has failed
                // by then, else waits for it to fail, so the third is refused at the latest.
                for chunk in chunks() {
                    try output.write(chunk)
                    accepted += 1
                }
            }
        }
        #expect((1...2).contains(accepted))
        #expect(thrown?.destination == "the full device" && thrown?.code == ENOSPC)
        #expect(thrown.map { "\($0)" }?.contains("writing the full device failed: No space left on device") == true)
    }

    @Test func aClosedDescriptorIsThrownWhenStreamingEnds() throws {
        let descriptor = open("/dev/null", O_WRONLY)
        close(descriptor)
        let thrown = #expect(throws: BackgroundOutput.WriteFailed.self) {
            try BackgroundOutput.streaming(to: descriptor, named: "a closed file") { try $0.write(Data("[]".utf8)) }
        }
        #expect(thrown?.code == EBADF)
    }

    struct Stopped: Error {}

    @Test func theBodysErrorIsRethrownOnceItsOutputIsWritten() throws {
        let dir = TemporaryDirectory()
        let path = dir.path + "/out"
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        let written = Array(chunks().prefix(20))
        #expect(throws: Stopped.self) {
            try BackgroundOutput.streaming(to: descriptor, depth: 2) { output in
                for chunk in written { try output.write(chunk) }
                throw Stopped()
            }
        }
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == written.reduce(Data(), +))
    }
}

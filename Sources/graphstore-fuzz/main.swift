import Foundation
import GraphStoreFuzzTargets

// graphstore-fuzz: the fuzz targets (Sources/GraphStoreFuzzTargets). Built with libFuzzer by
// Fuzz/run.sh (with -D FUZZING), it fuzzes the target named by GRAPHSTORE_FUZZ_TARGET; built as
// usual, it replays files through a target, and writes the seed corpora:
//
//     graphstore-fuzz run TARGET FILE...      each file through TARGET (a crasher reproduces)
//     graphstore-fuzz seeds DIR               DIR/TARGET/seed-N for every target

#if FUZZING
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(_ argc: UnsafeMutablePointer<Int32>,
                         _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>>,
                         _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32) -> Int32

guard let name = ProcessInfo.processInfo.environment["GRAPHSTORE_FUZZ_TARGET"], let chosen = FuzzTarget(rawValue: name) else {
    FileHandle.standardError.write(Data("graphstore-fuzz: set GRAPHSTORE_FUZZ_TARGET to one of \(FuzzTarget.allCases.map(\.rawValue))\n".utf8))
    exit(2)
}
// A C callback captures nothing: the target goes through a global.
nonisolated(unsafe) var target = chosen
var argc = CommandLine.argc
var argv = CommandLine.unsafeArgv
exit(LLVMFuzzerRunDriver(&argc, &argv) { data, count in
    target.run(count == 0 ? [] : Array(UnsafeBufferPointer(start: data, count: count)))
    return 0
})
#else
func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("graphstore-fuzz: \(message)\n".utf8))
    exit(2)
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "run":
    guard arguments.count >= 2, let target = FuzzTarget(rawValue: arguments[1]) else {
        fail("usage: graphstore-fuzz run TARGET FILE... (targets: \(FuzzTarget.allCases.map(\.rawValue).joined(separator: ", ")))")
    }
    for file in arguments.dropFirst(2) {
        guard let data = FileManager.default.contents(atPath: file) else { fail("cannot read \(file)") }
        target.run([UInt8](data))
        print("\(file): ok")
    }
case "seeds":
    guard arguments.count == 2 else { fail("usage: graphstore-fuzz seeds DIR") }
    for target in FuzzTarget.allCases {
        let directory = URL(fileURLWithPath: arguments[1]).appendingPathComponent(target.rawValue)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        for (i, seed) in FuzzSeeds.seeds(for: target).enumerated() {
            try Data(seed).write(to: directory.appendingPathComponent("seed-\(i)"))
        }
    }
default:
    fail("usage: graphstore-fuzz run TARGET FILE... | graphstore-fuzz seeds DIR")
}
#endif

import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A progress bar on standard error, drawn only when it is a terminal (so logs and pipes stay clean).
public final class ProgressBar {
    private let label: String
    private let enabled: Bool
    private var lastDrawn = -1

    public init(_ label: String, enabled: Bool = isatty(2) != 0) {
        self.label = label
        self.enabled = enabled
    }

    /// Draws `fraction` (0...1) done.
    public func update(_ fraction: Double) {
        guard enabled else { return }
        let percent = Int((min(max(fraction, 0), 1) * 100).rounded(.down))
        guard percent != lastDrawn else { return }
        lastDrawn = percent
        let width = 30
        let filled = width * percent / 100
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: width - filled)
        FileHandle.standardError.write(Data("\r\(label) [\(bar)] \(percent)%".utf8))
    }

    public func finish() {
        guard enabled, lastDrawn >= 0 else { return }
        FileHandle.standardError.write(Data("\r\(String(repeating: " ", count: label.count + 40))\r".utf8))
    }
}

/// File names that carry a number in 20 zero-padded decimal digits, so that listing a directory
/// sorts them: `log-00000000000000000007.gslog`, `checkpoint-00000000000000004120.gsckpt`.
package struct NumberedFileName {
    package let prefix: String
    package let fileExtension: String

    package init(prefix: String, fileExtension: String) {
        self.prefix = prefix
        self.fileExtension = fileExtension
    }

    package func name(_ number: UInt64) -> String {
        let digits = String(number)
        return prefix + String(repeating: "0", count: max(0, 20 - digits.count)) + digits + fileExtension
    }

    /// The number in `fileName`, or nil for any other file.
    package func number(in fileName: String) -> UInt64? {
        guard fileName.hasPrefix(prefix), fileName.hasSuffix(fileExtension) else { return nil }
        let digits = fileName.dropFirst(prefix.count).dropLast(fileExtension.count)
        guard digits.count == 20, digits.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return UInt64(digits)
    }
}

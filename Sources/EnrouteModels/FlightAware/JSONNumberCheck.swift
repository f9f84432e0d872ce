/// Finds the first number in a JSON document that no number type can hold, with its JSON path:
/// Foundation's parser refuses such a document as a whole ("not valid JSON") without saying
/// where. Run only on a document the parser refused. One pass, no recursion (a document nested
/// a million deep takes a stack of a million small entries, not a million frames), and any bytes
/// at all end in a finding or in nil.
enum JSONNumberCheck {
    struct Finding: Equatable {
        var path: String
        var literal: String
    }

    private enum Container {
        case object(key: String?)
        case array(index: Int)
    }

    /// The first number no number type holds: an integer beyond Int64, a number beyond Double;
    /// failing those, the first number written with a fraction or an exponent whose integral
    /// value is beyond Int64 (a decoder refuses it for an integer field).
    static func firstUnrepresentableNumber(in bytes: [UInt8]) -> Finding? {
        firstNumber(in: bytes) { !fits($0) } ?? firstNumber(in: bytes) { literal in
            guard let value = Double(literal) else { return false }
            return value.rounded() == value && abs(value) >= 9.223372036854775807e18
        }
    }

    private static func firstNumber(in bytes: [UInt8], where isWanted: (String) -> Bool) -> Finding? {
        var stack: [Container] = []
        var i = 0
        // In an object: whether the next string is a key (true) or a value.
        var expectingKey = false

        func path() -> String {
            stack.reduce("$") { path, container in
                switch container {
                case let .object(key): return key.map { path + "." + $0 } ?? path
                case let .array(index): return path + "[\(index)]"
                }
            }
        }

        while i < bytes.count {
            let byte = bytes[i]
            switch byte {
            case UInt8(ascii: "{"):
                stack.append(.object(key: nil))
                expectingKey = true
                i += 1
            case UInt8(ascii: "["):
                stack.append(.array(index: 0))
                expectingKey = false
                i += 1
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                if !stack.isEmpty { stack.removeLast() }
                expectingKey = false
                i += 1
            case UInt8(ascii: ","):
                if case let .array(index)? = stack.last {
                    stack[stack.count - 1] = .array(index: index + 1)
                } else if case .object? = stack.last {
                    stack[stack.count - 1] = .object(key: nil)
                    expectingKey = true
                }
                i += 1
            case UInt8(ascii: ":"):
                expectingKey = false
                i += 1
            case UInt8(ascii: "\""):
                let (text, next) = string(bytes, from: i + 1)
                if expectingKey, case .object? = stack.last { stack[stack.count - 1] = .object(key: text) }
                i = next
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                var end = i + 1
                while end < bytes.count, isNumberByte(bytes[end]) { end += 1 }
                let literal = String(decoding: bytes[i..<end], as: UTF8.self)
                if isWanted(literal) { return Finding(path: path(), literal: literal) }
                i = end
            default:
                i += 1
            }
        }
        return nil
    }

    /// A string's text (escapes kept as written: keys are compared as the document spells them)
    /// and the index after its closing quote.
    private static func string(_ bytes: [UInt8], from start: Int) -> (String, Int) {
        var i = start
        while i < bytes.count, bytes[i] != UInt8(ascii: "\"") {
            i += bytes[i] == UInt8(ascii: "\\") ? 2 : 1
        }
        let end = min(i, bytes.count)
        return (String(decoding: bytes[start..<end], as: UTF8.self), min(end + 1, bytes.count))
    }

    private static func isNumberByte(_ byte: UInt8) -> Bool {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e")
            || byte == UInt8(ascii: "E") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-")
    }

    /// Whether a number literal fits a JSON number type: an integer in Int64, or a finite Double.
    private static func fits(_ literal: String) -> Bool {
        let isInteger = !literal.contains(where: { $0 == "." || $0 == "e" || $0 == "E" })
        if isInteger { return Int64(literal) != nil }
        guard let value = Double(literal) else { return true }  // not a number at all: the parser's to report
        return value.isFinite
    }
}

/// A small command-line parser shared by the `enroute` and `graphstore` tools (the root package
/// takes no dependencies, so no ArgumentParser): flags, options with values, positionals.
public struct Arguments {
    public struct UsageError: Error, CustomStringConvertible {
        public var message: String
        public init(_ message: String) { self.message = message }
        public var description: String { message }
    }

    public private(set) var positionals: [String] = []
    private var flags: Set<String> = []
    private var values: [String: [String]] = [:]

    /// Parses `arguments`; `flags` take no value, `options` take one ("--to 5" or "--to=5").
    /// Anything starting with "--" that is neither is a usage error, and so is an option given
    /// twice (which one was meant cannot be told).
    public init(_ arguments: [String], flags allowedFlags: Set<String> = [], options allowedOptions: Set<String> = []) throws {
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            guard argument.hasPrefix("-"), argument != "-" else {
                positionals.append(argument)
                continue
            }
            if argument == "--" {
                positionals.append(contentsOf: arguments[index...])
                break
            }
            var name = argument
            var inlineValue: String?
            if let equals = argument.firstIndex(of: "=") {
                name = String(argument[..<equals])
                inlineValue = String(argument[argument.index(after: equals)...])
            }
            if allowedFlags.contains(name) {
                guard inlineValue == nil else { throw UsageError("\(name) takes no value") }
                flags.insert(name)
            } else if allowedOptions.contains(name) {
                guard values[name] == nil else { throw UsageError("\(name) is given more than once") }
                if let inlineValue {
                    values[name, default: []].append(inlineValue)
                } else {
                    guard index < arguments.count else { throw UsageError("\(name) needs a value") }
                    values[name, default: []].append(arguments[index])
                    index += 1
                }
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    public func flag(_ name: String) -> Bool { flags.contains(name) }

    /// The value given for an option.
    public func value(_ name: String) -> String? { values[name]?.last }

    public func integer(_ name: String) throws -> Int? {
        guard let text = value(name) else { return nil }
        guard let number = Int(text) else { throw UsageError("\(name) needs a whole number, not \(String(reflecting: text))") }
        return number
    }
}

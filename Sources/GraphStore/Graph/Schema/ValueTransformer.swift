import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

#if !canImport(Darwin)
/// Foundation's ValueTransformer, for platforms whose Foundation has none (Linux): what a
/// transformable attribute (`@Attribute(.transformable(by: ColorTransformer.self))`) stores is
/// the `Data` its transformer makes of the value. On Apple platforms it is Foundation's own.
open class ValueTransformer {
    /// A transformer; subclasses override the transformations.
    public required init() {}

    /// The class of what `transformedValue(_:)` returns (`NSData` unless overridden).
    open class func transformedValueClass() -> AnyClass { NSData.self }
    /// Whether `reverseTransformedValue(_:)` undoes `transformedValue(_:)` (true unless overridden).
    open class func allowsReverseTransformation() -> Bool { true }
    /// The stored form of `value`: for a transformable attribute, its `Data`.
    open func transformedValue(_ value: Any?) -> Any? { value }
    /// By default the forward transformation, when reversible (as Foundation's does).
    open func reverseTransformedValue(_ value: Any?) -> Any? {
        Self.allowsReverseTransformation() ? transformedValue(value) : nil
    }

    private static let registered = Locked<[NSValueTransformerName: ValueTransformer]>([:])

    /// Registers (or, with nil, removes) a transformer under a name.
    public class func setValueTransformer(_ transformer: ValueTransformer?, forName name: NSValueTransformerName) {
        registered.withLock { $0[name] = transformer }
    }

    /// The transformer registered under `name`. (Foundation spells this `ValueTransformer(forName:)`,
    /// a factory initialiser Swift classes cannot declare.)
    public class func transformer(forName name: NSValueTransformerName) -> ValueTransformer? {
        registered.withLock { $0[name] }
    }

    /// The names transformers are registered under.
    public class func valueTransformerNames() -> [NSValueTransformerName] {
        registered.withLock { Array($0.keys) }
    }
}

/// The name a ValueTransformer is registered under.
public struct NSValueTransformerName: RawRepresentable, Hashable, Sendable {
    /// The name.
    public let rawValue: String
    /// The name `rawValue`.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The name `rawValue`.
    public init(_ rawValue: String) { self.rawValue = rawValue }
}
#endif

extension ValueTransformer {
    /// The transformer registered under `name`, on every platform.
    package static func registered(named name: String) -> ValueTransformer? {
        #if canImport(Darwin)
        ValueTransformer(forName: NSValueTransformerName(name))
        #else
        ValueTransformer.transformer(forName: NSValueTransformerName(name))
        #endif
    }
}

/// The transformers that `AttributeOptions.transformable(by:)` names, by number (the number is
/// kept in the options; numbers start at 1 and last for the life of the process).
package enum ValueTransformers {
    package enum Source: @unchecked Sendable {
        case type(ValueTransformer.Type)
        case named(String)

        package var key: String {
            switch self {
            case let .type(type): return "type \(ObjectIdentifier(type).hashValue)"
            case let .named(name): return "name \(name)"
            }
        }
    }

    private static let sources = Locked<(list: [Source], numbers: [String: UInt32])>(([], [:]))

    package static func number(for source: Source) -> UInt32 {
        sources.withLock { state in
            if let known = state.numbers[source.key] { return known }
            state.list.append(source)
            let number = UInt32(state.list.count)
            state.numbers[source.key] = number
            return number
        }
    }

    package static func isType(number: UInt32) -> Bool {
        sources.withLock { state in
            guard number >= 1 && number <= state.list.count, case .type = state.list[Int(number) - 1] else { return false }
            return true
        }
    }

    /// A transformer for the source numbered `number`: a new instance of a type, or the one
    /// registered under a name (nil if none is).
    package static func transformer(number: UInt32) -> ValueTransformer? {
        guard let source = sources.withLock({ state in number >= 1 && number <= state.list.count ? state.list[Int(number) - 1] : nil }) else {
            return nil
        }
        switch source {
        case let .type(type): return type.init()
        case let .named(name): return ValueTransformer.registered(named: name)
        }
    }
}

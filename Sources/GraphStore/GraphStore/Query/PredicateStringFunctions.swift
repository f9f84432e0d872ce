import Foundation

#if !canImport(Darwin)
// Foundation on Apple platforms lets #Predicate call localizedStandardContains,
// caseInsensitiveCompare and localizedCompare; on Linux the macro's expansion finds no
// implementation ("no member build_localizedStandardContains"). These supply it, with the
// same meaning, so the same predicates compile and run everywhere.
extension PredicateExpressions {
    /// `a.localizedStandardContains(b)`: b occurs in a, ignoring case and diacritics.
    public struct LocalizedStandardContains<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The expression's value type.
        public typealias Output = Bool
        /// The string searched.
        public let root: Root
        /// The string searched for.
        public let other: Other

        /// `root.localizedStandardContains(other)`.
        public init(root: Root, other: Other) {
            self.root = root
            self.other = other
        }

        /// Whether `other` occurs in `root`, ignoring case and diacritics.
        public func evaluate(_ bindings: PredicateBindings) throws -> Bool {
            let text = String(try root.evaluate(bindings)), fragment = String(try other.evaluate(bindings))
            return text.range(of: fragment, options: [.caseInsensitive, .diacriticInsensitive], locale: .current) != nil
        }
    }

    /// `a.caseInsensitiveCompare(b)` and `a.localizedCompare(b)`.
    public struct StringComparison<Root: PredicateExpression, Other: PredicateExpression>: PredicateExpression
    where Root.Output: StringProtocol, Other.Output: StringProtocol {
        /// The expression's value type.
        public typealias Output = ComparisonResult
        /// The receiving string.
        public let root: Root
        /// The string compared with.
        public let other: Other
        /// True for `caseInsensitiveCompare`, false for `localizedCompare`.
        public let caseInsensitive: Bool

        /// `root.caseInsensitiveCompare(other)` or `root.localizedCompare(other)`.
        public init(root: Root, other: Other, caseInsensitive: Bool) {
            self.root = root
            self.other = other
            self.caseInsensitive = caseInsensitive
        }

        /// How `root` orders against `other`.
        public func evaluate(_ bindings: PredicateBindings) throws -> ComparisonResult {
            let a = String(try root.evaluate(bindings)), b = String(try other.evaluate(bindings))
            return caseInsensitive ? a.compare(b, options: .caseInsensitive) : a.compare(b, options: [], range: nil, locale: .current)
        }
    }

    /// What `#Predicate` builds for `a.localizedStandardContains(b)` (Foundation on Linux has no
    /// such expression).
    public static func build_localizedStandardContains<Root, Other>(_ root: Root, _ other: Other) -> LocalizedStandardContains<Root, Other> {
        LocalizedStandardContains(root: root, other: other)
    }

    /// What `#Predicate` builds for `a.caseInsensitiveCompare(b)`.
    public static func build_caseInsensitiveCompare<Root, Other>(_ root: Root, _ other: Other) -> StringComparison<Root, Other> {
        StringComparison(root: root, other: other, caseInsensitive: true)
    }

    /// What `#Predicate` builds for `a.localizedCompare(b)`.
    public static func build_localizedCompare<Root, Other>(_ root: Root, _ other: Other) -> StringComparison<Root, Other> {
        StringComparison(root: root, other: other, caseInsensitive: false)
    }
}

extension PredicateExpressions.LocalizedStandardContains: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.LocalizedStandardContains: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.LocalizedStandardContains: Sendable where Root: Sendable, Other: Sendable {}

extension PredicateExpressions.StringComparison: StandardPredicateExpression
where Root: StandardPredicateExpression, Other: StandardPredicateExpression {}
extension PredicateExpressions.StringComparison: Codable where Root: Codable, Other: Codable {}
extension PredicateExpressions.StringComparison: Sendable where Root: Sendable, Other: Sendable {}
#endif

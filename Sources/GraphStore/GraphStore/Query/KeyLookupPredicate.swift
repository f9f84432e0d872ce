import Foundation

/// `#Predicate { $0.key == constant }`: the shape of a lookup by key. Conforming only when the
/// left side is a key path straight off the input and the right a constant, so a single cast of
/// the whole predicate tells a fetch it can go to the unique index without planning or
/// compiling anything.
protocol KeyEqualsConstantPredicate {
    var keyPath: AnyKeyPath { get }
    var constant: Any { get }
}

protocol KeyPathOffInput {
    var keyPathOffInput: AnyKeyPath { get }
}

protocol VariableExpression {}
extension PredicateExpressions.Variable: VariableExpression {}

extension PredicateExpressions.KeyPath: KeyPathOffInput where Root: VariableExpression {
    var keyPathOffInput: AnyKeyPath { keyPath }
}

/// A constant (`PredicateExpressions.Value`), for the lookup shape above.
protocol ConstantExpression {
    var constant: Any { get }
}

extension PredicateExpressions.Value: ConstantExpression {
    var constant: Any { value }
}

extension PredicateExpressions.Equal: KeyEqualsConstantPredicate where LHS: KeyPathOffInput, RHS: ConstantExpression {
    var keyPath: AnyKeyPath { lhs.keyPathOffInput }
    var constant: Any { rhs.constant }
}

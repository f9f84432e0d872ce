import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// `#Predicate { $0.key == constant }`: the shape of a lookup by key. Conforming only when the
/// left side is a key path straight off the input and the right a constant, so a single cast of
/// the whole predicate tells a fetch it can go to the unique index without planning or
/// compiling anything.
protocol KeyEqualsConstantPredicate {
    var keyPath: AnyKeyPath { get }
    var constant: Any { get }
}

extension KeyEqualsConstantPredicate {
    /// The key path and constant of `expression`, which is of this very type (the caller
    /// found `E` to be this type): taken as it is, without a run-time cast.
    static func parts<E>(of expression: E) -> (keyPath: AnyKeyPath, constant: Any) {
        precondition(E.self == Self.self, "a lookup's parts taken as another type")
        let lookup = unsafeBitCast(expression, to: Self.self)
        return (lookup.keyPath, lookup.constant)
    }
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

/// A constant of a `Storable` type (a `String`, an `Int`, an optional of one): its stored form
/// comes from its own conformance, where a constant taken as `Any` is found by run-time casts
/// (`QueryPlanner.storedValue`), which cost a lookup by key about a tenth of its time.
protocol StorableConstantExpression: ConstantExpression {
    var storedConstant: GraphStoreCore.Value { get }
}

extension PredicateExpressions.Value: StorableConstantExpression where Output: Storable {
    var storedConstant: GraphStoreCore.Value { value.storedValue }
}

/// A lookup by key whose constant is `Storable` (the usual case: found once per expression
/// type, as the lookup shape is).
protocol KeyEqualsStorableConstantPredicate: KeyEqualsConstantPredicate {
    var storedConstant: GraphStoreCore.Value { get }
}

extension PredicateExpressions.Equal: KeyEqualsStorableConstantPredicate where LHS: KeyPathOffInput, RHS: StorableConstantExpression {
    var storedConstant: GraphStoreCore.Value { rhs.storedConstant }
}

extension KeyEqualsStorableConstantPredicate {
    /// The key path and the constant's stored form of `expression`, which is of this very type.
    static func storedParts<E>(of expression: E) -> (keyPath: AnyKeyPath, value: GraphStoreCore.Value) {
        precondition(E.self == Self.self, "a lookup's parts taken as another type")
        let lookup = unsafeBitCast(expression, to: Self.self)
        return (lookup.keyPath, lookup.storedConstant)
    }
}

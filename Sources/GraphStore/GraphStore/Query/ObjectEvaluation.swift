import CSwiftRuntime

/// Runs `body`, which evaluates a `#Predicate` or sort on model objects. An unsaved object may
/// not have its non-optional relationships set yet; reading one then would stop the program, so
/// while a predicate runs it reads as a detached object instead (its attributes at their
/// declared defaults, linked to nothing) and the comparison goes on. Nothing can be written
/// through it: the predicate only reads.
package func evaluatingOnObjects<R>(_ body: () throws -> R) rethrows -> R {
    graphstore_predicate_evaluation_adjust(1)
    defer { graphstore_predicate_evaluation_adjust(-1) }
    return try body()
}

/// True while this thread is inside `evaluatingOnObjects`.
package var isEvaluatingOnObjects: Bool { graphstore_predicate_evaluation_depth() > 0 }

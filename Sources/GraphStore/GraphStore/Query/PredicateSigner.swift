import Foundation
@_spi(GraphStoreInternals) import GraphStoreCore

/// Signs every expression of one type where it lies (see `PredicateSignature`): the byte offset
/// in the value of each key path, comparison operator and constant, in the order a walk of the
/// tree meets them, found once per type from the types' own field layout.
///
/// Foundation's expression types are resilient: reading a node's child goes through its getter,
/// which copies the whole subtree, so a walk of the tree copied each node once per level above
/// it, with every captured string. Reading the leaves at their offsets copies nothing but them.
struct PredicateSigner {
    private enum Step {
        case keyPath(offset: Int)
        case comparison(offset: Int)
        // The constants apps capture most, read as their type: a constant of a type known only
        // at run time is signed through generic code, a type comparison and a copy at a time.
        case bool(offset: Int)
        case optionalBool(offset: Int)
        case string(offset: Int)
        case optionalString(offset: Int)
        case int(offset: Int)
        case date(offset: Int)
        case constant(offset: Int, sign: (UnsafeRawPointer, inout PredicateSignature, inout SlotValues) -> Void)
    }

    private var steps: [Step] = []
    /// How many of each a signing appends, for the room it makes first.
    private var keyPathCount = 0, constantCount = 0, operatorCount = 0

    /// The signer of `type`'s expressions; nil when a field's place is not known.
    static func of(_ type: any PredicateNodeConvertible.Type) -> PredicateSigner? {
        var signer = PredicateSigner()
        return type.addSigningSteps(at: 0, to: &signer) ? signer : nil
    }

    mutating func addKeyPath(at offset: Int) {
        keyPathCount += 1
        steps.append(.keyPath(offset: offset))
    }

    mutating func addOperator(at offset: Int) {
        operatorCount += 1
        steps.append(.comparison(offset: offset))
    }

    mutating func addConstant<T>(at offset: Int, of type: T.Type) {
        constantCount += 1
        // Exact types (a metatype cast could match an Optional's wrapped type).
        if T.self == Bool.self {
            steps.append(.bool(offset: offset))
        } else if T.self == Bool?.self {
            steps.append(.optionalBool(offset: offset))
        } else if T.self == String.self {
            steps.append(.string(offset: offset))
        } else if T.self == String?.self {
            steps.append(.optionalString(offset: offset))
        } else if T.self == Int.self {
            steps.append(.int(offset: offset))
        } else if T.self == Date.self {
            steps.append(.date(offset: offset))
        } else {
            steps.append(.constant(offset: offset) { pointer, signature, constants in
                signature.append(constant: pointer.assumingMemoryBound(to: T.self).pointee, to: &constants)
            })
        }
    }

    /// Where a lookup by key (`$0.key == constant`: signed by its key path, then its constant)
    /// keeps its two parts, when the constant is a String, an optional one or an Int. Read
    /// there, a lookup copies nothing of the expression but the two parts: a copy of the whole
    /// expression through its generic value witnesses cost a lookup more than the rest of
    /// finding its parts.
    struct KeyLookupLayout {
        enum Constant { case string(offset: Int), optionalString(offset: Int), int(offset: Int) }
        let keyPath: Int
        let constant: Constant

        /// The key path and the constant's stored form of `expression`, of the type the layout
        /// was found for.
        func parts<E>(of expression: borrowing E) -> (keyPath: AnyKeyPath, value: GraphStoreCore.Value) {
            withUnsafePointer(to: expression) { typed in
                let base = UnsafeRawPointer(typed)
                let keyPath = base.load(fromByteOffset: self.keyPath, as: AnyKeyPath.self)
                switch constant {
                case let .string(offset):
                    return (keyPath, .string((base + offset).assumingMemoryBound(to: String.self).pointee))
                case let .optionalString(offset):
                    return (keyPath, (base + offset).assumingMemoryBound(to: String?.self).pointee.map { .string($0) } ?? .null)
                case let .int(offset):
                    return (keyPath, .int(Int64(base.load(fromByteOffset: offset, as: Int.self))))
                }
            }
        }
    }

    /// The layout of a lookup by key, for a signer of that shape's type (the caller knows it is
    /// one); nil when its constant is of another type.
    var keyLookupLayout: KeyLookupLayout? {
        guard steps.count == 2, case let .keyPath(keyPath) = steps[0] else { return nil }
        switch steps[1] {
        case let .string(offset): return KeyLookupLayout(keyPath: keyPath, constant: .string(offset: offset))
        case let .optionalString(offset): return KeyLookupLayout(keyPath: keyPath, constant: .optionalString(offset: offset))
        case let .int(offset): return KeyLookupLayout(keyPath: keyPath, constant: .int(offset: offset))
        default: return nil
        }
    }

    /// The signature of `expression`, of the type this signer was made for, and its constants.
    func sign<E>(_ expression: borrowing E, retainingKeyPaths: Bool = false) -> (signature: PredicateSignature, constants: SlotValues) {
        var signature = PredicateSignature(retainingKeyPaths: retainingKeyPaths, keyPaths: keyPathCount,
                                           details: constantCount + operatorCount)
        var constants = SlotValues(reservingCapacity: constantCount)
        withUnsafePointer(to: expression) { typed in
            let base = UnsafeRawPointer(typed)
            for step in steps {
                switch step {
                case let .keyPath(offset):
                    signature.append(base.load(fromByteOffset: offset, as: AnyKeyPath.self))
                case let .comparison(offset):
                    signature.append((base + offset).assumingMemoryBound(to: PredicateExpressions.ComparisonOperator.self).pointee)
                case let .bool(offset):
                    signature.append(constant: base.load(fromByteOffset: offset, as: Bool.self), to: &constants)
                case let .optionalBool(offset):
                    signature.append(constant: base.load(fromByteOffset: offset, as: Bool?.self), to: &constants)
                case let .string(offset):
                    signature.append(constant: (base + offset).assumingMemoryBound(to: String.self).pointee, to: &constants)
                case let .optionalString(offset):
                    signature.append(constant: (base + offset).assumingMemoryBound(to: String?.self).pointee, to: &constants)
                case let .int(offset):
                    signature.append(constant: base.load(fromByteOffset: offset, as: Int.self), to: &constants)
                case let .date(offset):
                    signature.append(constant: base.load(fromByteOffset: offset, as: Date.self), to: &constants)
                case let .constant(offset, sign):
                    sign(base + offset, &signature, &constants)
                }
            }
        }
        return (signature, constants)
    }
}

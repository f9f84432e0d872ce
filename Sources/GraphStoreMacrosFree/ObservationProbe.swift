import CSwiftRuntime
import Observation

/// Answers "is Observation tracking accesses on this thread right now?", which the Observation
/// runtime keeps to itself (its thread-local access list is not an exported symbol).
///
/// Why it matters: an `ObservationRegistrar` is two allocations, made and freed with every
/// object, for objects that nothing observes. Observation only ever learns of
/// an object through a read made inside `withObservationTracking` (SwiftUI, `Observations` and
/// our own live results all go through it), so an object needs a registrar only from its first
/// read under tracking: `Model` makes it then.
///
/// How: a registrar of the probe's own records an access to a key path whose subscript argument
/// is a `Marker`. While tracking, `ObservationRegistrar.access` adds the key path to its access
/// list, a `Set`, which hashes the key path and so the marker, and the marker sets a thread-local
/// flag; outside tracking `access` does nothing. When tracking installs its observers the probe's
/// registrar gets one too; it never fires, and it goes when the tracking is cancelled (on the
/// first change of any object it read, which always includes the object the probe was made for).
///
/// `works` checks once that the Observation runtime still hashes what it records; if it ever does
/// not, every object makes its registrar on its first read, as if always tracked.
@usableFromInline
final class ObservationProbe: Observable, @unchecked Sendable {
    /// The one probe (its registrar holds nothing between trackings).
    static let shared: ObservationProbe = {
        let probe = ObservationProbe()
        graphstore_observation_probe_store(UInt(bitPattern: Unmanaged.passUnretained(probe).toOpaque()))
        return probe
    }()

    /// Whether accesses on this thread are being tracked: what every property read asks.
    @usableFromInline
    static func isTracking() -> Bool {
        // `shared` kept, once made, where reading it costs no check of its initialiser.
        let address = graphstore_observation_probe_load()
        guard address != 0 else { return shared.isTracking() }
        return Unmanaged<ObservationProbe>.fromOpaque(UnsafeRawPointer(bitPattern: address)!)._withUnsafeGuaranteedRef { $0.isTracking() }
    }

    private let registrar = ObservationRegistrar()
    private let keyPath: KeyPath<ObservationProbe, Int> = \ObservationProbe.[marker: Marker()]
    /// Whether hashing reveals tracking on this toolchain (checked once, on a registrar of its own).
    private let works: Bool

    private init() {
        let trial = ObservationProbe(checking: ())
        var seen = false
        withObservationTracking { seen = trial.hashesWhileTracked() } onChange: {}
        // Only the positive half can be checked: this may run inside someone's tracking.
        works = seen
    }

    private init(checking: Void) { works = true }

    subscript(marker marker: Marker) -> Int { 0 }

    /// Whether accesses on this thread are being tracked (always true if probing does not work).
    func isTracking() -> Bool {
        works ? hashesWhileTracked() : true
    }

    private func hashesWhileTracked() -> Bool {
        graphstore_observation_probe_clear()
        registrar.access(self, keyPath: keyPath)
        return graphstore_observation_probe_was_hashed()
    }

    /// The subscript argument: equal to every other marker, and noting when it is hashed.
    struct Marker: Hashable {
        static func == (lhs: Marker, rhs: Marker) -> Bool { true }
        func hash(into hasher: inout Hasher) {
            graphstore_observation_probe_note_hashed()
            hasher.combine(0)
        }
    }
}

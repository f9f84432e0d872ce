// The one Swift runtime entry point GraphStore calls directly (Swift code may not name runtime
// symbols itself), see Sources/GraphStore/Context/ObjectRegistry.swift; a C atomic for
// schema discovery, see Sources/GraphStoreMacrosFree/DeclarationRecording.swift; the calling
// thread's number, for ContextUse; thread-locals for ObservationProbe, the main queue and model
// executors (Swift has no thread-local variables of its own); a two-word mutex for the identity
// map (WordLock); a readers-writer lock for the graph
// (ReadWriteLock); the size of an object's allocation (see
// Sources/GraphStoreMacrosFree/SlotLocator.swift); a prefetch and relaxed atomics for
// AttributeReadAhead; and the CPU's CRC-32C instruction, see
// Sources/GraphStore/Storage/CRC32C.swift.
#ifndef CSWIFTRUNTIME_H
#define CSWIFTRUNTIME_H

#include <pthread.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/// Retains a Swift object unless its deinit has begun: returns the object, or NULL (taking
/// nothing). Exported by libswiftCore on every platform: it is what loading a weak reference uses.
extern void *swift_tryRetain(void *object);

/// Whether `object` was retained.
static inline bool graphstore_try_retain(void *object) { return swift_tryRetain(object) != 0; }

/// The usable size of a block from malloc: at least what was asked for, all of it readable.
size_t graphstore_allocation_size(const void *block);

/// How many schema discoveries are recording wrapper declarations right now (any thread).
extern _Atomic long graphstore_recording_sessions;

/// Read by every property wrapper's initialiser, so relaxed: a thread that reads a stale value
/// either checks (and finds it is not the recording thread) or skips, and both are right for it.
static inline bool graphstore_recording_sessions_running(void) {
    return atomic_load_explicit(&graphstore_recording_sessions, memory_order_relaxed) != 0;
}

static inline void graphstore_recording_sessions_add(long delta) {
    atomic_fetch_add_explicit(&graphstore_recording_sessions, delta, memory_order_relaxed);
}

/// A word read with acquire ordering, and one written with release ordering: an insert-only
/// table publishes an entry by its key's store, and readers see the value written before it
/// (IdentityTable).
static inline uintptr_t graphstore_load_acquire(const uintptr_t *address) {
    return __atomic_load_n(address, __ATOMIC_ACQUIRE);
}

static inline void graphstore_store_release(uintptr_t *address, uintptr_t value) {
    __atomic_store_n(address, value, __ATOMIC_RELEASE);
}

/// The observation probe (Sources/GraphStoreMacrosFree/ObservationProbe.swift), once made (0
/// before): read on every property read, so a plain atomic word instead of a Swift global, whose
/// every read checks its one-time initialiser.
extern uintptr_t graphstore_observation_probe;

static inline uintptr_t graphstore_observation_probe_load(void) {
    return __atomic_load_n(&graphstore_observation_probe, __ATOMIC_ACQUIRE);
}

static inline void graphstore_observation_probe_store(uintptr_t probe) {
    __atomic_store_n(&graphstore_observation_probe, probe, __ATOMIC_RELEASE);
}

/// This thread's "probe was hashed" flag: cleared, set (by the probe's marker, when Observation
/// hashes it, which it does only while tracking accesses) and read. Thread-local, so probes on
/// other threads do not answer for this one.
extern void graphstore_observation_probe_clear(void);
extern void graphstore_observation_probe_note_hashed(void);
extern bool graphstore_observation_probe_was_hashed(void);

/// The calling thread as a number no other running thread has (its pthread_t), for a context's
/// record of which thread is inside it (Sources/GraphStore/Context/ContextUse.swift).
static inline uintptr_t graphstore_thread_token(void) { return (uintptr_t)pthread_self(); }

/// This thread's facts: whether it is the main thread (0 not yet known, 1 no, 2 yes; asked by
/// every undo registration, Sources/GraphStore/Undo/MainQueue.swift), and the model executor
/// running a job on it (NULL when none; Sources/GraphStore/Container/ModelActor.swift). C
/// thread-locals: a Swift global checks its one-time initialiser on every read, and pthread
/// keys cost a call each.
extern int graphstore_thread_is_main(void);
extern void graphstore_set_thread_is_main(int known);
extern void *graphstore_running_executor(void);
extern void graphstore_set_running_executor(void *executor);

/// How deep this thread is in evaluating a `#Predicate` on model objects: while it is, a
/// non-optional relationship that is not set reads as a detached object rather than stopping.
extern int graphstore_predicate_evaluation_depth(void);
extern void graphstore_predicate_evaluation_adjust(int delta);

/// A mutex in two words (`state`: 0 free, 1 held; `waiters`: threads asleep or about to sleep),
/// for the identity map's lock, which every object made and freed takes (WordLock). Uncontended,
/// locking is one compare-and-swap and unlocking a plain store and a load, inline: an atomic
/// read-modify-write costs tens of cycles here, and a point lookup takes the lock three times.
/// (glibc's mutex, reached through calls and checks of its kind, was a tenth of a lookup; a
/// futex mutex that unlocks with an exchange, as Drepper's does, pays a second atomic.)
/// Waiters spin briefly, then sleep on a futex on Linux (yield elsewhere). The unlocker's load
/// of `waiters` may pass its store of `state` (x86 lets a load overtake an earlier store), so a
/// waiter that registers in that instant can miss its wake-up: it sleeps with a 1 ms timeout and
/// checks again, so at worst it waits that long; it never waits forever.
typedef struct {
    uint32_t state;
    uint32_t waiters;
} graphstore_mutex;

extern void graphstore_mutex_lock_contended(graphstore_mutex *mutex);
extern void graphstore_mutex_wake(graphstore_mutex *mutex);

static inline void graphstore_mutex_lock(graphstore_mutex *mutex) {
    uint32_t expected = 0;
    if (!__atomic_compare_exchange_n(&mutex->state, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        graphstore_mutex_lock_contended(mutex);
    }
}

static inline void graphstore_mutex_unlock(graphstore_mutex *mutex) {
    __atomic_store_n(&mutex->state, 0, __ATOMIC_RELEASE);
    if (__atomic_load_n(&mutex->waiters, __ATOMIC_RELAXED) != 0) graphstore_mutex_wake(mutex);
}

/// A readers-writer lock in two words, for the committed graph (ReadWriteLock), which every
/// fetch and every read of a stored attribute takes for reading: `state` counts the readers
/// holding it (bits 0-29), marks a writer waiting (bit 30: new readers then wait, so a stream
/// of readers cannot starve a save) and a writer holding it (bit 31); `sleepers` counts threads
/// asleep or about to sleep on `state`. Uncontended, a read lock is one compare-and-swap and its
/// unlock one subtraction, inline (glibc's rwlock, reached through calls and checks of its
/// kind, was a twentieth of a point lookup). Waiters spin briefly, then sleep on a futex on
/// Linux (yield elsewhere), for at most 1 ms before they look again. Not recursive: a thread
/// holding it must not take it again (as with the writer-preferring pthread lock it replaced).
typedef struct {
    uint32_t state;
    uint32_t sleepers;
} graphstore_rwlock;

#define GRAPHSTORE_RWLOCK_WRITER 0x80000000u
#define GRAPHSTORE_RWLOCK_WRITER_WAITING 0x40000000u
#define GRAPHSTORE_RWLOCK_READERS 0x3FFFFFFFu

extern void graphstore_rwlock_read_lock_contended(graphstore_rwlock *lock);
extern void graphstore_rwlock_wake(graphstore_rwlock *lock);
extern void graphstore_rwlock_write_lock(graphstore_rwlock *lock);
extern void graphstore_rwlock_write_unlock(graphstore_rwlock *lock);

static inline void graphstore_rwlock_read_lock(graphstore_rwlock *lock) {
    uint32_t state = __atomic_load_n(&lock->state, __ATOMIC_RELAXED);
    if ((state & (GRAPHSTORE_RWLOCK_WRITER | GRAPHSTORE_RWLOCK_WRITER_WAITING)) != 0
        || !__atomic_compare_exchange_n(&lock->state, &state, state + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
        graphstore_rwlock_read_lock_contended(lock);
    }
}

static inline void graphstore_rwlock_read_unlock(graphstore_rwlock *lock) {
    // Sequentially consistent, as is the sleeper's count and check: either the last reader
    // sees the writer counted asleep, or the writer sees the reader gone.
    uint32_t state = __atomic_sub_fetch(&lock->state, 1, __ATOMIC_SEQ_CST);
    if ((state & GRAPHSTORE_RWLOCK_WRITER_WAITING) != 0 && (state & GRAPHSTORE_RWLOCK_READERS) == 0) graphstore_rwlock_wake(lock);
}

/// Asks the CPU to start loading the cache line at `address` into the cache; never faults
/// (Column.prefetch).
static inline void graphstore_prefetch(const void *address) { __builtin_prefetch(address, 0, 3); }

/// Relaxed atomic loads and stores of a word (AttributeReadAhead's hints: plain moves, no lock).
static inline uint64_t graphstore_load_relaxed_u64(const uint64_t *word) { return __atomic_load_n(word, __ATOMIC_RELAXED); }
static inline void graphstore_store_relaxed_u64(uint64_t *word, uint64_t value) { __atomic_store_n(word, value, __ATOMIC_RELAXED); }

/// Whether this CPU has a CRC-32C instruction (SSE 4.2 on x86-64, the CRC extension on AArch64).
extern bool graphstore_crc32c_hardware_available(void);

/// Extends the CRC-32C register `state` (the running value, not inverted) over `length` bytes
/// with that instruction. Only when `graphstore_crc32c_hardware_available()`.
extern uint32_t graphstore_crc32c_hardware(uint32_t state, const void *bytes, size_t length);

#endif

// The header holds the inline functions; the recording counter, the thread-locals (the
// observation probe's flag, whether the thread is the main one, the model executor running on
// it), the mutex's contended path, an allocation's size and the CRC-32C instruction (compiled
// for it alone, behind a check of the CPU) live here.
#include "CSwiftRuntime.h"
#include <string.h>
#if defined(__APPLE__)
#include <malloc/malloc.h>
#else
#include <malloc.h>
#endif

size_t graphstore_allocation_size(const void *block) {
#if defined(__APPLE__)
    return malloc_size(block);
#else
    return malloc_usable_size((void *)block);
#endif
}

_Atomic long graphstore_recording_sessions = 0;

static _Thread_local int thread_is_main = 0;
static _Thread_local void *running_executor = NULL;

int graphstore_thread_is_main(void) { return thread_is_main; }
void graphstore_set_thread_is_main(int known) { thread_is_main = known; }
void *graphstore_running_executor(void) { return running_executor; }
void graphstore_set_running_executor(void *executor) { running_executor = executor; }

static _Thread_local int predicate_evaluation_depth = 0;
int graphstore_predicate_evaluation_depth(void) { return predicate_evaluation_depth; }
void graphstore_predicate_evaluation_adjust(int delta) { predicate_evaluation_depth += delta; }

uintptr_t graphstore_observation_probe = 0;
static _Thread_local bool observation_probe_hashed = false;

void graphstore_observation_probe_clear(void) { observation_probe_hashed = false; }
void graphstore_observation_probe_note_hashed(void) { observation_probe_hashed = true; }
bool graphstore_observation_probe_was_hashed(void) { return observation_probe_hashed; }

#if defined(__linux__)
#include <linux/futex.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#else
#include <sched.h>
#endif

static inline bool graphstore_mutex_try(graphstore_mutex *mutex) {
    uint32_t expected = 0;
    return __atomic_load_n(&mutex->state, __ATOMIC_RELAXED) == 0
        && __atomic_compare_exchange_n(&mutex->state, &expected, 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED);
}

// What both locks' waiters use: a pause while spinning; a sleep on a word while it still holds
// `seen`, until woken or 1 ms passes (a yield where there is no futex); waking `count` sleepers.
static inline void graphstore_spin_pause(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
}

static void graphstore_futex_wait(uint32_t *word, uint32_t seen) {
#if defined(__linux__)
    struct timespec timeout = { 0, 1000000 };
    syscall(SYS_futex, word, FUTEX_WAIT_PRIVATE, seen, &timeout, NULL, 0);
#else
    (void)word;
    (void)seen;
    sched_yield();
#endif
}

static void graphstore_futex_wake(uint32_t *word, int count) {
#if defined(__linux__)
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, count, NULL, NULL, 0);
#else
    (void)word;
    (void)count;
#endif
}

// See graphstore_mutex: spin a little (holds are short), then sleep until woken or 1 ms passes.
void graphstore_mutex_lock_contended(graphstore_mutex *mutex) {
    for (int spin = 0; spin < 64; spin++) {
        graphstore_spin_pause();
        if (graphstore_mutex_try(mutex)) return;
    }
    __atomic_fetch_add(&mutex->waiters, 1, __ATOMIC_SEQ_CST);
    while (!graphstore_mutex_try(mutex)) graphstore_futex_wait(&mutex->state, 1);
    __atomic_fetch_sub(&mutex->waiters, 1, __ATOMIC_RELAXED);
}

void graphstore_mutex_wake(graphstore_mutex *mutex) { graphstore_futex_wake(&mutex->state, 1); }

// Sleeps while `state` still holds `seen`, until woken or 1 ms passes (see graphstore_rwlock).
static void graphstore_rwlock_sleep(graphstore_rwlock *lock, uint32_t seen) {
    __atomic_fetch_add(&lock->sleepers, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&lock->state, __ATOMIC_SEQ_CST) == seen) graphstore_futex_wait(&lock->state, seen);
    __atomic_fetch_sub(&lock->sleepers, 1, __ATOMIC_RELAXED);
}

void graphstore_rwlock_wake(graphstore_rwlock *lock) {
    if (__atomic_load_n(&lock->sleepers, __ATOMIC_SEQ_CST) == 0) return;
    graphstore_futex_wake(&lock->state, 0x7FFFFFFF);
}

void graphstore_rwlock_read_lock_contended(graphstore_rwlock *lock) {
    for (int spin = 0;; spin++) {
        uint32_t state = __atomic_load_n(&lock->state, __ATOMIC_RELAXED);
        if ((state & (GRAPHSTORE_RWLOCK_WRITER | GRAPHSTORE_RWLOCK_WRITER_WAITING)) == 0) {
            if (__atomic_compare_exchange_n(&lock->state, &state, state + 1, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
            continue;
        }
        if (spin < 64) graphstore_spin_pause(); else graphstore_rwlock_sleep(lock, state);
    }
}

void graphstore_rwlock_write_lock(graphstore_rwlock *lock) {
    for (int spin = 0;; spin++) {
        uint32_t state = __atomic_load_n(&lock->state, __ATOMIC_RELAXED);
        if ((state & (GRAPHSTORE_RWLOCK_WRITER | GRAPHSTORE_RWLOCK_READERS)) == 0) {
            // Free: take it, clearing the waiting mark (another waiting writer sets it again).
            if (__atomic_compare_exchange_n(&lock->state, &state, GRAPHSTORE_RWLOCK_WRITER, false, __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) return;
            continue;
        }
        if ((state & GRAPHSTORE_RWLOCK_WRITER_WAITING) == 0) {
            __atomic_fetch_or(&lock->state, GRAPHSTORE_RWLOCK_WRITER_WAITING, __ATOMIC_SEQ_CST);
            continue;
        }
        if (spin < 64) graphstore_spin_pause(); else graphstore_rwlock_sleep(lock, state);
    }
}

void graphstore_rwlock_write_unlock(graphstore_rwlock *lock) {
    // Keeps the mark of a writer that began waiting meanwhile: it goes next, before new readers.
    __atomic_fetch_and(&lock->state, ~GRAPHSTORE_RWLOCK_WRITER, __ATOMIC_SEQ_CST);
    graphstore_rwlock_wake(lock);
}

#if defined(__x86_64__)
#include <cpuid.h>

bool graphstore_crc32c_hardware_available(void) {
    unsigned int eax, ebx, ecx, edx;
    if (!__get_cpuid(1, &eax, &ebx, &ecx, &edx)) return false;
    return (ecx & bit_SSE4_2) != 0;
}

__attribute__((target("sse4.2")))
uint32_t graphstore_crc32c_hardware(uint32_t state, const void *bytes, size_t length) {
    const unsigned char *p = bytes;
    unsigned long long crc = state;
    while (length >= 8) {
        unsigned long long word;
        memcpy(&word, p, 8);
        crc = __builtin_ia32_crc32di(crc, word);
        p += 8;
        length -= 8;
    }
    unsigned int crc32 = (unsigned int)crc;
    while (length > 0) {
        crc32 = __builtin_ia32_crc32qi(crc32, *p);
        p += 1;
        length -= 1;
    }
    return crc32;
}

#elif defined(__aarch64__) && defined(__linux__)
#include <sys/auxv.h>
#include <asm/hwcap.h>

bool graphstore_crc32c_hardware_available(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) != 0;
}

__attribute__((target("crc")))
uint32_t graphstore_crc32c_hardware(uint32_t state, const void *bytes, size_t length) {
    const unsigned char *p = bytes;
    uint32_t crc = state;
    while (length >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __builtin_arm_crc32cd(crc, word);
        p += 8;
        length -= 8;
    }
    while (length > 0) {
        crc = __builtin_arm_crc32cb(crc, *p);
        p += 1;
        length -= 1;
    }
    return crc;
}

#else

bool graphstore_crc32c_hardware_available(void) { return false; }

uint32_t graphstore_crc32c_hardware(uint32_t state, const void *bytes, size_t length) {
    (void)bytes;
    (void)length;
    return state;
}

#endif

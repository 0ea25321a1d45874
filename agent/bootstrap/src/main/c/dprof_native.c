/*
 * dprof's JNI library: TSC reads and the per-thread event rings of the probes.
 *
 * Rings are single-producer (the thread that owns it) single-consumer (one drainer thread).
 * The producer finds its ring through a __thread pointer (initial-exec TLS: one mov off %fs),
 * so a probe is one JNI call that reads the tick and writes one 32-byte slot: no lock, no
 * allocation, no syscall except on a thread's first event, when the ring is created.
 *
 * Memory ordering: the producer writes a slot, then publishes it by a release store of head;
 * the consumer acquires head, copies, then hands the slots back by a release store of tail,
 * which the producer acquires before reusing them. The owning thread's exit (pthread key
 * destructor) stamps THREAD_END and then release-stores dead, so a consumer that acquires
 * dead == 1 sees every event the ring will ever hold.
 *
 * The registry of all rings is a linked list under a mutex, touched only on ring creation,
 * listing and release, never on the hot path.
 *
 * The doorbell (await_event / ring_notify): a drainer that found every ring empty may sleep until
 * the next event instead of waking every drain interval. It sets drainer_idle, then issues
 * membarrier(PRIVATE_EXPEDITED) and only then looks at every ring's head. A producer, after its
 * release store of head, loads drainer_idle (relaxed; a compiler barrier keeps the two in order)
 * and wakes the drainer if it is set. The membarrier puts a full fence into every running thread
 * of the process, between two of its instructions: a producer whose load of drainer_idle comes
 * after that point sees 1 and wakes the drainer; one whose load comes before it stored head even
 * earlier, so the drainer's scan after the membarrier sees the event and does not sleep. Either
 * way no event waits in a ring for a sleeping drainer, and the producer pays a load and a branch,
 * not a fence. (The same asymmetric Dekker as liburcu and HotSpot's UseSystemMemoryBarrier.)
 * Without membarrier (kernels before 4.14) await_event never sleeps and the drainer parks its
 * interval as before.
 */
#include <jni.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cpuid.h>
#include <linux/futex.h>
#include <linux/membarrier.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <x86intrin.h>

#include "dev_dprof_agent_bootstrap_NativeClock.h"
#include "dev_dprof_agent_bootstrap_NativeRing.h"

#define LIKELY(x) __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Numbers shared with Java come from the javac -h header, so the two sides cannot disagree. */
#define SLOT_BYTES dev_dprof_agent_bootstrap_NativeRing_SLOT_BYTES
#define THREAD_START_HEADER dev_dprof_agent_bootstrap_NativeRing_THREAD_START_HEADER
#define THREAD_END_HEADER dev_dprof_agent_bootstrap_NativeRing_THREAD_END_HEADER
#define CLOCK_RDTSCP dev_dprof_agent_bootstrap_NativeRing_CLOCK_RDTSCP
#define MIN_RING_EVENTS dev_dprof_agent_bootstrap_NativeRing_MIN_RING_EVENTS
#define MAX_RING_EVENTS dev_dprof_agent_bootstrap_NativeRing_MAX_RING_EVENTS
#define CACHE_LINE 64

typedef struct {
    int64_t tick;
    int32_t header;
    int32_t cpu;
    int64_t a;
    int64_t b;
} slot_t;

_Static_assert(sizeof(slot_t) == SLOT_BYTES, "slot layout must match the Java side");
_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "slots are documented as little endian");

/* head and tail on their own cache lines: each is written by one side and polled by the other. */
typedef struct ring {
    uint64_t head;       /* next slot to write; producer stores (release), consumer loads (acquire) */
    uint64_t tail_cache; /* producer's last view of tail: it re-reads tail only when the ring looks full */
    uint64_t lost;       /* producer stores (relaxed), consumer loads */
    slot_t *slots;
    uint64_t mask;
    char pad0[CACHE_LINE - 5 * 8];

    uint64_t tail;       /* next slot to read; consumer stores (release), producer loads (acquire) */
    char pad1[CACHE_LINE - 8];

    int64_t java_tid;    /* -1 until bindThread */
    int32_t dead;        /* set once by the owning thread's exit */
    struct ring *prev, *next;
} ring_t;

_Static_assert(offsetof(ring_t, tail) == CACHE_LINE, "tail must not share head's cache line");

static __thread ring_t *tls_ring;

static pthread_key_t ring_key;
static int ring_key_ok;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ring_t *registry_head;        /* guarded by registry_lock */
static uint64_t released_lost;       /* guarded by registry_lock: lost counts of freed rings */
static uint64_t unattached_lost;     /* atomic: events of threads whose ring could not be created */

static int clock_mode;               /* atomic (relaxed): read on every record */
static int doorbell_ok;              /* membarrier is registered: await_event may sleep */
static int32_t drainer_idle;         /* futex word: 1 while the drainer sleeps until an event */
static int32_t wake_permit;          /* a wake that came while the drainer was not asleep */
static int ring_events = 4096;       /* atomic (relaxed): read when a ring is created */

static inline int64_t read_tick(int32_t *cpu) {
    if (__atomic_load_n(&clock_mode, __ATOMIC_RELAXED) == CLOCK_RDTSCP) {
        unsigned int aux;
        uint64_t t = __rdtscp(&aux);
        *cpu = (int32_t) (aux & 0xFFF);
        return (int64_t) t;
    }
    *cpu = 0;
    return (int64_t) __rdtsc();
}

/* Producer side only. Returns 0 if stored, -1 if the ring is full (counted as lost). */
/* Slots ahead of the head whose cache line is fetched for writing: two 64-byte lines of 32-byte slots. */
#define PREFETCH_AHEAD 16

static inline int ring_put(ring_t *r, int64_t tick, int32_t header, int32_t cpu, int64_t a, int64_t b) {
    uint64_t head = r->head;
    if (UNLIKELY(head - r->tail_cache > r->mask)) {
        r->tail_cache = __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE);
        if (head - r->tail_cache > r->mask) {
            __atomic_store_n(&r->lost, r->lost + 1, __ATOMIC_RELAXED);
            return -1;
        }
    }
    slot_t *s = &r->slots[head & r->mask];
    /* A ring larger than the cache would make every slot store miss; fetching the line a few
       events ahead lets the store hit (measured: 29 -> 25 ns per probe with a 64 MiB ring). */
    __builtin_prefetch(&r->slots[(head + PREFETCH_AHEAD) & r->mask], 1, 3);
    s->tick = tick;
    s->header = header;
    s->cpu = cpu;
    s->a = a;
    s->b = b;
    __atomic_store_n(&r->head, head + 1, __ATOMIC_RELEASE);
    return 0;
}

/* Cold and out of line: the probes' fast path must not pay a frame for the system call. */
static __attribute__((noinline, cold)) void wake_drainer(void) {
    if (__atomic_exchange_n(&drainer_idle, 0, __ATOMIC_SEQ_CST)) {
        syscall(SYS_futex, &drainer_idle, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

static __attribute__((noinline, cold)) jint wake_drainer_then(jint stored) {
    wake_drainer();
    return stored;
}

/* After a put: wakes the drainer if it sleeps until an event, and returns the put's result.
   Costs a load of a line that is written only when the drainer falls asleep or wakes (see the
   doorbell at the top); the wake is a tail call, so the fast path keeps no value across a call
   and needs no stack frame. */
static inline __attribute__((always_inline)) jint ring_notify(jint stored) {
    __atomic_signal_fence(__ATOMIC_SEQ_CST);
    if (UNLIKELY(__atomic_load_n(&drainer_idle, __ATOMIC_RELAXED))) {
        return wake_drainer_then(stored);
    }
    return stored;
}

/* Runs on the exiting thread, after the JVM is done with it; no JNI here. */
static void ring_destructor(void *p) {
    ring_t *r = (ring_t *) p;
    /* A later probe on this thread (another destructor) must not touch a ring the drainer may free. */
    tls_ring = NULL;
    int32_t cpu;
    int64_t tick = read_tick(&cpu);
    ring_put(r, tick, THREAD_END_HEADER, cpu, 0, 0);
    __atomic_store_n(&r->dead, 1, __ATOMIC_RELEASE);
    ring_notify(0);
}

static ring_t *ring_create(void) {
    if (!ring_key_ok) {
        return NULL;
    }
    uint64_t events = (uint64_t) __atomic_load_n(&ring_events, __ATOMIC_RELAXED);
    void *mem = NULL;
    if (posix_memalign(&mem, CACHE_LINE, sizeof(ring_t)) != 0) {
        return NULL;
    }
    ring_t *r = (ring_t *) mem;
    memset(r, 0, sizeof(*r));
    void *slots = NULL;
    if (posix_memalign(&slots, CACHE_LINE, events * sizeof(slot_t)) != 0) {
        free(r);
        return NULL;
    }
    r->slots = (slot_t *) slots;
    r->mask = events - 1;
    r->java_tid = -1;
    /* Without the destructor the ring would never be marked dead, so refuse rather than leak. */
    if (pthread_setspecific(ring_key, r) != 0) {
        free(slots);
        free(r);
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    r->next = registry_head;
    if (registry_head != NULL) {
        registry_head->prev = r;
    }
    registry_head = r;
    pthread_mutex_unlock(&registry_lock);
    tls_ring = r;
    return r;
}

/* A thread's first event: creates its ring, stamps THREAD_START. Out of line and cold, so that the
   fast path below stays a leaf without a stack frame. */
static __attribute__((noinline, cold)) jint record_first(int32_t header, int64_t a, int64_t b) {
    ring_t *r = ring_create();
    if (r == NULL) {
        __atomic_add_fetch(&unattached_lost, 1, __ATOMIC_RELAXED);
        return -1;
    }
    int32_t cpu;
    int64_t tick = read_tick(&cpu);
    ring_put(r, tick, THREAD_START_HEADER, cpu, 0, 0);
    tick = read_tick(&cpu);
    /* A ring holds at least two events, so the first event always fits. */
    return ring_notify(ring_put(r, tick, header, cpu, a, b) == 0 ? 1 : -1);
}

static inline __attribute__((always_inline)) jint record(int32_t header, int64_t a, int64_t b) {
    ring_t *r = tls_ring;
    if (UNLIKELY(r == NULL)) {
        return record_first(header, a, b);
    }
    int32_t cpu;
    int64_t tick = read_tick(&cpu);
    return ring_notify(ring_put(r, tick, header, cpu, a, b));
}

static inline ring_t *as_ring(jlong handle) {
    return (ring_t *) (intptr_t) handle;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void) vm;
    (void) reserved;
    ring_key_ok = pthread_key_create(&ring_key, ring_destructor) == 0;
    long cmds = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0);
    doorbell_ok = cmds > 0 && (cmds & MEMBARRIER_CMD_PRIVATE_EXPEDITED)
            && syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0;
    return JNI_VERSION_1_8;
}

/* Only if the loading class loader is collected: no destructor may jump into unmapped code then. */
JNIEXPORT void JNICALL JNI_OnUnload(JavaVM *vm, void *reserved) {
    (void) vm;
    (void) reserved;
    if (ring_key_ok) {
        ring_key_ok = 0;
        pthread_key_delete(ring_key);
    }
}

/* ---- NativeClock ---- */

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_rdtsc(JNIEnv *env, jclass cls) {
    return (jlong) __rdtsc();
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_rdtscpOrdered(JNIEnv *env, jclass cls) {
    unsigned int aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return (jlong) t;
}

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_cpuId(JNIEnv *env, jclass cls) {
    unsigned int aux;
    __rdtscp(&aux);
    return (jint) (aux & 0xFFF);
}

static int cpuid_ext_edx_bit(unsigned int leaf, int bit) {
    unsigned int eax, ebx, ecx, edx;
    if (__get_cpuid_max(0x80000000u, NULL) < leaf) {
        return 0;
    }
    if (!__get_cpuid(leaf, &eax, &ebx, &ecx, &edx)) {
        return 0;
    }
    return (edx >> bit) & 1;
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_hasRdtscp(JNIEnv *env, jclass cls) {
    return cpuid_ext_edx_bit(0x80000001u, 27) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_invariantTsc(JNIEnv *env, jclass cls) {
    return cpuid_ext_edx_bit(0x80000007u, 8) ? JNI_TRUE : JNI_FALSE;
}

/* ---- NativeRing: producer ---- */

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_configure(JNIEnv *env, jclass cls,
                                                                           jint mode, jint events) {
    int n = events;
    if (n < MIN_RING_EVENTS || n > MAX_RING_EVENTS || (n & (n - 1)) != 0) {
        n = 4096;
    }
    /* Without rdtscp the instruction would fault: keep plain rdtsc rather than crash the host. */
    int m = (mode == CLOCK_RDTSCP && cpuid_ext_edx_bit(0x80000001u, 27)) ? CLOCK_RDTSCP : 0;
    __atomic_store_n(&ring_events, n, __ATOMIC_RELAXED);
    __atomic_store_n(&clock_mode, m, __ATOMIC_RELAXED);
}

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_record(JNIEnv *env, jclass cls, jint header) {
    return record(header, 0, 0);
}

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_record1(JNIEnv *env, jclass cls,
                                                                         jint header, jlong a) {
    return record(header, a, 0);
}

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_record2(JNIEnv *env, jclass cls,
                                                                         jint header, jlong a, jlong b) {
    return record(header, a, b);
}

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_bindThread(JNIEnv *env, jclass cls, jlong tid) {
    ring_t *r = tls_ring;
    if (r != NULL) {
        __atomic_store_n(&r->java_tid, (int64_t) tid, __ATOMIC_RELEASE);
    }
}

/* ---- NativeRing: consumer (one drainer at a time) ---- */

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_listRings(JNIEnv *env, jclass cls, jlongArray out) {
    if (out == NULL) {
        return 0;
    }
    jsize cap = (*env)->GetArrayLength(env, out);
    jlong *dst = (*env)->GetLongArrayElements(env, out, NULL);
    if (dst == NULL) {
        return 0; /* OutOfMemoryError is pending and will be thrown on return */
    }
    jint n = 0;
    pthread_mutex_lock(&registry_lock);
    for (ring_t *r = registry_head; r != NULL && n < cap; r = r->next) {
        dst[n++] = (jlong) (intptr_t) r;
    }
    pthread_mutex_unlock(&registry_lock);
    (*env)->ReleaseLongArrayElements(env, out, dst, 0);
    return n;
}

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_drain(JNIEnv *env, jclass cls, jlong handle,
                                                                       jobject dst, jint max_events) {
    ring_t *r = as_ring(handle);
    if (r == NULL || dst == NULL || max_events <= 0) {
        return 0;
    }
    unsigned char *out = (unsigned char *) (*env)->GetDirectBufferAddress(env, dst);
    jlong capacity = (*env)->GetDirectBufferCapacity(env, dst);
    if (out == NULL || capacity < SLOT_BYTES) {
        return 0;
    }
    uint64_t tail = r->tail;
    uint64_t head = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
    uint64_t n = head - tail;
    if (n > (uint64_t) max_events) {
        n = (uint64_t) max_events;
    }
    if (n > (uint64_t) capacity / SLOT_BYTES) {
        n = (uint64_t) capacity / SLOT_BYTES;
    }
    if (n == 0) {
        return 0;
    }
    uint64_t size = r->mask + 1;
    uint64_t start = tail & r->mask;
    uint64_t first = size - start < n ? size - start : n;
    memcpy(out, &r->slots[start], first * sizeof(slot_t));
    if (first < n) {
        memcpy(out + first * sizeof(slot_t), &r->slots[0], (n - first) * sizeof(slot_t));
    }
    __atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
    return (jint) n;
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_threadId(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    return r == NULL ? -1 : (jlong) __atomic_load_n(&r->java_tid, __ATOMIC_ACQUIRE);
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_lost(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    return r == NULL ? 0 : (jlong) __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_isDead(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    return r != NULL && __atomic_load_n(&r->dead, __ATOMIC_ACQUIRE) ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_pending(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    if (r == NULL) {
        return 0;
    }
    return (jint) (__atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - r->tail);
}

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_release(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    if (r == NULL || !__atomic_load_n(&r->dead, __ATOMIC_ACQUIRE)
            || __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) != r->tail) {
        return;
    }
    pthread_mutex_lock(&registry_lock);
    if (r->prev != NULL) {
        r->prev->next = r->next;
    } else {
        registry_head = r->next;
    }
    if (r->next != NULL) {
        r->next->prev = r->prev;
    }
    released_lost += __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
    pthread_mutex_unlock(&registry_lock);
    free(r->slots);
    free(r);
}

/* Whether any ring has events to drain or is dead (to be released); takes the registry lock. */
static int any_ring_pending(void) {
    int pending = 0;
    pthread_mutex_lock(&registry_lock);
    for (ring_t *r = registry_head; r != NULL && !pending; r = r->next) {
        pending = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) != r->tail
                || __atomic_load_n(&r->dead, __ATOMIC_ACQUIRE);
    }
    pthread_mutex_unlock(&registry_lock);
    return pending;
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_awaitEvent(JNIEnv *env, jclass cls,
                                                                               jlong timeout_nanos) {
    if (!doorbell_ok || timeout_nanos <= 0) {
        return JNI_FALSE;
    }
    __atomic_store_n(&drainer_idle, 1, __ATOMIC_SEQ_CST);
    if (syscall(__NR_membarrier, MEMBARRIER_CMD_PRIVATE_EXPEDITED, 0) != 0
            || __atomic_exchange_n(&wake_permit, 0, __ATOMIC_SEQ_CST) || any_ring_pending()) {
        __atomic_store_n(&drainer_idle, 0, __ATOMIC_SEQ_CST);
        return JNI_FALSE;
    }
    struct timespec timeout = {(time_t) (timeout_nanos / 1000000000), (long) (timeout_nanos % 1000000000)};
    /* Returns on a wake, on the timeout, on a signal or at once if a producer already cleared the
       word; every case ends the sleep: a spurious return costs one empty drain, nothing else. */
    syscall(SYS_futex, &drainer_idle, FUTEX_WAIT_PRIVATE, 1, &timeout, NULL, 0);
    __atomic_store_n(&drainer_idle, 0, __ATOMIC_SEQ_CST);
    return JNI_TRUE;
}

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_wake(JNIEnv *env, jclass cls) {
    /* The permit first: a drainer about to sleep sees it, one already asleep is woken. */
    __atomic_store_n(&wake_permit, 1, __ATOMIC_SEQ_CST);
    wake_drainer();
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_totalLost(JNIEnv *env, jclass cls) {
    uint64_t total = __atomic_load_n(&unattached_lost, __ATOMIC_RELAXED);
    pthread_mutex_lock(&registry_lock);
    total += released_lost;
    for (ring_t *r = registry_head; r != NULL; r = r->next) {
        total += __atomic_load_n(&r->lost, __ATOMIC_RELAXED);
    }
    pthread_mutex_unlock(&registry_lock);
    return (jlong) total;
}

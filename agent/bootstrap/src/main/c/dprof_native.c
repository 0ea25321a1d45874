/*
 * dprof's JNI library: reads of the CPU's counter (the TSC on x86-64, the generic timer on aarch64),
 * the per-CPU counter check, and the per-thread event rings of the probes.
 *
 * Rings are single-producer (the thread that owns it) single-consumer (one drainer thread).
 * The producer finds its ring through a __thread pointer (initial-exec TLS: one mov off %fs),
 * so a probe is one JNI call that reads the tick and writes one 32-byte slot: no lock, no
 * allocation, no syscall except on a thread's first event, when the ring is created.
 *
 * Ring files: once a directory is set (setRingDirectory), each ring is a shared mapping of a file
 * of its own there, laid out as docs/FORMAT.md "Ring files" says: a header page (head, tail, the
 * Java thread id and name, dead) and the slots. Stores into a shared file mapping are in the page
 * cache the moment they are made, so a process killed with kill -9 leaves every event it recorded
 * and has not yet handed to its queue in these files, and the reader recovers them. So the drainer
 * need not hurry: it passes rarely (see the drainer), and it hands slots back (tail) only after
 * they are in the queue. A ring whose file cannot be made (no directory set, a full disk) lives
 * in anonymous memory instead and is counted as volatile; while one exists the drainer polls at
 * its interval, the bound documented for kill -9 then.
 *
 * Memory ordering: the producer writes a slot, then publishes it by a release store of head;
 * the consumer acquires head, copies, and once the copy is in the queue hands the slots back by a
 * release store of tail, which the producer acquires before reusing them. The owning thread's exit
 * (pthread key destructor) stamps THREAD_END and then release-stores dead, so a consumer that
 * acquires dead == 1 sees every event the ring will ever hold.
 *
 * The registry of all rings is a linked list under a mutex, touched only on ring creation,
 * listing and release, never on the hot path.
 *
 * Waking the drainer (await_fill / check_fill): the drainer sleeps between passes; a producer
 * wakes it early only when its ring is half full. Every quarter of the ring (head a multiple of
 * check_mask + 1) the producer compares head with tail, out of line; when half is used it fences
 * and loads drainer_idle, and wakes the drainer if it is set. The drainer sets drainer_idle (a
 * full barrier) and then looks for a half-full ring before it sleeps: of the two loads, at least
 * one sees the other side's store, so a half-full ring never waits for a sleeping drainer. The
 * fast path pays an and and a branch on a line it writes anyway.
 */
#define _GNU_SOURCE /* sched_setaffinity, CPU_SET, sched_getcpu */
#include <fcntl.h>
#include <jni.h>
#include <limits.h>
#include <pthread.h>
#include <sched.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/statvfs.h>
#include <time.h>
#include <unistd.h>

/*
 * Platforms. The counter is the CPU's own: rdtsc on x86-64, the generic timer's virtual count
 * (cntvct_el0, at the fixed rate cntfrq_el0) on aarch64. Linux gets everything; macOS compiles
 * (the ring files, the futex wake-up and the per-CPU counter check are Linux-only: on macOS the
 * drainer polls at its interval and the check reports "not checked"). Any other architecture has
 * no counter here: the build skips the library and the agent uses System.nanoTime.
 */
#if defined(__x86_64__)
#  define DPROF_X86_64 1
#  include <cpuid.h>
#  include <x86intrin.h>
#elif defined(__aarch64__)
#  define DPROF_AARCH64 1
#else
#  error "dprof_native.c: no CPU counter for this architecture (x86-64 and aarch64 only); the agent falls back to System.nanoTime"
#endif
#if defined(__linux__)
#  define DPROF_LINUX 1
#  include <linux/futex.h>
#  include <sys/syscall.h>
#elif !defined(__APPLE__)
#  error "dprof_native.c: Linux or macOS only; the agent falls back to System.nanoTime elsewhere"
#endif

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
#define FILE_HEADER_BYTES dev_dprof_agent_bootstrap_NativeRing_FILE_HEADER_BYTES
#define FILE_MAGIC dev_dprof_agent_bootstrap_NativeRing_FILE_MAGIC
#define FILE_VERSION dev_dprof_agent_bootstrap_NativeRing_FILE_VERSION
#define FILE_NAME_MAX dev_dprof_agent_bootstrap_NativeRing_FILE_NAME_MAX
#define FILE_FLAG_PRIVATE dev_dprof_agent_bootstrap_NativeRing_FILE_FLAG_PRIVATE
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

/*
 * The header page of a ring, at the start of its mapping (file or anonymous). Up to `local` it is
 * the ring file's header (docs/FORMAT.md "Ring files"); head and tail on their own cache lines,
 * since each is written by one side and polled by the other.
 */
typedef struct ring {
    uint64_t head;       /* next slot to write; producer stores (release), consumer loads (acquire) */
    uint64_t tail_cache; /* producer's last view of tail: it re-reads tail only when the ring looks full */
    uint64_t lost;       /* producer stores (relaxed), consumer loads */
    uint64_t check_mask; /* the producer looks at the fill whenever head & check_mask == 0 */
    uint64_t mask;
    char pad0[CACHE_LINE - 5 * 8];

    uint64_t tail;       /* next slot to read; consumer stores (release) once the slots are in the queue */
    char pad1[CACHE_LINE - 8];

    uint64_t magic;      /* written last at creation: a file without it holds no event */
    uint32_t version;
    uint32_t slot_bytes;
    uint64_t events;
    int64_t java_tid;    /* -1 until bindThread */
    int32_t dead;        /* set once by the owning thread's exit */
    int32_t flags;       /* FILE_FLAG_PRIVATE: the agent's own thread, never recovered */
    uint32_t name_length;
    char name[FILE_NAME_MAX];
    char pad2[dev_dprof_agent_bootstrap_NativeRing_FILE_LOCAL_AT - dev_dprof_agent_bootstrap_NativeRing_FILE_NAME_AT
              - FILE_NAME_MAX];

    /* Process-local from here: meaningless in the file. */
    slot_t *slots;
    struct ring *prev, *next;
    uint64_t seq;        /* the file's name */
    size_t map_bytes;
    int durable;         /* backed by a file */
    int counted_volatile; /* counted in volatile_rings: an application thread's ring without a file */
} ring_t;

#define LAYOUT(field, name) _Static_assert(offsetof(ring_t, field) == dev_dprof_agent_bootstrap_NativeRing_##name, \
        #field " must be where docs/FORMAT.md and the Java reader say")
LAYOUT(head, FILE_HEAD_AT);
LAYOUT(lost, FILE_LOST_AT);
LAYOUT(tail, FILE_TAIL_AT);
LAYOUT(magic, FILE_MAGIC_AT);
LAYOUT(version, FILE_VERSION_AT);
LAYOUT(slot_bytes, FILE_SLOT_BYTES_AT);
LAYOUT(events, FILE_EVENTS_AT);
LAYOUT(java_tid, FILE_THREAD_ID_AT);
LAYOUT(dead, FILE_DEAD_AT);
LAYOUT(flags, FILE_FLAGS_AT);
LAYOUT(name_length, FILE_NAME_LENGTH_AT);
LAYOUT(name, FILE_NAME_AT);
LAYOUT(slots, FILE_LOCAL_AT);
_Static_assert(sizeof(ring_t) <= FILE_HEADER_BYTES, "the header must fit its page");

static __thread ring_t *tls_ring;
static __thread int tls_private;     /* the thread's ring, when made, is the agent's own */

static pthread_key_t ring_key;
static int ring_key_ok;
static pthread_mutex_t registry_lock = PTHREAD_MUTEX_INITIALIZER;
static ring_t *registry_head;        /* guarded by registry_lock */
static uint64_t released_lost;       /* guarded by registry_lock: lost counts of freed rings */
static char *ring_dir;               /* guarded by registry_lock: where ring files go; NULL: anonymous rings */
static uint64_t ring_seq;            /* guarded by registry_lock */
static int64_t volatile_rings;       /* guarded by registry_lock: live rings without a file */
static uint64_t unattached_lost;     /* atomic: events of threads whose ring could not be created */

static int clock_mode;               /* atomic (relaxed): read on every record */
static int32_t drainer_idle;         /* futex word: 1 while the drainer sleeps between passes */
static int32_t wake_permit;          /* a wake that came while the drainer was not asleep */
static int ring_events = 4096;       /* atomic (relaxed): read when a ring is created */

/* ---- The CPU's counter ---- */

/* One plain read: the cheapest, which the CPU may execute out of order with its neighbours. */
static inline uint64_t counter_read(void) {
#if DPROF_X86_64
    return __rdtsc();
#else
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#endif
}

/* A read that waits for every earlier instruction, and that no later one passes. */
static inline uint64_t counter_read_ordered(void) {
#if DPROF_X86_64
    unsigned int aux;
    uint64_t t = __rdtscp(&aux);
    _mm_lfence();
    return t;
#else
    uint64_t v;
    /* isb: the read is not taken before earlier instructions complete; the second keeps later
       ones from starting before it (the kernel's __arch_counter_get_cntvct starts with the same isb). */
    __asm__ __volatile__("isb\n\tmrs %0, cntvct_el0\n\tisb" : "=r"(v) : : "memory");
    return v;
#endif
}

/* The same without rdtscp, which some x86 CPUs lack: lfence on both sides. */
static inline uint64_t counter_read_fenced(void) {
#if DPROF_X86_64
    _mm_lfence();
    uint64_t t = __rdtsc();
    _mm_lfence();
    return t;
#else
    return counter_read_ordered();
#endif
}

#if DPROF_X86_64
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
#endif

/* Whether rdtscp exists (CPUID 0x80000001 EDX bit 27); aarch64 has no such instruction. */
static int has_rdtscp(void) {
#if DPROF_X86_64
    return cpuid_ext_edx_bit(0x80000001u, 27);
#else
    return 0;
#endif
}

/* The counter's architectural rate in Hz, or 0 where the architecture does not say (x86). */
static uint64_t counter_frequency(void) {
#if DPROF_X86_64
    return 0;
#else
    uint64_t f;
    __asm__ __volatile__("mrs %0, cntfrq_el0" : "=r"(f));
    return f;
#endif
}

static inline int64_t read_tick(int32_t *cpu) {
#if DPROF_X86_64
    if (__atomic_load_n(&clock_mode, __ATOMIC_RELAXED) == CLOCK_RDTSCP) {
        unsigned int aux;
        uint64_t t = __rdtscp(&aux);
        *cpu = (int32_t) (aux & 0xFFF);
        return (int64_t) t;
    }
#endif
    *cpu = 0;
    return (int64_t) counter_read();
}

/* Slots ahead of the head whose cache line is fetched for writing: two 64-byte lines of 32-byte slots. */
#define PREFETCH_AHEAD 16

/* Producer side only. Returns 0 if stored, -1 if the ring is full (counted as lost). */
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

/* Whether at least half of the ring holds slots the drainer has not handed back. */
static inline int half_full(const ring_t *r, uint64_t head, uint64_t tail) {
    return head - tail > r->mask / 2;
}

static void wake_drainer(void) {
    if (__atomic_exchange_n(&drainer_idle, 0, __ATOMIC_SEQ_CST)) {
#if DPROF_LINUX
        syscall(SYS_futex, &drainer_idle, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
#endif
    }
}

/* Every quarter of the ring, out of line: wakes a sleeping drainer once half the ring is used
   (see "Waking the drainer" at the top), and returns the put's result. */
static __attribute__((noinline, cold)) jint check_fill(ring_t *r, uint64_t head, jint stored) {
    if (half_full(r, head, __atomic_load_n(&r->tail, __ATOMIC_ACQUIRE))) {
        __atomic_thread_fence(__ATOMIC_SEQ_CST);
        if (__atomic_load_n(&drainer_idle, __ATOMIC_RELAXED)) {
            wake_drainer();
        }
    }
    return stored;
}

/* After a put: the fill check when head has reached a quarter mark; a tail call, so the fast path
   keeps no value across a call and needs no stack frame. */
static inline __attribute__((always_inline)) jint after_put(ring_t *r, jint stored) {
    uint64_t head = r->head;
    if (UNLIKELY((head & r->check_mask) == 0)) {
        return check_fill(r, head, stored);
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
}

/* Free bytes a new ring file must leave on its file system (setDiskReserve). */
static int64_t disk_reserve = 0;

/* The path of ring file `seq`; false if it does not fit. Caller holds registry_lock, ring_dir set. */
static int ring_path(char *path, size_t size, uint64_t seq) {
    int n = snprintf(path, size, "%s/%llu.ring", ring_dir, (unsigned long long) seq);
    return n > 0 && (size_t) n < size;
}

/* Opens a new ring file, or returns -1 (no directory, or it failed). Caller holds registry_lock. */
static int ring_file_open(uint64_t seq) {
    char path[PATH_MAX];
    if (ring_dir == NULL || !ring_path(path, sizeof path, seq)) {
        return -1;
    }
    return open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
}

/* Removes ring file `seq` if files are on. Caller holds registry_lock. */
static void ring_file_remove(uint64_t seq) {
    char path[PATH_MAX];
    if (ring_dir != NULL && ring_path(path, sizeof path, seq)) {
        unlink(path);
    }
}

/* Reserves the file's blocks (0 on success): posix_fallocate on Linux; macOS has no such call, and
   ftruncate only sets the size, so there a full disk may still raise SIGBUS in a probe. */
static int reserve_blocks(int fd, off_t bytes) {
#if DPROF_LINUX
    return posix_fallocate(fd, 0, bytes);
#else
    return ftruncate(fd, bytes);
#endif
}

/*
 * Maps a ring of `bytes`: a file's blocks reserved first, so a full disk refuses the ring here
 * instead of raising SIGBUS in a probe later; else (and for the agent's own threads, whose events
 * are never recovered) anonymous memory. NULL if neither works.
 */
static ring_t *ring_map(size_t bytes, uint64_t *seq, int *durable) {
    pthread_mutex_lock(&registry_lock);
    *seq = ++ring_seq;
    int fd = tls_private ? -1 : ring_file_open(*seq);
    pthread_mutex_unlock(&registry_lock);
    if (fd >= 0) {
        void *mem = MAP_FAILED;
        /* The disk reserve (shared with the queue): a file that would cut into it is not made. */
        struct statvfs fs;
        int room = fstatvfs(fd, &fs) == 0
                && (uint64_t) fs.f_bavail * fs.f_frsize >= (uint64_t) bytes
                        + (uint64_t) __atomic_load_n(&disk_reserve, __ATOMIC_RELAXED);
        if (room && reserve_blocks(fd, (off_t) bytes) == 0) {
            mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        }
        close(fd);
        if (mem != MAP_FAILED) {
            *durable = 1;
            return (ring_t *) mem;
        }
        pthread_mutex_lock(&registry_lock);
        ring_file_remove(*seq);
        pthread_mutex_unlock(&registry_lock);
    }
    void *mem = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    *durable = 0;
    return mem == MAP_FAILED ? NULL : (ring_t *) mem;
}

static ring_t *ring_create(void) {
    if (!ring_key_ok) {
        return NULL;
    }
    uint64_t events = (uint64_t) __atomic_load_n(&ring_events, __ATOMIC_RELAXED);
    size_t bytes = FILE_HEADER_BYTES + events * sizeof(slot_t);
    uint64_t seq;
    int durable;
    ring_t *r = ring_map(bytes, &seq, &durable);
    if (r == NULL) {
        return NULL;
    }
    /* Both kinds of mapping start zeroed. */
    r->slots = (slot_t *) ((char *) r + FILE_HEADER_BYTES);
    r->mask = events - 1;
    r->check_mask = r->mask >> 2; /* every quarter of the ring (every slot of a ring of 2) */
    r->events = events;
    r->slot_bytes = SLOT_BYTES;
    r->version = FILE_VERSION;
    r->java_tid = -1;
    r->flags = tls_private ? FILE_FLAG_PRIVATE : 0;
    r->seq = seq;
    r->map_bytes = bytes;
    r->durable = durable;
    r->counted_volatile = !durable && !tls_private;
    __atomic_store_n(&r->magic, (uint64_t) FILE_MAGIC, __ATOMIC_RELEASE);
    /* Without the destructor the ring would never be marked dead, so refuse rather than leak. */
    if (pthread_setspecific(ring_key, r) != 0) {
        pthread_mutex_lock(&registry_lock);
        if (durable) {
            ring_file_remove(seq);
        }
        pthread_mutex_unlock(&registry_lock);
        munmap(r, bytes);
        return NULL;
    }
    pthread_mutex_lock(&registry_lock);
    r->next = registry_head;
    if (registry_head != NULL) {
        registry_head->prev = r;
    }
    registry_head = r;
    if (r->counted_volatile) {
        volatile_rings++;
    }
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
    return ring_put(r, tick, header, cpu, a, b) == 0 ? 1 : -1;
}

static inline __attribute__((always_inline)) jint record(int32_t header, int64_t a, int64_t b) {
    ring_t *r = tls_ring;
    if (UNLIKELY(r == NULL)) {
        return record_first(header, a, b);
    }
    int32_t cpu;
    int64_t tick = read_tick(&cpu);
    return after_put(r, ring_put(r, tick, header, cpu, a, b));
}

static inline ring_t *as_ring(jlong handle) {
    return (ring_t *) (intptr_t) handle;
}

JNIEXPORT jint JNICALL JNI_OnLoad(JavaVM *vm, void *reserved) {
    (void) vm;
    (void) reserved;
    ring_key_ok = pthread_key_create(&ring_key, ring_destructor) == 0;
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
    return (jlong) counter_read();
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_rdtscpOrdered(JNIEnv *env, jclass cls) {
    return (jlong) counter_read_ordered();
}

JNIEXPORT jint JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_cpuId(JNIEnv *env, jclass cls) {
#if DPROF_X86_64
    unsigned int aux;
    __rdtscp(&aux);
    return (jint) (aux & 0xFFF);
#elif DPROF_LINUX
    int cpu = sched_getcpu();
    return cpu < 0 ? 0 : (jint) cpu;
#else
    return 0;
#endif
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_hasRdtscp(JNIEnv *env, jclass cls) {
    return has_rdtscp() ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_invariantTsc(JNIEnv *env, jclass cls) {
#if DPROF_X86_64
    return cpuid_ext_edx_bit(0x80000007u, 8) ? JNI_TRUE : JNI_FALSE; /* CPUID 0x80000007 EDX bit 8 */
#else
    /* The generic timer's system counter runs at a fixed rate in an always-on power domain (Arm ARM
       D11.1.2): it is invariant by architecture. */
    return JNI_TRUE;
#endif
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_counterFrequency(JNIEnv *env, jclass cls) {
    return (jlong) counter_frequency();
}

JNIEXPORT jstring JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_counterName(JNIEnv *env, jclass cls) {
#if DPROF_X86_64
    return (*env)->NewStringUTF(env, "rdtsc");
#else
    return (*env)->NewStringUTF(env, "cntvct_el0");
#endif
}

/*
 * The per-CPU counter check: whether every CPU's counter agrees (after the kernel's boot-time
 * check_tsc_warp, without its lock). One thread per CPU of the process's affinity mask, each pinned
 * to its CPU, publishes its latest read in a slot of its own (release store). In each turn a thread
 * loads the other slots (acquire), then reads the counter (ordered): its read is causally after each
 * value it loaded, which was read before it was stored, so a read lower than a loaded value is a
 * counter behind another's: out of order. A value loaded for the first time counts as a crossing,
 * a comparison with a fresh read of another CPU; the check ends after `enough` of them, or at its
 * deadline. Nothing waits for another thread: on a busy machine a thread descheduled for a while
 * only leaves its slot stale (a lock would stall every other thread behind it: with a ticket lock at
 * load average 45, 20 ms gave 128 reads and one crossing).
 */
enum { WARP_CPUS, WARP_READS, WARP_CROSSINGS, WARP_BACKWARDS, WARP_MAX_BACKWARD, WARP_FIELDS };

/* The read the check takes on a CPU; native_test.c puts a skewed counter here, to see it caught. */
#ifndef WARP_READ
#  define WARP_READ(cpu) counter_read_fenced()
#endif

typedef struct {
    uint64_t value;                      /* the thread's latest read; 0 before its first */
    char pad[CACHE_LINE - sizeof(uint64_t)];
} warp_slot_t;

typedef struct {
    warp_slot_t *slots;
    int n;
    uint64_t enough;                     /* crossings after which the check ends */
    uint64_t crossings;                  /* atomic: all threads' crossings so far */
    struct timespec deadline;
} warp_t;

typedef struct {
    warp_t *w;
    int index;
    int cpu;
    int pinned;
    uint64_t reads, crossings, backwards, max_backward;
} warp_thread_t;

static int after_deadline(const struct timespec *deadline) {
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return now.tv_sec > deadline->tv_sec || (now.tv_sec == deadline->tv_sec && now.tv_nsec >= deadline->tv_nsec);
}

static void *warp_run(void *p) {
    warp_thread_t *t = (warp_thread_t *) p;
    warp_t *w = t->w;
#if DPROF_LINUX
    cpu_set_t one;
    CPU_ZERO(&one);
    CPU_SET(t->cpu, &one);
    t->pinned = sched_setaffinity(0, sizeof one, &one) == 0;
#endif
    uint64_t *seen = calloc((size_t) w->n, sizeof *seen);
    if (!t->pinned || seen == NULL) {
        free(seen);
        return NULL;
    }
    uint64_t reported = 0;
    for (unsigned i = 1;; i++) {
        uint64_t highest = 0;
        uint64_t fresh = 0;
        for (int j = 0; j < w->n; j++) {
            if (j == t->index) {
                continue;
            }
            uint64_t v = __atomic_load_n(&w->slots[j].value, __ATOMIC_ACQUIRE);
            if (v != seen[j]) {
                seen[j] = v;
                fresh++;
            }
            highest = v > highest ? v : highest;
        }
        uint64_t now = WARP_READ(t->cpu);
        t->reads++;
        t->crossings += fresh;
        if (now < highest) {
            t->backwards++;
            t->max_backward = highest - now > t->max_backward ? highest - now : t->max_backward;
        }
        __atomic_store_n(&w->slots[t->index].value, now, __ATOMIC_RELEASE);
        /* The clock call costs far more than a turn: look at it every 64 turns. */
        if ((i & 63) == 0) {
            uint64_t all = __atomic_add_fetch(&w->crossings, t->crossings - reported, __ATOMIC_RELAXED);
            reported = t->crossings;
            if (all >= w->enough || after_deadline(&w->deadline)) {
                free(seen);
                return NULL;
            }
        }
    }
}

/* Runs the check until `enough` crossings or for at most about budget_nanos; fills out[WARP_FIELDS].
   Returns 0, or -1 if not checked here. */
static int counter_check(int64_t budget_nanos, uint64_t enough, uint64_t out[WARP_FIELDS]) {
    memset(out, 0, WARP_FIELDS * sizeof out[0]);
#if DPROF_LINUX
    cpu_set_t allowed;
    if (sched_getaffinity(0, sizeof allowed, &allowed) != 0) {
        return -1;
    }
    int n = CPU_COUNT(&allowed);
    warp_t w;
    memset(&w, 0, sizeof w);
    w.n = n;
    w.enough = enough;
    clock_gettime(CLOCK_MONOTONIC, &w.deadline);
    w.deadline.tv_sec += budget_nanos / 1000000000;
    w.deadline.tv_nsec += budget_nanos % 1000000000;
    if (w.deadline.tv_nsec >= 1000000000) {
        w.deadline.tv_sec++;
        w.deadline.tv_nsec -= 1000000000;
    }
    void *slots = NULL;
    warp_thread_t *threads = calloc((size_t) n, sizeof *threads);
    pthread_t *ids = calloc((size_t) n, sizeof *ids);
    int *started = calloc((size_t) n, sizeof *started);
    if (threads == NULL || ids == NULL || started == NULL
            || posix_memalign(&slots, CACHE_LINE, (size_t) n * sizeof(warp_slot_t)) != 0) {
        free(threads);
        free(ids);
        free(started);
        return -1;
    }
    memset(slots, 0, (size_t) n * sizeof(warp_slot_t));
    w.slots = (warp_slot_t *) slots;
    int k = 0;
    for (int cpu = 0; cpu < CPU_SETSIZE && k < n; cpu++) {
        if (CPU_ISSET(cpu, &allowed)) {
            threads[k].w = &w;
            threads[k].index = k;
            threads[k].cpu = cpu;
            started[k] = pthread_create(&ids[k], NULL, warp_run, &threads[k]) == 0;
            k++;
        }
    }
    for (int i = 0; i < k; i++) {
        if (started[i]) {
            pthread_join(ids[i], NULL);
        }
        if (started[i] && threads[i].pinned) {
            out[WARP_CPUS]++;
            out[WARP_READS] += threads[i].reads;
            out[WARP_CROSSINGS] += threads[i].crossings;
            out[WARP_BACKWARDS] += threads[i].backwards;
            if (threads[i].max_backward > out[WARP_MAX_BACKWARD]) {
                out[WARP_MAX_BACKWARD] = threads[i].max_backward;
            }
        }
    }
    free(threads);
    free(ids);
    free(started);
    free(slots);
    return 0;
#else
    (void) budget_nanos;
    (void) enough;
    return -1;
#endif
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeClock_checkCounters(JNIEnv *env, jclass cls,
                                                                                  jlong budget_nanos, jlong enough,
                                                                                  jlongArray out) {
    if (out == NULL || (*env)->GetArrayLength(env, out) < WARP_FIELDS || budget_nanos <= 0 || enough <= 0) {
        return JNI_FALSE;
    }
    uint64_t result[WARP_FIELDS];
    if (counter_check((int64_t) budget_nanos, (uint64_t) enough, result) != 0) {
        return JNI_FALSE;
    }
    jlong copy[WARP_FIELDS];
    for (int i = 0; i < WARP_FIELDS; i++) {
        copy[i] = (jlong) result[i];
    }
    (*env)->SetLongArrayRegion(env, out, 0, WARP_FIELDS, copy);
    return JNI_TRUE;
}

/* ---- NativeRing: setup ---- */

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_configure(JNIEnv *env, jclass cls,
                                                                           jint mode, jint events) {
    int n = events;
    if (n < MIN_RING_EVENTS || n > MAX_RING_EVENTS || (n & (n - 1)) != 0) {
        n = 4096;
    }
    /* Without rdtscp the instruction would fault: keep plain rdtsc rather than crash the host. */
    int m = (mode == CLOCK_RDTSCP && has_rdtscp()) ? CLOCK_RDTSCP : 0;
    __atomic_store_n(&ring_events, n, __ATOMIC_RELAXED);
    __atomic_store_n(&clock_mode, m, __ATOMIC_RELAXED);
}

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_setDiskReserve(JNIEnv *env, jclass cls,
                                                                                 jlong bytes) {
    __atomic_store_n(&disk_reserve, bytes < 0 ? 0 : (int64_t) bytes, __ATOMIC_RELAXED);
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_setRingDirectory(JNIEnv *env, jclass cls,
                                                                                      jstring dir) {
    char *copy = NULL;
    if (dir != NULL) {
        const char *chars = (*env)->GetStringUTFChars(env, dir, NULL);
        if (chars == NULL) {
            return JNI_FALSE; /* OutOfMemoryError is pending */
        }
        copy = strdup(chars);
        (*env)->ReleaseStringUTFChars(env, dir, chars);
        if (copy == NULL) {
            return JNI_FALSE;
        }
    }
    pthread_mutex_lock(&registry_lock);
    char *old = ring_dir;
    ring_dir = copy;
    pthread_mutex_unlock(&registry_lock);
    free(old);
    return JNI_TRUE;
}

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_markPrivate(JNIEnv *env, jclass cls) {
    tls_private = 1;
    ring_t *r = tls_ring;
    if (r != NULL) {
        r->flags |= FILE_FLAG_PRIVATE;
    }
}

/* Whether ring files are on and every live ring of the application has one; takes the registry lock. */
static int rings_durable(void) {
    pthread_mutex_lock(&registry_lock);
    int durable = ring_dir != NULL && volatile_rings == 0;
    pthread_mutex_unlock(&registry_lock);
    return durable;
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_durable(JNIEnv *env, jclass cls) {
    return rings_durable() ? JNI_TRUE : JNI_FALSE;
}

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_removeFiles(JNIEnv *env, jclass cls) {
    pthread_mutex_lock(&registry_lock);
    for (ring_t *r = registry_head; r != NULL; r = r->next) {
        if (r->durable) {
            ring_file_remove(r->seq);
        }
    }
    free(ring_dir);
    ring_dir = NULL;
    pthread_mutex_unlock(&registry_lock);
}

/* ---- NativeRing: producer ---- */

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

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_bindThread(JNIEnv *env, jclass cls, jlong tid,
                                                                            jbyteArray name) {
    ring_t *r = tls_ring;
    if (r == NULL) {
        return;
    }
    if (name != NULL) {
        jsize n = (*env)->GetArrayLength(env, name);
        if (n > FILE_NAME_MAX) {
            n = FILE_NAME_MAX;
        }
        (*env)->GetByteArrayRegion(env, name, 0, n, (jbyte *) r->name);
        r->name_length = (uint32_t) n;
    }
    __atomic_store_n(&r->java_tid, (int64_t) tid, __ATOMIC_RELEASE);
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
    return (jint) n;
}

JNIEXPORT void JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_consume(JNIEnv *env, jclass cls, jlong handle,
                                                                         jint events) {
    ring_t *r = as_ring(handle);
    if (r == NULL || events <= 0) {
        return;
    }
    uint64_t tail = r->tail;
    uint64_t pending = __atomic_load_n(&r->head, __ATOMIC_ACQUIRE) - tail;
    uint64_t n = (uint64_t) events < pending ? (uint64_t) events : pending;
    __atomic_store_n(&r->tail, tail + n, __ATOMIC_RELEASE);
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_threadId(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    return r == NULL ? -1 : (jlong) __atomic_load_n(&r->java_tid, __ATOMIC_ACQUIRE);
}

JNIEXPORT jlong JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_head(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    return r == NULL ? 0 : (jlong) __atomic_load_n(&r->head, __ATOMIC_ACQUIRE);
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_hasFile(JNIEnv *env, jclass cls, jlong handle) {
    ring_t *r = as_ring(handle);
    return r != NULL && r->durable ? JNI_TRUE : JNI_FALSE;
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
    if (r->durable) {
        ring_file_remove(r->seq);
    }
    if (r->counted_volatile) {
        volatile_rings--;
    }
    pthread_mutex_unlock(&registry_lock);
    munmap(r, r->map_bytes);
}

/* Whether a ring is at least half full; takes the registry lock. */
static int any_ring_half_full(void) {
    int full = 0;
    pthread_mutex_lock(&registry_lock);
    for (ring_t *r = registry_head; r != NULL && !full; r = r->next) {
        full = half_full(r, __atomic_load_n(&r->head, __ATOMIC_ACQUIRE), r->tail);
    }
    pthread_mutex_unlock(&registry_lock);
    return full;
}

JNIEXPORT jboolean JNICALL Java_dev_dprof_agent_bootstrap_NativeRing_awaitFill(JNIEnv *env, jclass cls,
                                                                              jlong timeout_nanos) {
    /* Volatile rings lose what they hold to a kill -9: their drainer polls at its interval instead. */
    if (timeout_nanos <= 0 || !rings_durable()) {
        return JNI_FALSE;
    }
    __atomic_store_n(&drainer_idle, 1, __ATOMIC_SEQ_CST);
    if (__atomic_exchange_n(&wake_permit, 0, __ATOMIC_SEQ_CST) || any_ring_half_full()) {
        __atomic_store_n(&drainer_idle, 0, __ATOMIC_SEQ_CST);
        return JNI_FALSE;
    }
    struct timespec timeout = {(time_t) (timeout_nanos / 1000000000), (long) (timeout_nanos % 1000000000)};
#if DPROF_LINUX
    /* Returns on a wake, on the timeout, on a signal or at once if a producer already cleared the
       word; every case ends the sleep: a spurious return costs one drain pass, nothing else. */
    syscall(SYS_futex, &drainer_idle, FUTEX_WAIT_PRIVATE, 1, &timeout, NULL, 0);
#else
    nanosleep(&timeout, NULL); /* no futex: a half-full ring waits for the timeout */
#endif
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

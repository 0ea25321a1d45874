/*
 * The C logic of dprof_native.c without a JVM: the counter reads, the per-CPU counter check and a
 * ring's producer side. Included whole, so the static functions are reachable. Built and run by
 * run.sh for this machine and, under qemu-aarch64, for linux-aarch64. Exits non-zero on a failure,
 * printing each.
 */
/* The per-CPU check reads through this: the real counter, or on one CPU a counter running behind. */
#define _GNU_SOURCE /* before the first system header, as dprof_native.c needs it */
#include <stdint.h>
static uint64_t skew_ticks;
static int skewed_cpu = -1;
#define WARP_READ(cpu) (counter_read_fenced() - ((cpu) == skewed_cpu ? skew_ticks : 0))

#include "dprof_native.c"

static int failures;

#define CHECK(cond, ...) do { \
        if (!(cond)) { \
            failures++; \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond); \
            fprintf(stderr, __VA_ARGS__); \
            fputc('\n', stderr); \
        } \
    } while (0)

/* One thread's reads never go back, plain or ordered. */
static void counter_advances(void) {
    uint64_t before = counter_read();
    for (int i = 0; i < 200000; i++) {
        uint64_t now = (i & 1) ? counter_read_ordered() : counter_read_fenced();
        CHECK(now >= before, "read %d went back from %llu to %llu", i,
              (unsigned long long) before, (unsigned long long) now);
        before = now;
    }
    struct timespec ms = {0, 2000000};
    uint64_t t0 = counter_read_ordered();
    nanosleep(&ms, NULL);
    CHECK(counter_read_ordered() > t0, "the counter did not move in 2 ms");
}

/* aarch64 states its rate (cntfrq_el0); x86 does not, and the agent measures it. */
static void frequency_is_architectural(void) {
#if DPROF_AARCH64
    uint64_t hz = counter_frequency();
    CHECK(hz >= 1000000 && hz <= 10000000000ULL, "cntfrq_el0 = %llu Hz", (unsigned long long) hz);
    /* The stated rate matches the counter's advance against CLOCK_MONOTONIC within 20%. */
    struct timespec a, b, ms = {0, 20000000};
    clock_gettime(CLOCK_MONOTONIC, &a);
    uint64_t k0 = counter_read_ordered();
    nanosleep(&ms, NULL);
    uint64_t k1 = counter_read_ordered();
    clock_gettime(CLOCK_MONOTONIC, &b);
    double seconds = (double) (b.tv_sec - a.tv_sec) + (double) (b.tv_nsec - a.tv_nsec) / 1e9;
    double measured = (double) (k1 - k0) / seconds;
    CHECK(measured > 0.8 * (double) hz && measured < 1.2 * (double) hz, "counter ran at %.0f Hz, cntfrq says %llu",
          measured, (unsigned long long) hz);
    CHECK(!has_rdtscp(), "aarch64 has no rdtscp");
#else
    CHECK(counter_frequency() == 0, "x86 has no architectural counter rate");
#endif
}

/* The check runs on every CPU of the mask and finds this machine's counters in order. */
static void counters_agree(void) {
    uint64_t out[WARP_FIELDS];
    CHECK(counter_check(2000000000, 2000, out) == 0, "the check did not run");
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    CHECK(out[WARP_CPUS] == (uint64_t) CPU_COUNT(&allowed), "pinned %llu of %d CPUs",
          (unsigned long long) out[WARP_CPUS], CPU_COUNT(&allowed));
    CHECK(out[WARP_READS] > 0, "no read");
    CHECK(out[WARP_CPUS] < 2 || out[WARP_CROSSINGS] > 0, "no crossing in 2 s");
    CHECK(out[WARP_BACKWARDS] == 0, "%llu reads went back, by up to %llu ticks",
          (unsigned long long) out[WARP_BACKWARDS], (unsigned long long) out[WARP_MAX_BACKWARD]);
    printf("[dprof native test] counter check: %llu CPUs, %llu reads, %llu crossings, %llu out of order\n",
           (unsigned long long) out[WARP_CPUS], (unsigned long long) out[WARP_READS],
           (unsigned long long) out[WARP_CROSSINGS], (unsigned long long) out[WARP_BACKWARDS]);
}

/* Synthetic per-CPU readings: one CPU's counter runs 50 ms behind the others; the check must see
   reads out of order (unless it could not compare, as on a machine with one CPU). */
static void aSkewedCpuIsCaught(void) {
    cpu_set_t allowed;
    sched_getaffinity(0, sizeof allowed, &allowed);
    if (CPU_COUNT(&allowed) < 2) {
        printf("[dprof native test] skewed counter: skipped (one CPU)\n");
        return;
    }
    struct timespec ms = {0, 10000000};
    uint64_t k0 = counter_read_ordered();
    nanosleep(&ms, NULL);
    skew_ticks = 5 * (counter_read_ordered() - k0); /* about 50 ms of ticks */
    for (int cpu = CPU_SETSIZE - 1; cpu >= 0; cpu--) {
        if (CPU_ISSET(cpu, &allowed)) {
            skewed_cpu = cpu;
            break;
        }
    }
    uint64_t out[WARP_FIELDS];
    CHECK(counter_check(2000000000, 2000, out) == 0, "the check did not run");
    skewed_cpu = -1;
    CHECK(out[WARP_CROSSINGS] == 0 || out[WARP_BACKWARDS] > 0, "a CPU 50 ms behind went unseen over %llu crossings",
          (unsigned long long) out[WARP_CROSSINGS]);
    CHECK(out[WARP_BACKWARDS] == 0 || out[WARP_MAX_BACKWARD] <= skew_ticks, "a step back of %llu ticks, more than"
          " the skew", (unsigned long long) out[WARP_MAX_BACKWARD]);
    printf("[dprof native test] skewed counter: %llu crossings, %llu out of order, by up to %llu ticks (skew %llu)\n",
           (unsigned long long) out[WARP_CROSSINGS], (unsigned long long) out[WARP_BACKWARDS],
           (unsigned long long) out[WARP_MAX_BACKWARD], (unsigned long long) skew_ticks);
}

/* A ring's producer side: the first event stamps THREAD_START, a full ring counts its losses,
   slots handed back are reused, and ticks are in order. */
static void *ring_producer(void *unused) {
    (void) unused;
    __atomic_store_n(&ring_events, 16, __ATOMIC_RELAXED);
    CHECK(record(7, 11, 12) == 1, "the first event was not stored");
    ring_t *r = tls_ring;
    CHECK(r != NULL && r->head == 2, "a new ring holds THREAD_START and the event");
    if (r == NULL) {
        return NULL;
    }
    CHECK(r->slots[0].header == THREAD_START_HEADER, "header %d", r->slots[0].header);
    CHECK(r->slots[1].header == 7 && r->slots[1].a == 11 && r->slots[1].b == 12, "the event's slot");
    for (int i = 0; i < 20; i++) {
        record(8, i, 0);
    }
    CHECK(r->head == 16, "head %llu of a ring of 16", (unsigned long long) r->head);
    CHECK(r->lost == 6, "lost %llu", (unsigned long long) r->lost);
    for (int i = 1; i < 16; i++) {
        CHECK(r->slots[i].tick >= r->slots[i - 1].tick, "slot %d's tick is before the one before it", i);
    }
    __atomic_store_n(&r->tail, 8, __ATOMIC_RELEASE); /* the drainer hands 8 slots back */
    CHECK(record(9, 1, 2) == 0, "a slot handed back is reused");
    CHECK(r->slots[16 & r->mask].header == 9, "the event went to the reused slot");
    return NULL;
}

static void ring_fills_and_counts(void) {
    JNI_OnLoad(NULL, NULL);
    pthread_t t;
    CHECK(pthread_create(&t, NULL, ring_producer, NULL) == 0, "thread");
    pthread_join(t, NULL);
    ring_t *r = registry_head;
    CHECK(r != NULL && __atomic_load_n(&r->dead, __ATOMIC_ACQUIRE) == 1, "the thread's exit marks its ring dead");
}

int main(void) {
    counter_advances();
    frequency_is_architectural();
    counters_agree();
    aSkewedCpuIsCaught();
    ring_fills_and_counts();
#if DPROF_AARCH64
    const char *arch = "aarch64";
#else
    const char *arch = "x86_64";
#endif
    if (failures > 0) {
        fprintf(stderr, "[dprof native test] %s: %d failures\n", arch, failures);
        return 1;
    }
    printf("[dprof native test] %s: all passed\n", arch);
    return 0;
}

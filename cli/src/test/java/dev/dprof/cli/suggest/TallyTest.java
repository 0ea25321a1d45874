package dev.dprof.cli.suggest;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.cli.suggest.Tally.Suggestion;
import java.lang.reflect.Modifier;
import java.util.BitSet;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Ranking and filtering of {@link Tally} on hand-made stacks (innermost frame first), where every count is known. */
class TallyTest {
    static final Frame RUN = Frame.jdk("java.lang.Thread", "run", "()V");
    static final Frame MAIN = Frame.of("com.example.App", "main", "([Ljava/lang/String;)V");
    static final Frame SOLVE = Frame.of("com.example.Solver", "solve", "(I)J");
    static final Frame STEP = Frame.of("com.example.Solver", "step", "(I)J");
    static final Frame MATH = Frame.jdk("java.lang.StrictMath", "sin", "(D)D");
    static final Frame SEND = Frame.of("com.example.net.Link", "send", "([B)V");
    static final Frame AGENT = Frame.of("dev.dprof.agent.bootstrap.Probes", "enter", "(I)V");

    static List<Frame> stack(Frame... innermostFirst) {
        return List.of(innermostFirst);
    }

    static List<Frame> methods(List<Suggestion> suggestions) {
        return suggestions.stream().map(Suggestion::method).toList();
    }

    @Test
    void ranksByInclusiveTimeCountingARecursiveMethodOncePerSampleAndLeavesOutTheJdkAndTheAgent() {
        Tally t = new Tally(MethodFilter.application());
        for (int i = 0; i < 6; i++) {
            t.sample(stack(MATH, STEP, STEP, STEP, SOLVE, MAIN, RUN)); // recursion: step counts once
        }
        for (int i = 0; i < 3; i++) {
            t.sample(stack(AGENT, SEND, SOLVE, MAIN, RUN));
        }
        t.sample(stack(MATH, RUN)); // no application frame
        assertEquals(10, t.samples());
        assertEquals(9, t.applicationSamples());
        List<Suggestion> s = t.suggest(10);
        // main and solve are on all 9; main wins no tie-break (innermost 0 each), so by name
        assertEquals(List.of(MAIN, SOLVE, STEP, SEND), methods(s));
        assertEquals(List.of("on the stack in 66.7% of the application's samples (the innermost of the application's"
                + " methods in 66.7%)"), s.get(2).reasons());
        assertEquals(List.of("on the stack in 100.0% of the application's samples"), s.get(0).reasons());
        assertEquals(List.of(MAIN, SOLVE), methods(t.suggest(2)), "--top 2");
    }

    @Test
    void aMethodUnderOnePercentOfTheSamplesIsNotSuggestedForItsTime() {
        Tally t = new Tally(MethodFilter.application());
        for (int i = 0; i < 199; i++) {
            t.sample(stack(SOLVE));
        }
        t.sample(stack(STEP)); // 1 of 200 samples, under the 2 that 1% asks
        assertEquals(List.of(SOLVE), methods(t.suggest(10)));
    }

    @Test
    void includeKeepsOnlyWhatItMatchesAndMayNameTheJdkExcludeRemoves() {
        Tally t = new Tally(MethodFilter.of(List.of("com.example.net.**", "java.lang.StrictMath"), List.of()));
        t.sample(stack(MATH, STEP, SOLVE, MAIN));
        t.sample(stack(SEND, SOLVE, MAIN));
        assertEquals(List.of(SEND, MATH), methods(t.suggest(10)), "a tie, by name");

        Tally u = new Tally(MethodFilter.of(List.of(), List.of("com.example.Solver")));
        u.sample(stack(MATH, STEP, SOLVE, MAIN));
        assertEquals(List.of(MAIN), methods(u.suggest(10)));

        IllegalArgumentException bad = assertThrows(IllegalArgumentException.class,
                () -> MethodFilter.of(List.of("com..x"), List.of()));
        assertEquals("--include 'com..x': empty package segment", bad.getMessage());
    }

    @Test
    void dprofsOwnClassesAreNeverSuggestedEvenWhenIncluded() {
        Tally t = new Tally(MethodFilter.of(List.of("dev.dprof.**"), List.of()));
        Frame example = Frame.of("dev.dprof.examples.kmeans.DistributedKMeans$Worker", "assign", "(I)V");
        t.sample(stack(AGENT, example));
        assertEquals(List.of(example), methods(t.suggest(10)));
    }

    @Test
    void framesTheAgentCannotWeaveAreSkippedButLambdaBodiesAndConstructorsAreKept() {
        Frame proxy = new Frame("com.example.App$$Lambda$14/0x0000000800c03000", "run", "()V", Modifier.PUBLIC,
                true, false);
        Frame bridge = new Frame("com.example.Box", "get", "()Ljava/lang/Object;", Modifier.PUBLIC | Frame.BRIDGE
                | Frame.SYNTHETIC, false, false);
        Frame accessor = new Frame("com.example.Box", "access$000", "(Lcom/example/Box;)I", Modifier.STATIC
                | Frame.SYNTHETIC, false, false);
        Frame nativeMethod = new Frame("com.example.Native", "crc", "([B)I", Modifier.NATIVE, false, false);
        Frame init = new Frame("com.example.Box", "<clinit>", "()V", Modifier.STATIC, false, false);
        Frame lambda = new Frame("com.example.App", "lambda$main$0", "(I)V", Modifier.PRIVATE | Modifier.STATIC
                | Frame.SYNTHETIC, false, false);
        Frame constructor = Frame.of("com.example.Box", "<init>", "(I)V");
        Tally t = new Tally(MethodFilter.application());
        t.sample(stack(nativeMethod, accessor, bridge, constructor, init, lambda, proxy));
        t.sample(stack(lambda, proxy)); // the lambda computes in its own body too
        assertEquals(List.of(lambda, constructor), methods(t.suggest(10)));
        assertTrue(lambda.isLambdaBody());
        assertFalse(Frame.of("com.example.App", "lambda$main$0", "(I)V").isLambdaBody(), "not synthetic: written so");
    }

    @Test
    void aLambdaBodyThatOnlyCallsOneMethodIsLeftToThatMethod() {
        int lambdaFlags = Modifier.PRIVATE | Modifier.STATIC | Frame.SYNTHETIC;
        Frame passing = new Frame("com.example.App", "lambda$main$0", "()V", lambdaFlags, false, false);
        Frame working = new Frame("com.example.App", "lambda$main$1", "()V", lambdaFlags, false, false);
        Tally t = new Tally(MethodFilter.application());
        t.sample(stack(STEP, SOLVE, passing, RUN));
        t.sample(stack(STEP, SOLVE, passing, RUN));
        t.sample(stack(working, RUN)); // computes in its own body
        t.sample(stack(STEP, working, RUN));
        assertEquals(List.of(STEP, working, SOLVE), methods(t.suggest(10)),
                "the passing lambda's samples are all SOLVE's; the working one is the innermost once");
    }

    @Test
    void aMethodTheJitInlinedIntoItsCallerInMostOfItsCompiledSamplesIsLeftToTheCaller() {
        BitSet twoCompiled = BitSet.valueOf(new long[] {0b11});
        BitSet innermostInlined = BitSet.valueOf(new long[] {0b1});
        Tally t = new Tally(MethodFilter.application());
        for (int i = 0; i < 2; i++) {
            t.sample(stack(STEP, SOLVE, MAIN), twoCompiled, innermostInlined);
        }
        t.sample(stack(STEP, SOLVE, MAIN), twoCompiled, new BitSet());
        for (int i = 0; i < 5; i++) {
            t.sample(stack(STEP, SOLVE, MAIN)); // interpreted: says nothing of inlining
        }
        assertEquals(List.of(MAIN, SOLVE), methods(t.suggest(10)), "step: inlined in 2 of its 3 compiled samples");

        Tally u = new Tally(MethodFilter.application());
        u.sample(stack(STEP, SOLVE, MAIN), twoCompiled, innermostInlined);
        u.sample(stack(STEP, SOLVE, MAIN), twoCompiled, new BitSet());
        assertEquals(List.of(STEP, MAIN, SOLVE), methods(u.suggest(10)), "inlined in half of them only");
        u.inlinedAtHotSite(new Frame(STEP.className(), STEP.methodName(), STEP.descriptor(), 0, false, false));
        assertEquals(List.of(MAIN, SOLVE), methods(u.suggest(10)), "the JIT inlined it at a hot call site");
    }

    @Test
    void aPoolWorkersTaskIsTheApplicationFrameRightAboveThePool() {
        Frame task = Frame.of("com.example.Handler", "handle", "(Lcom/example/Request;)V");
        List<Frame> pool = List.of(Frame.jdk("java.util.concurrent.FutureTask", "run", "()V"),
                Frame.jdk("java.util.concurrent.ThreadPoolExecutor", "runWorker",
                        "(Ljava/util/concurrent/ThreadPoolExecutor$Worker;)V"),
                Frame.jdk("java.util.concurrent.ThreadPoolExecutor$Worker", "run", "()V"), RUN);
        Tally t = new Tally(MethodFilter.application());
        for (int i = 0; i < 3; i++) {
            t.sample(concat(List.of(STEP, SOLVE, task), pool));
        }
        t.sample(concat(List.of(MATH), pool)); // a task with no application frame
        List<Suggestion> s = t.suggest(1);
        assertEquals(List.of(STEP, task), methods(s), "the top method by time, then the top pool task");
        assertEquals(List.of("a pool worker's task: 100.0% of the application's samples"), s.get(1).reasons());
    }

    @Test
    void waitsAreToldApartByTheOutermostJdkFrameAndIdleWorkersAreNoWaits() {
        Frame consume = Frame.of("com.example.Consumer", "consume", "()V");
        Frame park = Frame.jdk("jdk.internal.misc.Unsafe", "park", "(ZJ)V");
        Frame lockSupport = Frame.jdk("java.util.concurrent.locks.LockSupport", "park", "(Ljava/lang/Object;)V");
        Frame await = Frame.jdk("java.util.concurrent.locks.AbstractQueuedSynchronizer$ConditionObject", "await", "()V");
        Frame take = Frame.jdk("java.util.concurrent.LinkedBlockingQueue", "take", "()Ljava/lang/Object;");
        Frame getTask = Frame.jdk("java.util.concurrent.ThreadPoolExecutor", "getTask", "()Ljava/lang/Runnable;");
        Frame latch = Frame.jdk("java.util.concurrent.CountDownLatch", "await", "()V");
        Frame read = Frame.jdk("java.net.Socket$SocketInputStream", "read", "([BII)I");
        Frame receive = Frame.of("com.example.net.Link", "receive", "()[B");

        Tally t = new Tally(MethodFilter.application());
        t.waited(WaitKind.PARK, 3_000_000, stack(park, lockSupport, await, take, consume, RUN));
        t.waited(WaitKind.PARK, 1_000_000, stack(park, lockSupport, await, take, consume, RUN));
        t.waited(WaitKind.PARK, 9_000_000, stack(park, lockSupport, latch, MAIN));
        t.waited(WaitKind.PARK, 50_000_000, stack(park, lockSupport, await, take, getTask, RUN));
        t.waited(WaitKind.SOCKET_READ, 7_000_000, stack(read, receive, SOLVE));
        t.waited(WaitKind.PARK, 2_000_000, stack(park, lockSupport, await, RUN));

        assertEquals(List.of(MAIN, receive, consume), methods(t.suggest(10)), "by time waited");
        List<Suggestion> s = t.suggest(10);
        assertEquals(List.of("waited 0.009 s in 1 latch, barrier or semaphore waits (" + WaitKind.LATCH.recorded() + ")"),
                s.get(0).reasons());
        assertEquals(List.of("waited 0.004 s in 2 queue takes (" + WaitKind.QUEUE_TAKE.recorded() + ")"),
                s.get(2).reasons());
        assertArrayEquals(new long[] {1, 50_000_000}, t.waitsOutside().get(WaitKind.POOL_IDLE));
        assertArrayEquals(new long[] {1, 2_000_000}, t.waitsOutside().get(WaitKind.CONDITION));
    }

    @Test
    void aMonitorWaitInsideThreadJoinIsAJoin() {
        Frame wait = Frame.jdk("java.lang.Object", "wait", "(J)V");
        Frame join = Frame.jdk("java.lang.Thread", "join", "(J)V");
        assertEquals(WaitKind.JOIN, WaitKind.ofPark(List.of(wait, join, Frame.jdk("java.lang.Thread", "join", "()V")),
                true));
        assertEquals(WaitKind.MONITOR_WAIT, WaitKind.ofPark(List.of(wait), true));
        assertEquals(WaitKind.PARK, WaitKind.ofPark(List.of(), false));
    }

    private static List<Frame> concat(List<Frame> a, List<Frame> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}

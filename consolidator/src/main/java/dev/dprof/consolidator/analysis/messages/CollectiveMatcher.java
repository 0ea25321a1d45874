package dev.dprof.consolidator.analysis.messages;

import dev.dprof.format.CollectiveFlavour;
import dev.dprof.format.CollectiveShape;
import dev.dprof.format.profile.ProfileEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Pairs the exits of collective instances ({@code BARRIER_ENTER}/{@code BARRIER_EXIT}, one
 * instance per {@link BarrierKey}) with the enters that happen before them, by the instance's
 * flavour: Becker et al. 2009, §4.1, a collective as logical messages from enters (sends) to exits
 * (receives) — N-to-N every enter to every exit, 1-to-N the root's enter to every exit, N-to-1
 * every enter to the root's exit, scan (exscan) the enter of rank i to the exits of ranks j ≥ i
 * (j > i). Used over a profile's causal order, where those enters come before the exit.
 *
 * <p>Nothing is invented: an exit gets the enters seen so far that precede it; an instance whose
 * events disagree on flavour, root or participants, or carry an invalid shape, is malformed and
 * gives no pairs; an instance still short of enters or exits at the end is incomplete. An instance
 * is forgotten once all its participants entered and left, so a key may be reused afterwards.
 * Memory: the instances in progress.
 *
 * @param <T> what an enter leaves for the exits it precedes
 */
public final class CollectiveMatcher<T> {
    private static final class Instance<T> {
        final CollectiveShape shape;
        final List<T> values = new ArrayList<>();
        final List<Long> ranks = new ArrayList<>();
        long exits;
        boolean malformed;

        Instance(CollectiveShape shape) {
            this.shape = shape;
            this.malformed = shape.flavour() == null;
        }

        /** Whether {@code other} (another participant's shape) belongs to the same collective. */
        boolean agrees(CollectiveShape other) {
            return other.flavour() == shape.flavour() && other.participants() == shape.participants()
                    && (shape.flavour() == null || !shape.flavour().rooted || other.root() == shape.root());
        }

        boolean complete() {
            return values.size() >= shape.participants() && exits >= shape.participants();
        }
    }

    private final Map<BarrierKey, Instance<T>> open = new HashMap<>();
    private long malformed;
    private long pairs;

    /** An enter: {@code value} waits for the exits it precedes. */
    public void enter(ProfileEvent e, T value) {
        Instance<T> instance = instance(e);
        instance.values.add(value);
        instance.ranks.add(CollectiveShape.unpack(e.b).rank());
        forgetIfComplete(e, instance);
    }

    /** An exit: what the enters that happen before it left, in their order (empty if none, or malformed). */
    public List<T> exit(ProfileEvent e) {
        Instance<T> instance = instance(e);
        instance.exits++;
        List<T> before = new ArrayList<>();
        if (!instance.malformed) {
            CollectiveShape exit = CollectiveShape.unpack(e.b);
            CollectiveFlavour flavour = instance.shape.flavour();
            for (int i = 0; i < instance.values.size(); i++) {
                if (flavour.precedes(instance.ranks.get(i), exit.rank(), instance.shape.root())) {
                    before.add(instance.values.get(i));
                }
            }
        }
        pairs += before.size();
        forgetIfComplete(e, instance);
        return before;
    }

    private Instance<T> instance(ProfileEvent e) {
        BarrierKey key = BarrierKey.of(e);
        CollectiveShape shape = CollectiveShape.unpack(e.b);
        Instance<T> instance = open.computeIfAbsent(key, k -> new Instance<>(shape));
        if (!instance.malformed && !instance.agrees(shape)) {
            instance.malformed = true;
        }
        return instance;
    }

    private void forgetIfComplete(ProfileEvent e, Instance<T> instance) {
        if (instance.complete()) {
            open.remove(BarrierKey.of(e));
            malformed += instance.malformed ? 1 : 0;
        }
    }

    /** Logical messages (enter → exit pairs) handed out so far. */
    public long pairs() {
        return pairs;
    }

    /** Instances not (yet) entered and left by all their participants. */
    public long incomplete() {
        return open.size();
    }

    /** Instances whose events disagree on their shape or carry an invalid one; they gave no pairs. */
    public long malformed() {
        return malformed + open.values().stream().filter(i -> i.malformed).count();
    }
}

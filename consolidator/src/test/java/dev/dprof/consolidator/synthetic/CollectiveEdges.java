package dev.dprof.consolidator.synthetic;

import dev.dprof.format.CollectiveShape;
import dev.dprof.format.EventKind;
import dev.dprof.format.profile.ProfileEvent;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The happens-before pairs of the collectives in a list of events, worked out directly from each
 * instance's shape (Becker §4.1, {@code CollectiveFlavour#precedes}) over the whole list, whatever
 * its order: the tests' independent view of what the consolidator must respect.
 *
 * @param enter the index of the enter in the list
 * @param exit  the index of the exit it happens before
 */
public record CollectiveEdges(int enter, int exit) {

    public static List<CollectiveEdges> of(List<ProfileEvent> events) {
        record Instance(List<Integer> enters, List<Integer> exits) {
        }
        Map<List<Long>, Instance> instances = new HashMap<>();
        for (int i = 0; i < events.size(); i++) {
            ProfileEvent e = events.get(i);
            if (e.kind == EventKind.BARRIER_ENTER || e.kind == EventKind.BARRIER_EXIT) {
                Instance in = instances.computeIfAbsent(List.of((long) e.region, e.a),
                        k -> new Instance(new ArrayList<>(), new ArrayList<>()));
                (e.kind == EventKind.BARRIER_ENTER ? in.enters() : in.exits()).add(i);
            }
        }
        List<CollectiveEdges> edges = new ArrayList<>();
        for (Instance in : instances.values()) {
            for (int x : in.exits()) {
                CollectiveShape exit = CollectiveShape.unpack(events.get(x).b);
                for (int n : in.enters()) {
                    CollectiveShape enter = CollectiveShape.unpack(events.get(n).b);
                    if (exit.flavour().precedes(enter.rank(), exit.rank(), exit.root())) {
                        edges.add(new CollectiveEdges(n, x));
                    }
                }
            }
        }
        return edges;
    }
}

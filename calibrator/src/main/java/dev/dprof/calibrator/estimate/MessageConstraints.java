package dev.dprof.calibrator.estimate;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Adds matched messages to a calibration as extra points, soundly.
 *
 * <ul>
 * <li>Between a domain and its parent a message is a half-plane on that domain's line, exactly
 * like a zero ({@link Constraints#sentFromNode}, {@link Constraints#receivedByNode}): tight.</li>
 * <li>Between two children of one parent the two lines are coupled. Each side gets a point
 * built from the other side's current bound, held fixed — the sender's value at the send is
 * below the receiver's upper bound at the receive, the receiver's above the sender's lower bound
 * — and the rounds repeat. Every point is implied by the true lines, so the result is sound at
 * every round; it is not the joint optimum of both polygons, which a 4-variable program would
 * give.</li>
 * <li>Messages between domains further apart in the tree are not used (counted in
 * {@link Result#unused}).</li>
 * </ul>
 */
public final class MessageConstraints {
    /** Rounds of the sibling iteration; later rounds rarely tighten further. */
    public static final int DEFAULT_ROUNDS = 2;

    private MessageConstraints() {
    }

    /** The calibration with the messages added, and how many could not be used. */
    public record Result(CalibrationSet calibration, int used, int unused) {
    }

    public static Result apply(CalibrationSet base, List<MatchedMessage> messages, int rounds)
            throws CalibrationException {
        Map<String, String> parent = new HashMap<>();
        base.domains().forEach(d -> d.parentDomainId().ifPresent(p -> parent.put(d.domainId(), p)));
        Map<String, List<LinePoint>> direct = new HashMap<>();
        List<MatchedMessage> siblings = new ArrayList<>();
        int unused = 0;
        for (MatchedMessage m : messages) {
            String s = m.sendDomain();
            String r = m.receiveDomain();
            if (s.equals(r)) {
                continue;
            }
            if (r.equals(parent.get(s))) {
                direct.computeIfAbsent(s, k -> new ArrayList<>())
                        .add(Constraints.sentFromNode(m.sendTick(), m.receiveTick() + 1));
            } else if (s.equals(parent.get(r))) {
                direct.computeIfAbsent(r, k -> new ArrayList<>())
                        .add(Constraints.receivedByNode(m.receiveTick(), m.sendTick()));
            } else if (parent.get(s) != null && parent.get(s).equals(parent.get(r))) {
                siblings.add(m);
            } else {
                unused++;
            }
        }
        CalibrationSet current = base.withPoints(direct);
        for (int round = 0; round < rounds && !siblings.isEmpty(); round++) {
            Map<String, List<LinePoint>> points = new HashMap<>();
            direct.forEach((d, p) -> points.put(d, new ArrayList<>(p)));
            // One cursor per domain for the round: a cursor gives the same bound in any order, and
            // one kept searches from the last message's window and pieces, not from the first.
            Map<String, DomainConversion.Cursor> cursors = new HashMap<>();
            CalibrationSet now = current;
            for (MatchedMessage m : siblings) {
                DomainConversion.Cursor sender = cursors.computeIfAbsent(m.sendDomain(),
                        d -> now.conversion(d).orElseThrow().cursor());
                DomainConversion.Cursor receiver = cursors.computeIfAbsent(m.receiveDomain(),
                        d -> now.conversion(d).orElseThrow().cursor());
                long receiverUpper = receiver.upperAt(m.receiveTick() + 1);
                long senderLower = sender.lowerAt(m.sendTick());
                if (receiverUpper != Long.MAX_VALUE) {
                    points.computeIfAbsent(m.sendDomain(), k -> new ArrayList<>())
                            .add(Constraints.sentFromNode(m.sendTick(), receiverUpper));
                }
                if (senderLower != Long.MIN_VALUE) {
                    points.computeIfAbsent(m.receiveDomain(), k -> new ArrayList<>())
                            .add(Constraints.receivedByNode(m.receiveTick(), senderLower));
                }
            }
            current = base.withPoints(points);
        }
        return new Result(current, messages.size() - unused, unused);
    }
}

package dev.dprof.calibrator.estimate;

/**
 * A message whose send was stamped {@code sendTick} on {@code sendDomain} before its bytes left
 * and whose receive was stamped {@code receiveTick} on {@code receiveDomain} after they arrived:
 * in real time the send precedes the receive, which constrains the two domains' conversions just
 * as a zero does (DESIGN.md "Matched in-run messages add half-planes of the same kind").
 */
public record MatchedMessage(String sendDomain, long sendTick, String receiveDomain, long receiveTick) {
}

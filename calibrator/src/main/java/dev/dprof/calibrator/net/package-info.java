/**
 * FreeZer over UDP (DProf §3.2, Alg. 4; the tree of §4.1): the server, the node that measures zeros
 * into a {@code .cal} file, the packets and their HMAC ({@code docs/CALIBRATION.md}), and for test
 * beds a relay and a forger. Depends on {@code format}, on {@code estimate} (the conversion a node
 * checks its zeros with) and on {@code agent/bootstrap}'s {@code NativeClock} for ordered TSC reads; used by the agent and the {@code calibrate} commands.
 */
package dev.dprof.calibrator.net;

package dev.dprof.cli;

import dev.dprof.calibrator.net.JoinException;
import dev.dprof.calibrator.net.HostPort;
import dev.dprof.calibrator.net.UdpRelay;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code dprof testbed relay}: a {@link UdpRelay} as a process of its own, so a test bed can put
 * delay, jitter, loss, duplication or asymmetry between two calibrating JVMs (this kernel has no
 * netem). Runs until SIGTERM/SIGINT.
 */
@Command(name = "relay", mixinStandardHelpOptions = true,
        description = "Relay UDP from a port to a target and back, adding delay, jitter, loss, duplication, asymmetry.")
final class TestbedRelayCommand implements Callable<Integer> {
    @Option(names = "--listen", required = true, paramLabel = "P", description = "UDP port to listen on (0: any free port, printed)")
    int listen;

    @Option(names = "--target", required = true, paramLabel = "HOST:PORT", description = "where datagrams go")
    String target;

    @Option(names = "--delay-us", defaultValue = "0", paramLabel = "US", description = "fixed delay per datagram (default ${DEFAULT-VALUE})")
    long delayUs;

    @Option(names = "--jitter-us", defaultValue = "0", paramLabel = "US",
            description = "extra delay, uniform in [0, US]; reorders datagrams (default ${DEFAULT-VALUE})")
    long jitterUs;

    @Option(names = "--loss", defaultValue = "0", paramLabel = "P", description = "drop probability, 0..1 (default ${DEFAULT-VALUE})")
    double loss;

    @Option(names = "--dup", defaultValue = "0", paramLabel = "P", description = "duplication probability, 0..1 (default ${DEFAULT-VALUE})")
    double dup;

    @Option(names = "--one-way", paramLabel = "WAY",
            description = "delay and jitter only one way: forward (to the target) or backward (default: both ways)")
    String oneWay;

    @Option(names = "--seed", defaultValue = "1", description = "seed of the random decisions (default ${DEFAULT-VALUE})")
    long seed;

    @Override
    public Integer call() throws CliException, InterruptedException {
        InetSocketAddress to;
        try {
            to = HostPort.parse(target).resolve();
        } catch (IllegalArgumentException | JoinException e) {
            throw new CliException("--target: " + e.getMessage());
        }
        UdpRelay.Direction delayed;
        if (oneWay == null) {
            delayed = UdpRelay.Direction.BOTH;
        } else if (oneWay.equalsIgnoreCase("forward") || oneWay.equalsIgnoreCase("backward")) {
            delayed = UdpRelay.Direction.valueOf(oneWay.toUpperCase(java.util.Locale.ROOT));
        } else {
            throw new CliException("--one-way must be forward or backward, not '" + oneWay + "'");
        }
        UdpRelay.Settings settings;
        try {
            settings = new UdpRelay.Settings(listen, to, delayUs, jitterUs, loss, dup, delayed, seed);
        } catch (IllegalArgumentException e) {
            throw new CliException(e.getMessage());
        }
        UdpRelay relay;
        try {
            relay = UdpRelay.start(settings);
        } catch (IOException e) {
            throw new CliException("cannot listen on UDP port " + listen + " (" + e.getMessage() + ")");
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            relay.close();
            CalibrateCommand.err("relay ended: " + relay.counts());
        }, "dprof-relay-shutdown"));
        CalibrateCommand.err("relaying UDP port " + relay.port() + " to " + target + " (" + settings + ")");
        CalibrateCommand.blockUntilShutdown();
        return 0;
    }
}

package dev.dprof.cli;

import picocli.CommandLine.Command;

/**
 * {@code dprof testbed …}: tools for running several simulated "machines" on one host
 * (DESIGN.md "Simulated clocks and the test bed").
 */
@Command(name = "testbed", mixinStandardHelpOptions = true,
        description = "Test-bed tools for simulating several machines on one host.",
        subcommands = {TestbedCalibrateCommand.class, TestbedCheckCommand.class, TestbedRelayCommand.class})
public final class TestbedCommand {
}

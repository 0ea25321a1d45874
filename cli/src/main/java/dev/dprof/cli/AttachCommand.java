package dev.dprof.cli;

import dev.dprof.settings.DprofSettings;
import java.io.File;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import com.sun.tools.attach.AgentInitializationException;
import com.sun.tools.attach.AgentLoadException;
import com.sun.tools.attach.AttachNotSupportedException;
import com.sun.tools.attach.VirtualMachine;
import java.io.IOException;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code dprof attach PID --config dprof.yaml}: starts profiling a running JVM. */
@Command(name = "attach", mixinStandardHelpOptions = true,
        description = "Attach the agent to a running JVM; classes already loaded are retransformed.")
public final class AttachCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "PID", description = "the process id of the JVM")
    long pid;

    @Option(names = "--config", paramLabel = "FILE", required = true, description = "the YAML region selection")
    Path config;

    @Option(names = "--out", paramLabel = "DIR", description = "where the run's queue goes (default: the config's out)")
    Path out;

    @Override
    public Integer call() throws CliException {
        if (!Files.isRegularFile(config)) {
            throw new CliException(config + ": no such file");
        }
        String args = "config=" + config.toAbsolutePath() + (out == null ? "" : ",out=" + out.toAbsolutePath());
        String woven;
        try {
            VirtualMachine vm = VirtualMachine.attach(Long.toString(pid));
            try {
                vm.loadAgent(agentJar().getAbsolutePath(), args);
                woven = vm.getSystemProperties().getProperty(DprofSettings.ATTACH_REPORT_PROPERTY);
            } finally {
                vm.detach();
            }
        } catch (AttachNotSupportedException | IOException | AgentLoadException | AgentInitializationException e) {
            throw new CliException("cannot attach to process " + pid + ": " + e.getMessage());
        }
        System.out.println("dprof: attached to " + pid + " with " + config);
        if (woven != null) {
            // the agent's own line, as the application's stderr has it and as the end of the run will say it
            System.out.println("dprof: " + woven);
        }
        return 0;
    }

    /**
     * The agent jar: {@code -Ddprof.jar} as the {@code ./dprof} launcher sets it, else {@code dprof.jar}
     * beside the jar this class came from, else the checkout's {@code agent/jar/target/dprof.jar}
     * when that jar is {@code cli/target/dprof-cli.jar}. The CLI is not the agent: the agent jar holds
     * only what the application may see and the agent's isolated part ({@code agent/jar}).
     */
    static File agentJar() throws CliException {
        java.util.Optional<Path> property = DprofSettings.agentJar();
        if (property.isPresent()) {
            File jar = property.get().toFile();
            if (!jar.isFile()) {
                throw new CliException("the agent jar " + jar + " is missing: run './dprof agent-jar' to build it");
            }
            return jar;
        }
        File cli;
        try {
            cli = new File(AttachCommand.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new CliException("cannot locate dprof.jar: " + e.getMessage());
        }
        File beside = new File(cli.getParentFile(), "dprof.jar");
        if (beside.isFile()) {
            return beside;
        }
        // cli/target/dprof-cli.jar → the module cli/ → its sibling agent/jar/target/dprof.jar
        java.nio.file.Path module = cli.toPath().toAbsolutePath().getParent().getParent();
        File checkout = module == null ? beside : module.resolveSibling("agent/jar/target/dprof.jar").toFile();
        if (checkout.isFile()) {
            return checkout;
        }
        throw new CliException("no agent jar beside " + cli + " nor at " + checkout
                + ": run './dprof agent-jar' to build it, or give -D" + DprofSettings.AGENT_JAR_PROPERTY + "=PATH");
    }
}

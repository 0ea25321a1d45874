package dev.dprof.it;

import static org.junit.jupiter.api.Assertions.assertEquals;

import dev.dprof.format.EventKind;
import dev.dprof.it.ForkedJvm.Output;
import dev.dprof.it.ForkedJvm.Recording;
import dev.dprof.it.app.ByteBuddyApp;
import java.nio.file.Path;
import java.util.List;
import net.bytebuddy.ByteBuddy;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An application that carries and uses its own ByteBuddy while the agent (with its relocated
 * copy) runs: the application works, the YAML region on its own class is recorded, and so is a
 * region on the class it generated at run time.
 */
class ByteBuddyIT {
    static final int CALLS = 3_000;

    @Test
    void applicationWithItsOwnByteBuddy(@TempDir Path tmp) throws Exception {
        Path out = tmp.resolve("out");
        Path config = ForkedJvm.config(tmp, """
                regions:
                  - {name: greeter.work, class: dev.dprof.it.app.ByteBuddyApp$Greeter, method: work}
                  - {name: generated.greet, class: dev.dprof.it.app.GeneratedGreeter, method: greet}
                """);
        Output output = ForkedJvm.app(ByteBuddyApp.class, tmp).withClasspathOf(ByteBuddy.class)
                .agent(config, out).args(CALLS).runOk();
        assertEquals(List.of("hello from bytebuddy (dev.dprof.it.app.GeneratedGreeter)",
                "sum=" + (long) CALLS * (CALLS + 1) / 2), output.stdout(), output::toString);
        assertEquals(1, output.dprofLinesAllWoven().size(), output::toString);

        Recording run = Recording.readOnly(out);
        run.requireCleanEnd();
        assertEquals(CALLS, run.count("greeter.work", EventKind.ENTER));
        assertEquals(CALLS, run.count("greeter.work", EventKind.EXIT));
        assertEquals(1, run.count("generated.greet", EventKind.ENTER));
        assertEquals(1, run.count("generated.greet", EventKind.EXIT));
    }
}

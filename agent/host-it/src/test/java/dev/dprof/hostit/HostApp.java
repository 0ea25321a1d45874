package dev.dprof.hostit;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.ByteString;
import com.google.protobuf.CodedOutputStream;
import com.sun.jna.Memory;
import java.io.File;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import net.bytebuddy.ByteBuddy;
import net.bytebuddy.implementation.FixedValue;
import net.bytebuddy.matcher.ElementMatchers;
import net.openhft.chronicle.queue.ChronicleQueue;
import net.openhft.chronicle.queue.ExcerptAppender;
import net.openhft.chronicle.queue.ExcerptTailer;
import picocli.CommandLine;

/**
 * An application that carries its own versions of the libraries the agent (ByteBuddy, Chronicle, JNA)
 * and the command line (Jackson, protobuf, picocli) use. Each does real work and prints, on one
 * line, the jar its classes came from and what it computed; {@link #work} is the profiled region.
 * Argument: a directory for its Chronicle queue.
 */
public final class HostApp {
    private HostApp() {
    }

    public static void main(String[] args) throws Exception {
        Path dir = Path.of(args[0]);
        for (int i = 0; i < 3; i++) {
            work(i);
        }
        line("jackson", ObjectMapper.class, new ObjectMapper().writeValueAsString(Map.of("k", List.of(1, 2))));
        line("protobuf", ByteString.class, ByteString.copyFromUtf8("dprof").toStringUtf8() + " "
                + CodedOutputStream.computeInt64SizeNoTag(300));
        line("picocli", CommandLine.class, Integer.toString(new CommandLine(new Twice()).execute("--n", "21")));
        Object made = new ByteBuddy().subclass(Object.class).method(ElementMatchers.named("toString"))
                .intercept(FixedValue.value("made by the application's ByteBuddy")).make()
                .load(HostApp.class.getClassLoader()).getLoaded().getDeclaredConstructor().newInstance();
        line("bytebuddy", ByteBuddy.class, made.toString());
        try (Memory memory = new Memory(8)) {
            memory.setLong(0, 42);
            line("jna", Memory.class, Long.toString(memory.getLong(0)));
        }
        try (ChronicleQueue queue = ChronicleQueue.singleBuilder(dir.resolve("host-queue").toFile()).build()) {
            try (ExcerptAppender appender = queue.createAppender()) {
                appender.writeText("written by the application's Chronicle");
            }
            try (ExcerptTailer tailer = queue.createTailer()) {
                line("chronicle", ChronicleQueue.class, tailer.readText());
            }
        }
    }

    /** The profiled region. */
    static long work(int i) {
        long sum = 0;
        for (int k = 0; k < 1000 * (i + 1); k++) {
            sum += k * (long) k;
        }
        return sum;
    }

    private static void line(String library, Class<?> type, String result) throws Exception {
        String jar = new File(type.getProtectionDomain().getCodeSource().getLocation().toURI()).getName();
        System.out.println(library + " " + jar + " " + result);
    }

    /** A picocli command: its exit code is twice its option. */
    @CommandLine.Command(name = "twice")
    static final class Twice implements Callable<Integer> {
        @CommandLine.Option(names = "--n")
        int n;

        @Override
        public Integer call() {
            return 2 * n;
        }
    }
}

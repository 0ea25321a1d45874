package dev.dprof.agent.instrument;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.dprof.api.Region;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * The weaver's pre-filter passes over a class unparsed unless its bytes name {@code @Region}: it
 * must find the annotation in every class that carries it, on a method or a constructor.
 */
class RegionDescriptorFilterTest {

    static final class Annotated {
        @Region("filter.test")
        void work() {
        }
    }

    static final class AnnotatedConstructor {
        @Region
        AnnotatedConstructor() {
        }
    }

    static final class Plain {
        void work() {
        }
    }

    private static byte[] classBytes(Class<?> type) throws IOException {
        String resource = "/" + type.getName().replace('.', '/') + ".class";
        try (InputStream in = type.getResourceAsStream(resource)) {
            return in.readAllBytes();
        }
    }

    private static final byte[] DESCRIPTOR = "Ldev/dprof/api/Region;".getBytes(StandardCharsets.US_ASCII);

    @Test
    void findsTheAnnotationInClassesThatCarryIt() throws IOException {
        assertTrue(Weaver.contains(classBytes(Annotated.class), DESCRIPTOR));
        assertTrue(Weaver.contains(classBytes(AnnotatedConstructor.class), DESCRIPTOR));
        assertFalse(Weaver.contains(classBytes(Plain.class), DESCRIPTOR));
    }

    @Test
    void substringSearchAtTheEdges() {
        byte[] needle = {1, 2, 3};
        assertTrue(Weaver.contains(new byte[] {1, 2, 3}, needle));
        assertTrue(Weaver.contains(new byte[] {9, 1, 2, 3}, needle));
        assertTrue(Weaver.contains(new byte[] {1, 1, 2, 3, 9}, needle));
        assertFalse(Weaver.contains(new byte[] {1, 2}, needle));
        assertFalse(Weaver.contains(new byte[] {1, 2, 4, 1, 2}, needle));
        assertFalse(Weaver.contains(new byte[0], needle));
    }

    @Test
    void theDescriptorIsTheAnnotationsType() {
        assertArrayEquals(DESCRIPTOR, ("L" + Region.class.getName().replace('.', '/') + ";")
                .getBytes(StandardCharsets.US_ASCII));
    }
}

package dev.dprof.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class AgentArgsTest {
    @Test
    void warmsUpUnlessToldNot() {
        assertTrue(AgentArgs.parse(null).warmup());
        assertTrue(AgentArgs.parse("dprof.yaml").warmup());
        AgentArgs on = AgentArgs.parse("config=dprof.yaml, out=runs, warmup=true");
        assertTrue(on.warmup());
        assertEquals(Optional.of(Path.of("dprof.yaml")), on.config());
        assertEquals(Optional.of(Path.of("runs")), on.out());
        assertFalse(AgentArgs.parse("warmup=false").warmup());
    }

    @Test
    void aBadWarmupValueIsNamed() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentArgs.parse("warmup=no"));
        assertEquals("agent argument warmup: expected true or false, found 'no'", e.getMessage());
    }

    @Test
    void handoffsOverrideTheYamlOnlyWhenGiven() {
        assertEquals(Optional.empty(), AgentArgs.parse("config=dprof.yaml").handoffs());
        assertEquals(Optional.of(false), AgentArgs.parse("config=dprof.yaml,handoffs=off").handoffs());
        assertEquals(Optional.of(true), AgentArgs.parse("handoffs=auto").handoffs());
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> AgentArgs.parse("handoffs=on"));
        assertEquals("agent argument handoffs: expected auto or off, found 'on'", e.getMessage());
    }
}

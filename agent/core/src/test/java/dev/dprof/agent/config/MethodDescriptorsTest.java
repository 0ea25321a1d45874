package dev.dprof.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class MethodDescriptorsTest {

    @ParameterizedTest
    @ValueSource(strings = {"()V", "(I)V", "(IJ[Ljava/lang/String;[[D)Ljava/lang/Object;", "(Z)[I", "()LA;",
        "(BCDFIJSZ)C", "(Lcom/example/Worker$Job;)V"})
    void valid(String d) {
        assertNull(MethodDescriptors.problem(d));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "''                       | empty descriptor",
        "I)V                      | must start with '('",
        "(I                       | missing ')'",
        "(I)                      | missing return type after ')'",
        "(V)V                     | 'V' (void) is only allowed as the return type",
        "(X)V                     | unknown type 'X' at offset 1 (expected one of B, C, D, F, I, J, S, Z, L<class>; or [)",
        "(I)VV                    | unexpected 'V' after the return type",
        "(Ljava/lang/String)V     | class name at offset 1 is not terminated by ';'",
        "(L;)V                    | empty class name at offset 1",
        "(Ljava//String;)V        | empty name segment in class name 'java//String'",
        "(Ljava.lang.String;)V    | class names in descriptors use '/', not '.' ('java.lang.String')",
        "([)V                     | unknown type ')' at offset 2 (expected one of B, C, D, F, I, J, S, Z, L<class>; or [)",
        "(I)[                     | missing array element type",
        "(I)[V                    | 'V' (void) is only allowed as the return type",
    })
    void invalid(String d, String reason) {
        assertEquals(reason, MethodDescriptors.problem(d));
    }

    @Test
    void limits() {
        assertEquals("array of more than 255 dimensions", MethodDescriptors.problem("(" + "[".repeat(256) + "I)V"));
        assertNull(MethodDescriptors.problem("(" + "[".repeat(255) + "I)V"));
        assertEquals("more than 255 parameter slots", MethodDescriptors.problem("(" + "J".repeat(128) + ")V"));
        assertNull(MethodDescriptors.problem("(" + "I".repeat(255) + ")V"));
    }
}

package dev.dprof.agent.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class ClassPatternTest {

    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource(delimiter = '|', value = {
        "com.example.Worker      | com.example.Worker           | true",
        "com.example.Worker      | com.example.Worker$Inner     | false",
        "com.example.Worker      | com.example.Worker2          | false",
        "com.example.Worker      | com.exampleXWorker           | false",
        "com.example.Worker$Job  | com.example.Worker$Job       | true",
        "com.example.Worker$*    | com.example.Worker$Job       | true",
        "com.example.*           | com.example.A                | true",
        "com.example.*           | com.example.A$B              | true",
        "com.example.*           | com.example.sub.A            | false",
        "com.example.*           | com.other.A                  | false",
        "com.example.**          | com.example.A                | true",
        "com.example.**          | com.example.sub.deep.A       | true",
        "com.example.**          | com.exampleX.A               | false",
        "com.example.**          | com.example                  | false",
        "com.example**           | com.exampleX.A               | true",
        "**                      | anything.at.All              | true",
        "**                      | Top                          | true",
        "com.*.Worker            | com.a.Worker                 | true",
        "com.*.Worker            | com.a.b.Worker               | false",
        "com.**.Worker           | com.a.b.Worker               | true",
        "com.**.Worker           | com.a.Worker                 | true",
        "com.**.Worker           | com.Worker                   | false",
        "com.example.Work?r      | com.example.Worker           | true",
        "com.example.Work?r      | com.example.Workr            | false",
        "com.example?Worker      | com.example.Worker           | false",
        "*Test                   | FooTest                      | true",
        "*Test                   | com.FooTest                  | false",
        "**Test                  | com.a.FooTest                | true",
        "**.*Test                | com.a.FooTest                | true",
        "**.*Test                | com.a.FooTest$Inner          | false",
    })
    void classGlobs(String glob, String name, boolean expected) {
        assertEquals(expected, ClassPattern.forClass(glob).matches(name));
    }

    @ParameterizedTest(name = "{0} ~ {1} = {2}")
    @CsvSource(delimiter = '|', value = {
        "compute  | compute    | true",
        "compute  | compute2   | false",
        "get*     | getId      | true",
        "get*     | get        | true",
        "get*     | isId       | false",
        "*        | run        | true",
        "*        | <init>     | false",
        "**       | <init>     | false",
        "?et      | get        | true",
        "<init>   | <init>     | true",
        "<init>   | init       | false",
        "lambda$* | lambda$run$0 | true",
    })
    void methodGlobs(String glob, String name, boolean expected) {
        assertEquals(expected, ClassPattern.forMethod(glob).matches(name));
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "''              | empty pattern",
        "com.            | empty package segment",
        ".com            | empty package segment",
        "com..A          | empty package segment",
        "com/acme/A      | use '.' to separate packages, not '/'",
        "com.***         | '***' is not a wildcard (use '*' or '**')",
        "com.1abc        | package segment cannot start with '1'",
        "'com.a b'       | invalid character ' ' (space)",
        "com.a-b         | invalid character '-'",
        "com.a[]         | invalid character '['",
    })
    void invalidClassGlobs(String glob, String reason) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClassPattern.forClass(glob));
        assertEquals(reason, e.getMessage());
    }

    @ParameterizedTest(name = "{0}: {1}")
    @CsvSource(delimiter = '|', value = {
        "''              | empty pattern",
        "a.b             | a method pattern names a method, not a class: it cannot contain '.'",
        "<clinit>        | static initialisers ('<clinit>') cannot be profiled",
        "<foo>           | '<' and '>' are only allowed in '<init>' (constructors)",
        "'run(I)V'       | a method pattern cannot contain '(' (use 'descriptor' to select an overload)",
        "1run            | method name cannot start with '1'",
        "***             | '***' is not a wildcard (use '*')",
        "run-fast        | invalid character '-'",
    })
    void invalidMethodGlobs(String glob, String reason) {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ClassPattern.forMethod(glob));
        assertEquals(reason, e.getMessage());
    }

    @Test
    void accessors() {
        ClassPattern exact = ClassPattern.forClass("a.B");
        ClassPattern wild = ClassPattern.forClass("a.*");
        assertTrue(exact.isExact());
        assertFalse(wild.isExact());
        assertEquals("a.*", wild.glob());
        assertEquals("a.*", wild.toString());
        assertEquals(wild, ClassPattern.forClass("a.*"));
        assertFalse(ClassPattern.forClass("run").equals(ClassPattern.forMethod("run")));
        assertTrue(ClassPattern.forMethod("run").isMethodPattern());
    }

    @Test
    void regexMetacharactersAreLiteral() {
        assertTrue(ClassPattern.forClass("a.B$*").matches("a.B$1"));
        assertFalse(ClassPattern.forClass("a.B$*").matches("a.B"));
        assertTrue(ClassPattern.forClass("\u00e9t\u00e9.*").matches("\u00e9t\u00e9.X"));
    }
}

package dev.dprof.api;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a method or constructor as a profiled region: with the dprof agent attached, every
 * call records an enter and an exit (also when it ends by an exception). Without the agent the
 * annotation does nothing.
 */
@Documented
@Retention(RetentionPolicy.CLASS)
@Target({ElementType.METHOD, ElementType.CONSTRUCTOR})
public @interface Region {
    /** The region's name; by default {@code SimpleClassName#method}. */
    String value() default "";
}

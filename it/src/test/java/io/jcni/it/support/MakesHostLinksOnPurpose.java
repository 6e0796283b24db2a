package io.jcni.it.support;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Marks a test class that makes links on the machine's own namespace on purpose and removes them again (the host-state
 * guard's own test): {@link HostStateGuard} then does not report links that came and went while the class ran.
 * Everything else is judged as for any class; a link left at the end still fails it.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.TYPE)
public @interface MakesHostLinksOnPurpose {
    /** Why the class must do it. */
    String value();
}

package io.jcni.runtime.internal;

import java.io.PrintStream;
import java.lang.System.Logger;
import java.lang.System.Logger.Level;

/**
 * Where the runtime's own warnings go: {@link System.Logger}s named {@code io.jcni.runtime.<area>}, so that a
 * container runtime that embeds the library sees them in its logging (java.util.logging when {@code java.logging}
 * is in the module graph, else the JDK's console logger, or whatever {@code System.LoggerFinder} the application
 * installs). Plugins' stderr is not a warning of the runtime: it goes to {@code Options.stderr()} as before.
 *
 * <p>The {@code jcni} command line is the one exception: printing warnings to its user is its job, so its
 * {@code main} (and nothing else: the library never calls it) sends them to its stderr as {@code jcni: warning: ...}
 * lines instead ({@link #toConsole}); records below {@link Level#WARNING} are then dropped.
 */
public final class RuntimeLog {
    /** Results a plugin printed that were accepted although the spec does not allow them. */
    public static final Logger RESULTS = System.getLogger("io.jcni.runtime.results");
    /** The result cache and the ADD journal beside it. */
    public static final Logger CACHE = System.getLogger("io.jcni.runtime.cache");

    /** Null unless the command line's {@code main} took the runtime's warnings over. */
    private static volatile PrintStream console;

    private RuntimeLog() {
    }

    /** The process is the {@code jcni} command: warnings are printed to {@code err}, one line each. */
    public static void toConsole(PrintStream err) {
        console = err;
    }

    /** Logs {@code message} at {@code level} to {@code logger} (or the command line's console). */
    public static void log(Logger logger, Level level, String message) {
        PrintStream err = console;
        if (err == null) {
            logger.log(level, message);
        } else if (level.getSeverity() >= Level.WARNING.getSeverity()) {
            err.println("jcni: warning: " + message);
        }
    }

    /** As {@link #log(Logger, Level, String)}, with the failure that caused it (its text, in the console). */
    public static void log(Logger logger, Level level, String message, Throwable cause) {
        PrintStream err = console;
        if (err == null) {
            logger.log(level, message, cause);
        } else if (level.getSeverity() >= Level.WARNING.getSeverity()) {
            err.println("jcni: warning: " + message + ": " + cause.getMessage());
        }
    }
}

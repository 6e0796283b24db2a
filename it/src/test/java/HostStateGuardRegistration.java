import io.jcni.it.support.HostStateGuard;
import io.jcni.it.support.PluginServiceRegistration;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * Registers {@link HostStateGuard} for every test class of the suite: listed in
 * {@code META-INF/services/org.junit.jupiter.api.extension.Extension}, found because {@code junit-platform.properties}
 * enables JUnit's extension auto-detection.
 *
 * <p>In the unnamed package on purpose. The build patches every package of the test classes into the module
 * {@code io.jcni.it}, and {@link java.util.ServiceLoader} ignores a provider listed in META-INF/services whose class
 * is in a named module. A class in the unnamed package cannot belong to a named module: it is loaded from the class
 * path (where the test classes also are), and reaches the guard through the module's export of
 * {@code io.jcni.it.support}. {@code HostStateGuardTest} proves the registration works.
 */
public final class HostStateGuardRegistration implements BeforeAllCallback, AfterAllCallback {
    private final HostStateGuard guard = new HostStateGuard();

    @Override
    public void beforeAll(ExtensionContext context) {
        // The run of the suite through the plugin service starts it before the first class (a no-op otherwise).
        PluginServiceRegistration.ensureStarted();
        guard.beforeAll(context);
    }

    @Override
    public void afterAll(ExtensionContext context) {
        guard.afterAll(context);
        PluginServiceRegistration.requireAlive();
    }
}

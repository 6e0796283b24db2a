package io.jcni.it.tooling;

import static org.assertj.core.api.Assertions.assertThat;

import io.jcni.it.support.IpLink;
import io.jcni.it.support.LeakCheck;
import io.jcni.it.support.Names;
import io.jcni.it.support.Prerequisites;
import io.jcni.it.support.TestNetns;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AutoClose;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The JUnit way to hold a test namespace: an {@code @AutoClose} field, closed by JUnit after each test whatever the
 * test's outcome. (Creating it in the field initializer would also work as root, but the assumption in
 * {@code create} reads better in {@code @BeforeEach}.)
 */
class AutoClosedNetnsTest {

    private static final String TAG = "iop";
    private static String created;

    @AutoClose
    private TestNetns netns;

    @BeforeEach
    void namespace() {
        netns = TestNetns.create(TAG);
    }

    @AfterAll
    static void junitClosedIt() {
        if (Prerequisites.isRoot()) {
            assertThat(created).isNotNull();
            assertThat(LeakCheck.netns(Names.prefix(TAG))).doesNotContain(created);
            LeakCheck.assertNoneLeft(Names.prefix(TAG));
        }
    }

    @Test
    void theNamespaceExistsDuringTheTest() {
        created = netns.name();
        assertThat(LeakCheck.netns(Names.prefix(TAG))).contains(netns.name());
        assertThat(netns.kernel().links()).extracting(IpLink::name).containsExactly("lo");
    }
}

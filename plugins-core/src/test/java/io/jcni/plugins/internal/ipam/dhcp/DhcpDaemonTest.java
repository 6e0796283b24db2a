package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** {@code dhcp daemon}'s command line, read as Go's flag package reads Go's: names, syntax, durations, defaults. */
class DhcpDaemonTest {

    @Test
    void defaultsAreGos() throws Exception {
        DhcpDaemon.Flags flags = DhcpDaemon.parse(new String[0]);
        assertThat(flags.socketPath()).isEqualTo("/run/cni/dhcp.sock");
        assertThat(flags.pidFile()).isEmpty();
        assertThat(flags.metricsAddress()).as("metrics are off by default").isEmpty();
        assertThat(flags.settings()).isEqualTo(LeaseManager.Settings.defaults(Path.of("/run/cni/dhcp")));
    }

    @Test
    void metricsAddressIsHostPortOrASocketPathCheckedBeforeStart() throws Exception {
        assertThat(DhcpDaemon.parse(new String[] {"-metrics-address", "127.0.0.1:9465"}).metricsAddress())
                .isEqualTo("127.0.0.1:9465");
        assertThat(DhcpDaemon.parse(new String[] {"--metrics-address=/run/cni/dhcp-metrics.sock"}).metricsAddress())
                .isEqualTo("/run/cni/dhcp-metrics.sock");
        assertThatThrownBy(() -> DhcpDaemon.parse(new String[] {"-metrics-address", "9465"})).hasMessage(
                "invalid value \"9465\" for flag -metrics-address: not HOST:PORT or an absolute socket path: 9465");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(DhcpDaemon.run(new String[] {"-metrics-address", "127.0.0.1:99999"},
                new PrintStream(err, true, StandardCharsets.UTF_8))).isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith(
                "invalid value \"127.0.0.1:99999\" for flag -metrics-address: not a port number: 99999\n")
                .contains("-metrics-address string");
    }

    @Test
    void everyFlagInEveryGoSyntax() throws Exception {
        DhcpDaemon.Flags flags = DhcpDaemon.parse(new String[] {"-socketpath", "/tmp/d.sock", "--pidfile=/tmp/d.pid",
            "-hostprefix=/host", "-broadcast", "--timeout", "1.5s", "-resendmax=2m", "-resendtimeout", "1h2m3s",
            "-statedir", "/tmp/state"});
        assertThat(flags.socketPath()).isEqualTo("/tmp/d.sock");
        assertThat(flags.pidFile()).isEqualTo("/tmp/d.pid");
        assertThat(flags.settings()).isEqualTo(new LeaseManager.Settings(Path.of("/tmp/state"), "/host", true, 1500,
                120_000, 3_723_000));
        assertThat(DhcpDaemon.parse(new String[] {"-broadcast=false"}).settings().broadcast()).isFalse();
    }

    @Test
    void goDurations() {
        assertThat(DhcpDaemon.goDurationMillis("10s")).isEqualTo(10_000);
        assertThat(DhcpDaemon.goDurationMillis("1m2s")).isEqualTo(62_000);
        assertThat(DhcpDaemon.goDurationMillis("3m28s")).isEqualTo(208_000);
        assertThat(DhcpDaemon.goDurationMillis("500ms")).isEqualTo(500);
        assertThat(DhcpDaemon.goDurationMillis("2h45m")).isEqualTo(9_900_000);
        assertThat(DhcpDaemon.goDurationMillis(".5s")).isEqualTo(500);
        assertThat(DhcpDaemon.goDurationMillis("1500us")).isEqualTo(1);
        assertThat(DhcpDaemon.goDurationMillis("0")).isZero();
        assertThat(DhcpDaemon.goDurationMillis("10")).as("a unit is required").isEqualTo(-1);
        assertThat(DhcpDaemon.goDurationMillis("s")).isEqualTo(-1);
        assertThat(DhcpDaemon.goDurationMillis("1.2.3s")).isEqualTo(-1);
        assertThat(DhcpDaemon.goDurationMillis("5d")).isEqualTo(-1);
        assertThat(DhcpDaemon.goDurationMillis("")).isEqualTo(-1);
    }

    @Test
    void aBadCommandLineIsExitStatus2WithTheUsage() {
        assertThatThrownBy(() -> DhcpDaemon.parse(new String[] {"-verbose"})).hasMessage(
                "flag provided but not defined: -verbose");
        assertThatThrownBy(() -> DhcpDaemon.parse(new String[] {"-timeout"})).hasMessage(
                "flag needs an argument: -timeout");
        assertThatThrownBy(() -> DhcpDaemon.parse(new String[] {"-timeout", "ten"})).hasMessageStartingWith(
                "invalid value \"ten\" for flag -timeout: parse error");
        assertThatThrownBy(() -> DhcpDaemon.parse(new String[] {"-timeout=0s"})).hasMessageStartingWith(
                "invalid value \"0s\" for flag -timeout");
        assertThatThrownBy(() -> DhcpDaemon.parse(new String[] {"-broadcast=maybe"})).hasMessageStartingWith(
                "invalid boolean value \"maybe\"");
        assertThatThrownBy(() -> DhcpDaemon.parse(new String[] {"extra"})).hasMessage("unexpected argument: extra");

        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(DhcpDaemon.run(new String[] {"-nope"}, new PrintStream(err, true, StandardCharsets.UTF_8)))
                .isEqualTo(2);
        assertThat(err.toString(StandardCharsets.UTF_8)).startsWith("flag provided but not defined: -nope\n"
                + "Usage: dhcp daemon [flags]\n").contains("-resendtimeout duration");
        ByteArrayOutputStream help = new ByteArrayOutputStream();
        assertThat(DhcpDaemon.run(new String[] {"-h"}, new PrintStream(help, true, StandardCharsets.UTF_8)))
                .isZero();
        assertThat(help.toString(StandardCharsets.UTF_8)).startsWith("Usage: dhcp daemon [flags]");
    }

    @Test
    void aRelativePidFileIsRefusedAsGoRefusesIt() {
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        assertThat(DhcpDaemon.run(new String[] {"-pidfile", "daemon.pid", "-socketpath", "/nonexistent/x.sock"},
                new PrintStream(err, true, StandardCharsets.UTF_8))).isEqualTo(1);
        assertThat(err.toString(StandardCharsets.UTF_8)).isEqualTo(
                "dhcp daemon: Error writing pidfile \"daemon.pid\": path not absolute\n");
    }
}

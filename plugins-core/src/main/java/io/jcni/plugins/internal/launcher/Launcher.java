package io.jcni.plugins.internal.launcher;

import io.jcni.netlink.Netlink;
import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.internal.PluginTable;
import io.jcni.plugins.internal.ipam.dhcp.DhcpDaemon;
import io.jcni.plugins.sdk.Skel;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import io.jcni.spec.Command;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.util.Arrays;

/**
 * The main class every launcher in {@code dist/cni/bin} starts: {@code Launcher <type>} runs plugin {@code type} as an
 * exec'd CNI plugin. Two modes serve the image build (src/image/build-dist.sh), and cannot be confused with a plugin
 * call since no CNI runtime passes arguments to a plugin: {@code --aot-groups} prints {@code <type> <AOT group>} per
 * shipped plugin, {@code --aot-training <group> <work dir> [<netns>]} is the AOT training run of one group (see
 * {@link AotTraining}). And {@code dhcp daemon [flags]} runs the dhcp plugin's daemon ({@link DhcpDaemon}), as Go's
 * {@code dhcp} binary does.
 */
public final class Launcher {
    private Launcher() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length == 1 && args[0].equals("--aot-groups")) {
            StringBuilder out = new StringBuilder();
            for (PluginTable plugin : PluginTable.values()) {
                out.append(plugin.type()).append(' ').append(plugin.group().id()).append('\n');
            }
            System.out.print(out);
            System.out.flush();
            return;
        }
        if (args.length >= 3 && args[0].equals(AotTraining.FLAG)) {
            // Success returns normally, like a plugin (see Skel.main): System.exit would put the classes of
            // Runtime.exit's logging into the cache, and every cached class is loaded at every start.
            int status = AotTraining.run(args);
            if (status != 0) {
                Runtime.getRuntime().halt(status);
            }
            return;
        }
        if (args.length >= 2 && args[0].equals("dhcp") && args[1].equals("daemon")) {
            // Go's "dhcp daemon [flags]": the lease-holding process, not a plugin call.
            int status = DhcpDaemon.run(Arrays.copyOfRange(args, 2, args.length), System.err);
            if (status != 0) {
                Runtime.getRuntime().halt(status);
            }
            return;
        }
        String type = args.length == 1 ? args[0] : "";
        if (PluginRegistry.usesNetlink(type) && linksNative(System.getenv("CNI_COMMAND"))) {
            // The first FFM downcall costs 10-20 ms; link it while the skel reads and decodes the call.
            Netlink.prepareInBackground();
        }
        Skel skel = PluginRegistry.skel(type);
        if (skel == null) {
            unknown(type);
            return;
        }
        skel.main();
    }

    /** Whether a call of {@code command} goes native (every verb with a config does; VERSION and "about" do not). */
    private static boolean linksNative(String command) {
        return command != null && !command.isEmpty() && !command.equals(Command.VERSION.name());
    }

    /** A broken installation, reported the CNI way so a runtime shows it. */
    private static void unknown(String type) throws IOException {
        CniError error = new CniError(CniError.INTERNAL, "jcni launcher: unknown plugin type \"" + type + "\"",
                "this image has " + PluginRegistry.TYPES);
        try (FileOutputStream out = new FileOutputStream(FileDescriptor.out)) {
            out.write(CniJson.encode(error));
        }
        Runtime.getRuntime().halt(1);
    }
}

package io.jcni.plugins.internal.launcher;

import io.jcni.plugins.internal.PluginRegistry;
import io.jcni.plugins.sdk.Skel;
import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;

/**
 * The main class every launcher in {@code dist/cni/bin} starts: {@code Launcher <type>} runs plugin {@code type} as an
 * exec'd CNI plugin. {@code Launcher --aot-training <work dir> [<netns>]} is the build's AOT training run (see
 * {@link AotTraining}); no CNI runtime passes arguments to a plugin, so the two cannot be confused.
 */
public final class Launcher {
    private Launcher() {
    }

    public static void main(String[] args) throws Exception {
        if (args.length >= 2 && args[0].equals(AotTraining.FLAG)) {
            // Success returns normally, like a plugin (see Skel.main): System.exit would put the classes of
            // Runtime.exit's logging into the cache, and every cached class is loaded at every start.
            int status = AotTraining.run(args);
            if (status != 0) {
                Runtime.getRuntime().halt(status);
            }
            return;
        }
        String type = args.length == 1 ? args[0] : "";
        Skel skel = PluginRegistry.skel(type);
        if (skel == null) {
            unknown(type);
            return;
        }
        skel.main();
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

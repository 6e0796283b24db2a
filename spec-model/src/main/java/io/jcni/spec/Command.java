package io.jcni.spec;

/**
 * The verbs of {@code CNI_COMMAND}, as the runtime sends them and the plugin skeleton reads them; {@link #name()} is
 * the variable's value.
 */
public enum Command {
    ADD,
    DEL,
    CHECK,
    /** Spec 1.1.0: release resources not in {@code cni.dev/valid-attachments}. */
    GC,
    /** Spec 1.1.0: is the plugin ready to serve ADD. */
    STATUS,
    VERSION;

    /**
     * The command named exactly {@code text} (case-sensitive, as libcni's skel), or null. A string switch rather than
     * {@link #valueOf}: the latter reflects on {@code values()} the first time, which costs start-up time.
     */
    public static Command parse(String text) {
        if (text == null) {
            return null;
        }
        switch (text) {
            case "ADD":
                return ADD;
            case "DEL":
                return DEL;
            case "CHECK":
                return CHECK;
            case "GC":
                return GC;
            case "STATUS":
                return STATUS;
            case "VERSION":
                return VERSION;
            default:
                return null;
        }
    }

    /** Whether the command acts on one attachment and so carries CNI_CONTAINERID and CNI_IFNAME. */
    public boolean hasAttachment() {
        return this == ADD || this == DEL || this == CHECK;
    }
}

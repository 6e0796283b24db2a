package io.jcni.plugins.internal.service;

import io.jcni.spec.CniError;
import io.jcni.spec.CniJson;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;

/**
 * The wire format between jcni's plugin client ({@code src/image/client.c}, whose header comment is the reference)
 * and the service. Integers in host byte order: both ends are on one machine.
 *
 * <pre>
 * request   0  "JCNI"                    12 u32 environment length (NUL-terminated "NAME=value" entries)
 *           4  u16 protocol version      16 u32 stdin length
 *           6  u8  CNI_NETNS state       20 u32 0 (reserved)
 *           7  u8  flags                 24 build id, type, environment, stdin
 *           8  u16 build id length
 *           10 u16 type length
 *           SCM_RIGHTS with the first bytes: the client's network namespace (flag 1), its /sys (flag 4), its mount
 *           namespace and its /proc/self/mountinfo (flag 8), its root (flag 16), its working directory (flag 32),
 *           then CNI_NETNS (state 1)
 * replies   'M' u16 length, the service's build id: another build; the client runs its JVM launcher, nothing ran
 *           'E' u16 length, why: the call must run elsewhere: the client sees other files than the service
 *               ({@link MountView}), or it may need more memory than the service sets aside for large calls
 *               ({@link MemoryAdmission}); the client runs its JVM launcher, nothing ran
 *           'A': accepted, sent before the call starts (if it cannot be sent, the call does not run)
 *           'R' u32 status, u32 stdout length, u32 stderr length, stdout, stderr: the answer, complete
 * </pre>
 *
 * A refusal (busy, not allowed, malformed, too large) is an 'R' without 'A': an error JSON the client prints.
 */
final class Protocol {
    private Protocol() {
    }

    /** 2: the client's root and working directory are attached (flags 16 and 32). */
    static final int VERSION = 2;
    static final int HEADER_BYTES = 24;
    static final byte ACCEPTED = 'A';
    static final byte ANSWER = 'R';
    static final byte MISMATCH = 'M';
    static final byte ELSEWHERE = 'E';

    /** CNI_NETNS unset or empty. */
    static final int NETNS_NONE = 0;
    /** The client opened CNI_NETNS ({@code O_PATH}) and attached the descriptor. */
    static final int NETNS_DESCRIPTOR = 1;
    /** Nothing exists at CNI_NETNS where the client looked (ENOENT). */
    static final int NETNS_ABSENT = 2;
    /** The client could not open CNI_NETNS for another reason: the plugin opens the path itself and reports why. */
    static final int NETNS_UNOPENED = 3;

    /** The client's own network namespace is attached (the plugin's "host" side). */
    static final int FLAG_OWN_NETNS = 1;
    /** The client read stdin (ADD, DEL, CHECK, GC, STATUS); otherwise the call has none, as an exec'd skel reads none. */
    static final int FLAG_STDIN = 2;
    /** The client's {@code /sys} is attached: sysfs lists the devices of the namespace it was mounted for. */
    static final int FLAG_SYSFS = 4;
    /** The client's mount namespace and its {@code /proc/self/mountinfo} are attached, in that order. */
    static final int FLAG_MOUNTS = 8;
    /** The client's root directory is attached: a chrooted client sees other files ('E'). */
    static final int FLAG_ROOT = 16;
    /** The client's working directory is attached: relative paths are resolved there, as an exec'd plugin would. */
    static final int FLAG_CWD = 32;
    static final int KNOWN_FLAGS = FLAG_OWN_NETNS | FLAG_STDIN | FLAG_SYSFS | FLAG_MOUNTS | FLAG_ROOT | FLAG_CWD;
    /** The most descriptors a request carries. */
    static final int MAX_DESCRIPTORS = 7;

    static final int MAX_BUILD_ID = 256;
    static final int MAX_TYPE = 64;
    /** The client's own limits: environments and stdin beyond them go to the JVM launcher instead. */
    static final int MAX_ENV = 1 << 20;
    static final int MAX_STDIN = CniJson.MAX_DOCUMENT_BYTES + 1;
    /** What the client accepts in an answer; stderr beyond {@link #KEPT_STDERR} is cut. */
    static final int MAX_STDOUT = CniJson.MAX_DOCUMENT_BYTES + 4096;
    static final int KEPT_STDERR = 1 << 20;

    static boolean hasMagic(byte[] header) {
        return header[0] == 'J' && header[1] == 'C' && header[2] == 'N' && header[3] == 'I';
    }

    static ByteBuffer view(byte[] bytes) {
        return ByteBuffer.wrap(bytes).order(ByteOrder.nativeOrder());
    }

    /** An 'R' frame. */
    static byte[] answer(int status, byte[] stdout, int stdoutLength, byte[] stderr, int stderrLength) {
        byte[] frame = new byte[13 + stdoutLength + stderrLength];
        frame[0] = ANSWER;
        view(frame).putInt(1, status).putInt(5, stdoutLength).putInt(9, stderrLength);
        System.arraycopy(stdout, 0, frame, 13, stdoutLength);
        System.arraycopy(stderr, 0, frame, 13 + stdoutLength, stderrLength);
        return frame;
    }

    /** An 'R' frame carrying a CNI error, exit status 1, and a line on stderr for the runtime's log. */
    static byte[] error(int code, String message, String details) {
        byte[] json = CniJson.encode(new CniError(code, message, details));
        byte[] line = ("jcni plugin service: " + message + "\n").getBytes(StandardCharsets.UTF_8);
        return answer(1, json, json.length, line, line.length);
    }

    /** An 'M' frame. */
    static byte[] mismatch(String buildId) {
        return shortFrame(MISMATCH, buildId);
    }

    /** An 'E' frame; the client keeps up to 255 bytes of the reason, for its debug line. */
    static byte[] elsewhere(String why) {
        return shortFrame(ELSEWHERE, why.length() > 200 ? why.substring(0, 200) : why);
    }

    private static byte[] shortFrame(byte kind, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        byte[] frame = new byte[3 + bytes.length];
        frame[0] = kind;
        view(frame).putShort(1, (short) bytes.length);
        System.arraycopy(bytes, 0, frame, 3, bytes.length);
        return frame;
    }
}

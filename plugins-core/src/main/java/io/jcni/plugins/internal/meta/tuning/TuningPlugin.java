package io.jcni.plugins.internal.meta.tuning;

import io.jcni.netlink.KernelException;
import io.jcni.netlink.Link;
import io.jcni.netlink.MacAddress;
import io.jcni.netlink.NetNs;
import io.jcni.netlink.NetlinkHandle;
import io.jcni.netlink.sys.Sysctl;
import io.jcni.plugins.internal.meta.tuning.TuningConfig.Setting;
import io.jcni.plugins.internal.pkg.ns.Namespace.SysctlWrite;
import io.jcni.plugins.internal.pkg.ns.Namespace;
import io.jcni.plugins.internal.pkg.ns.Undos;
import io.jcni.plugins.sdk.CniPlugin;
import io.jcni.plugins.sdk.CniRequest;
import io.jcni.plugins.sdk.Rollback;
import io.jcni.runtime.internal.files.IoText;
import io.jcni.spec.CniError;
import io.jcni.spec.CniException;
import io.jcni.spec.CniResult;
import io.jcni.spec.Interface;
import io.jcni.spec.Result;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code tuning} meta plugin, chained after a plugin that created CNI_IFNAME: writes network sysctls and changes
 * the interface's MAC, promiscuous mode, MTU, all-multicast mode and transmit queue length, as upstream's tuning does
 * (keys and precedence: {@link TuningConfig}).
 *
 * <p>ADD validates everything first (keys, allowlist, values), then records what it will replace in the backup file
 * ({@link TuningBackup}) before changing anything, and registers the undo of each change as it makes it: a failed ADD
 * leaves the namespace and the data dir as it found them. The result is the {@code prevResult} with the new MAC (and
 * MTU, when the interface reported one) on CNI_IFNAME.
 *
 * <p>DEL restores the saved values (link attributes, as upstream; sysctls too, which upstream does not) and removes
 * the backup file. Repeated DEL, a gone namespace or a gone link are success: there is nothing left to restore, and
 * the file is removed. A restore that fails keeps the file, so a retried DEL can finish the job.
 *
 * <p>CHECK compares the configured values with the namespace's. Differences from Go 1.1.1, deliberate: sysctl keys
 * refused with code 7 when they leave {@code net/} or contain {@code ..} (Go: 999, and it accepts {@code ..} that stays
 * inside); symbolic links leaving /proc/sys/net refused; {@code IFNAME} is also substituted in CHECK (Go checks the
 * literal key); sysctl values compare with whitespace normalized (the kernel prints {@code tcp_rmem} with tabs);
 * promiscuous mode is checked only when configured on (Go also fails CHECK when it is off in the configuration but
 * on in the kernel); no gratuitous ARP after a MAC change (netlink-ffm has no packet socket).
 */
public final class TuningPlugin implements CniPlugin {
    private static final String PROC_SYS = "/proc/sys/";
    private static final String PROC_SYS_NET = "/proc/sys/net/";

    private final Path allowlistFile;

    /** The plugin with upstream's allowlist location, /etc/cni/tuning/allowlist.conf. */
    public TuningPlugin() {
        this(SysctlAllowlist.DEFAULT);
    }

    /** The plugin reading its sysctl allowlist from {@code allowlistFile} (tests). */
    public TuningPlugin(Path allowlistFile) {
        this.allowlistFile = allowlistFile;
    }

    // ------------------------------------------------------------------------------------------ ADD

    @Override
    public CniResult add(CniRequest request) throws CniException {
        TuningConfig config = TuningConfig.load(request, SysctlAllowlist.load(allowlistFile));
        String ifName = request.ifName();
        Rollback rollback = request.rollback();
        try (Namespace container = Namespace.container(request.netns())) {
            Map<String, String> previousSysctls = readSysctls(container, config.sysctls());
            Link link = config.changesLink() ? requireLink(container, ifName) : null;
            TuningBackup backup = backupOf(config, link, previousSysctls);
            saveBackup(request, config, backup);
            writeSysctls(container, config.sysctls(), previousSysctls, rollback);
            if (link != null) {
                changeLink(container, link, config, backup, rollback);
            }
        } catch (KernelException e) {
            throw failure("tuning " + ifName + " in " + request.netns(), e);
        }
        return resultOf(config.prevResult(), config, ifName);
    }

    /** The configured sysctls' current values in the container (see {@link ReadSysctls}); empty when none. */
    private static Map<String, String> readSysctls(Namespace container, List<Setting> settings) throws CniException {
        return settings.isEmpty() ? Map.of() : container.netns().call(new ReadSysctls(settings));
    }

    private static Link requireLink(Namespace container, String ifName) throws CniException {
        Optional<Link> link = container.nl().findLink(ifName);
        if (link.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "failed to get \"" + ifName + "\": no such link in "
                    + container.path());
        }
        return link.get();
    }

    /** The backup file, written before anything changes (when anything will), and removed if the ADD fails. */
    private static void saveBackup(CniRequest request, TuningConfig config, TuningBackup backup) throws CniException {
        if (!backup.restoresLink() && backup.sysctls().isEmpty()) {
            return;
        }
        Path file = TuningBackup.file(config.dataDir(), request.containerId(), request.ifName());
        backup.write(file);
        request.rollback().onFailure("remove " + file, new DeleteBackup(file));
    }

    /** ADD rollback: the backup file goes with the changes it describes. */
    private static final class DeleteBackup implements Rollback.Undo {
        private final Path file;

        DeleteBackup(Path file) {
            this.file = file;
        }

        @Override
        public void undo() throws CniException {
            TuningBackup.delete(file);
        }
    }

    /**
     * Writes the sysctls in the container (see {@link SysctlWrites}). Their previous values are restored if the ADD
     * fails, registered first, so a write that fails part-way is undone too (a key not yet written already holds its
     * previous value, and restoring writes nothing there).
     */
    private static void writeSysctls(Namespace container, List<Setting> settings, Map<String, String> previous,
            Rollback rollback) throws CniException {
        if (settings.isEmpty()) {
            return;
        }
        List<SysctlWrite> restore = new ArrayList<>(previous.size());
        for (int i = settings.size() - 1; i >= 0; i--) { // newest first
            String value = previous.get(settings.get(i).path());
            if (value != null) {
                restore.add(new SysctlWrite(settings.get(i).path(), value, false));
            }
        }
        rollback.onFailure("restore sysctls in " + container, new Undos.RestoreSysctls(container, restore));
        container.netns().call(new SysctlWrites(settings));
    }

    /** Changes the link's attributes; restored from {@code backup} if the ADD fails. */
    private static void changeLink(Namespace container, Link link, TuningConfig config, TuningBackup backup,
            Rollback rollback) throws CniException {
        rollback.onFailure("restore the attributes of " + link.name() + " in " + container,
                new RestoreLink(container, link.name(), backup));
        change(container.nl(), link, config);
    }

    /** ADD rollback: the link's saved attributes back (a gone namespace or link has nothing to restore). */
    private static final class RestoreLink extends Undos.InNamespace {
        private final String ifName;
        private final TuningBackup backup;

        RestoreLink(Namespace container, String ifName, TuningBackup backup) {
            super(container);
            this.ifName = ifName;
            this.backup = backup;
        }

        @Override
        protected void apply(Namespace open) throws CniException {
            List<String> errors = new ArrayList<>();
            restoreLink(open.nl(), ifName, backup, errors);
            if (!errors.isEmpty()) {
                throw new CniException(CniError.INTERNAL, String.join("; ", errors));
            }
        }
    }

    /** What ADD will replace: only the attributes the configuration changes, as upstream records them. */
    private static TuningBackup backupOf(TuningConfig config, Link link, Map<String, String> previousSysctls) {
        if (link == null) {
            return new TuningBackup("", null, 0, null, -1, previousSysctls);
        }
        return new TuningBackup(config.mac() == null || link.address() == null ? "" : link.address().toString(),
                config.promisc() == null ? null : Boolean.valueOf(link.isPromisc()),
                config.mtu() == 0 ? 0 : link.mtu(),
                config.allmulti() == null ? null : Boolean.valueOf(link.isAllmulti()),
                config.txQueueLen() < 0 ? -1 : link.txQueueLen(), previousSysctls);
    }

    /** Upstream's order: MAC, promiscuous mode, MTU, all-multicast; then the queue length. */
    private static void change(NetlinkHandle nl, Link link, TuningConfig config) throws CniException {
        int index = link.index();
        String name = link.name();
        try {
            if (config.mac() != null) {
                nl.setAddress(index, config.mac());
            }
        } catch (KernelException e) {
            throw changeFailed("set MAC " + config.mac() + " on " + name, e);
        }
        try {
            if (config.promisc() != null) {
                nl.setPromisc(index, true);
            }
        } catch (KernelException e) {
            throw changeFailed("set promiscuous mode on " + name, e);
        }
        try {
            if (config.mtu() != 0) {
                nl.setMtu(index, config.mtu());
            }
        } catch (KernelException e) {
            throw changeFailed("set MTU " + config.mtu() + " on " + name, e);
        }
        try {
            if (config.allmulti() != null) {
                nl.setAllmulti(index, config.allmulti());
            }
        } catch (KernelException e) {
            throw changeFailed("set all-multicast mode " + config.allmulti() + " on " + name, e);
        }
        try {
            if (config.txQueueLen() >= 0) {
                nl.setTxQueueLen(index, config.txQueueLen());
            }
        } catch (KernelException e) {
            throw changeFailed("set txqueuelen " + config.txQueueLen() + " on " + name, e);
        }
    }

    /** A value the kernel rejects (EINVAL, ERANGE) is the configuration's fault: code 7; anything else 999. */
    private static CniException changeFailed(String what, KernelException e) {
        int code = e.kind() == KernelException.Kind.INVALID ? CniError.INVALID_NETWORK_CONFIG : CniError.INTERNAL;
        return new CniException(code, "failed to " + what + ": " + e.getMessage());
    }

    /** The prevResult, with the new MAC (and MTU, if it reported one) on CNI_IFNAME, as upstream passes it on. */
    static CniResult resultOf(CniResult previous, TuningConfig config, String ifName) {
        if (!(previous instanceof Result result) || (config.mac() == null && config.mtu() == 0)) {
            return previous;
        }
        List<Interface> interfaces = new ArrayList<>(result.interfaces().size());
        for (Interface i : result.interfaces()) {
            if (i.name().equals(ifName)) {
                String mac = config.mac() == null ? i.mac() : config.mac().toString();
                int mtu = config.mtu() != 0 && i.mtu() != 0 ? config.mtu() : i.mtu();
                interfaces.add(new Interface(i.name(), mac, mtu, i.sandbox(), i.socketPath(), i.pciID()));
            } else {
                interfaces.add(i);
            }
        }
        return result.withInterfaces(interfaces);
    }

    // ------------------------------------------------------------------------------------------ DEL

    @Override
    public void del(CniRequest request) throws CniException {
        Path file = TuningBackup.file(TuningConfig.dataDir(request.config()), request.containerId(),
                request.ifName());
        TuningBackup backup;
        try {
            backup = TuningBackup.read(file);
        } catch (CniException e) {
            if (e.code() != CniError.DECODING_FAILURE) {
                throw e;
            }
            request.log().warn("ignoring unreadable backup " + file + ": " + e.error().message());
            TuningBackup.delete(file);
            return;
        }
        if (backup == null) {
            return;
        }
        Optional<Namespace> container = Namespace.containerIfPresent(request.netns());
        if (container.isEmpty()) {
            request.log().debug("DEL: no namespace at \"" + request.netns() + "\": nothing to restore");
            TuningBackup.delete(file);
            return;
        }
        List<String> errors = new ArrayList<>();
        try (Namespace ns = container.get()) {
            if (backup.restoresLink()) {
                restoreLink(ns.nl(), request.ifName(), backup, errors);
            }
            if (!backup.sysctls().isEmpty()) {
                errors.addAll(ns.netns().call(new RestoreSavedSysctls(backup.sysctls())));
            }
        } catch (KernelException e) {
            errors.add(e.getMessage());
        }
        if (!errors.isEmpty()) {
            throw new CniException(CniError.INTERNAL, "failed to restore the values tuning replaced on "
                    + request.ifName() + ": " + String.join("; ", errors), "kept " + file + " for a retried DEL");
        }
        TuningBackup.delete(file);
    }

    /**
     * Puts back the saved attributes of {@code ifName} in upstream's order (MTU, MAC, promiscuous, all-multicast),
     * then the queue length; a link that is gone has nothing to restore. Failures are collected, not thrown.
     */
    static void restoreLink(NetlinkHandle nl, String ifName, TuningBackup backup, List<String> errors) {
        Link link = nl.findLink(ifName).orElse(null);
        if (link == null) {
            return;
        }
        int index = link.index();
        try {
            if (backup.mtu() != 0) {
                nl.setMtu(index, backup.mtu());
            }
        } catch (KernelException e) {
            errors.add("failed to restore MTU: " + e.getMessage());
        }
        try {
            if (!backup.mac().isEmpty()) {
                nl.setAddress(index, MacAddress.parse(backup.mac()));
            }
        } catch (KernelException | IllegalArgumentException e) {
            errors.add("failed to restore MAC address: " + e.getMessage());
        }
        try {
            if (backup.promisc() != null) {
                nl.setPromisc(index, backup.promisc());
            }
        } catch (KernelException e) {
            errors.add("failed to restore promiscuous mode: " + e.getMessage());
        }
        try {
            if (backup.allmulti() != null) {
                nl.setAllmulti(index, backup.allmulti());
            }
        } catch (KernelException e) {
            errors.add("failed to restore all-multicast mode: " + e.getMessage());
        }
        try {
            if (backup.txQueueLen() >= 0) {
                nl.setTxQueueLen(index, backup.txQueueLen());
            }
        } catch (KernelException e) {
            errors.add("failed to restore txqueuelen: " + e.getMessage());
        }
    }

    // ------------------------------------------------------------------------------------------ CHECK

    @Override
    public void check(CniRequest request) throws CniException {
        TuningConfig config = TuningConfig.load(request, null);
        String ifName = request.ifName();
        try (Namespace container = Namespace.container(request.netns())) {
            Link link = container.nl().findLink(ifName).orElse(null);
            if (link == null) {
                throw new CniException(CniError.INTERNAL, "Cannot find container link " + ifName);
            }
            if (!config.sysctls().isEmpty()) {
                Map<String, String> current = readSysctls(container, config.sysctls());
                for (Setting setting : config.sysctls()) {
                    String value = current.get(setting.path());
                    if (value != null && !normalized(value).equals(normalized(setting.value()))) {
                        throw new CniException(CniError.INTERNAL, "Error: Tuning configured value of " + PROC_SYS
                                + setting.path() + " is " + setting.value() + ", current value is " + value);
                    }
                }
            }
            if (config.mac() != null && !config.mac().equals(link.address())) {
                throw new CniException(CniError.INTERNAL, "Error: Tuning configured Ethernet of " + ifName + " is "
                        + config.mac() + ", current value is " + link.address());
            }
            if (config.promisc() != null && !link.isPromisc()) {
                throw new CniException(CniError.INTERNAL, "Error: Tuning link " + ifName
                        + " configured promisc is true, current value is off");
            }
            if (config.mtu() != 0 && config.mtu() != link.mtu()) {
                throw new CniException(CniError.INTERNAL, "Error: Tuning configured MTU of " + ifName + " is "
                        + config.mtu() + ", current value is " + link.mtu());
            }
            if (config.allmulti() != null && config.allmulti() != link.isAllmulti()) {
                throw new CniException(CniError.INTERNAL, "Error: Tuning configured all-multicast mode of " + ifName
                        + " is " + config.allmulti() + ", current value is " + link.isAllmulti());
            }
            if (config.txQueueLen() >= 0 && config.txQueueLen() != link.txQueueLen()) {
                throw new CniException(CniError.INTERNAL, "Error: Tuning configured txQLen of " + ifName + " is "
                        + config.txQueueLen() + ", current value is " + link.txQueueLen());
            }
        } catch (KernelException e) {
            throw failure("checking " + ifName + " in " + request.netns(), e);
        }
    }

    /** A sysctl value with its whitespace runs reduced to one space (the kernel prints vectors with tabs). */
    static String normalized(String value) {
        return String.join(" ", value.strip().split("\\s+"));
    }

    // ------------------------------------------------------------------------------------------ helpers

    private static CniException failure(String what, KernelException e) {
        return new CniException(CniError.INTERNAL, what + ": " + e.getMessage());
    }

    /** The file of a sysctl, checked to stay under /proc/sys/net once symbolic links are resolved. */
    private static void requireNetFile(Setting setting) throws CniException {
        Path file = Path.of(PROC_SYS + setting.path());
        Path real;
        try {
            real = file.toRealPath();
        } catch (NoSuchFileException e) {
            throw new CniException(CniError.INVALID_NETWORK_CONFIG, "no sysctl " + setting.path()
                    + " in the container's namespace", "key \"" + setting.key() + "\"");
        } catch (IOException e) {
            throw new CniException(CniError.IO_FAILURE, "cannot resolve " + file + ": " + IoText.reason(e));
        }
        if (!real.toString().startsWith(PROC_SYS_NET)) {
            throw SysctlKeys.invalid(setting.key(), file + " resolves to " + real + ", outside " + PROC_SYS_NET);
        }
    }

    /**
     * Inside the container's namespace: checks each sysctl's file and reads its value. A write-only sysctl (a
     * flush trigger) has no value to save and is left out.
     */
    private static final class ReadSysctls implements NetNs.Task<Map<String, String>, CniException> {
        private final List<Setting> settings;

        ReadSysctls(List<Setting> settings) {
            this.settings = settings;
        }

        @Override
        public Map<String, String> run() throws CniException {
            Map<String, String> values = new LinkedHashMap<>();
            for (Setting setting : settings) {
                requireNetFile(setting);
                try {
                    values.put(setting.path(), Sysctl.read(setting.path()));
                } catch (KernelException e) {
                    if (e.kind() != KernelException.Kind.PERMISSION_DENIED) {
                        throw new CniException(CniError.INTERNAL, "failed to read sysctl " + setting.path() + ": "
                                + e.getMessage());
                    }
                }
            }
            return values;
        }
    }

    /**
     * Inside the container's namespace: writes the sysctls in order. A value the kernel refuses (EINVAL, EPERM) is
     * the configuration's fault: code 7 naming the key as configured.
     */
    private static final class SysctlWrites implements NetNs.Task<Void, CniException> {
        private final List<Setting> settings;

        SysctlWrites(List<Setting> settings) {
            this.settings = settings;
        }

        @Override
        public Void run() throws CniException {
            for (Setting setting : settings) {
                try {
                    Sysctl.write(setting.path(), setting.value());
                } catch (KernelException e) {
                    int code = e.kind() == KernelException.Kind.INVALID
                            || e.kind() == KernelException.Kind.PERMISSION_DENIED
                            ? CniError.INVALID_NETWORK_CONFIG : CniError.INTERNAL;
                    throw new CniException(code, "failed to set sysctl " + setting.key() + "=" + setting.value()
                            + ": " + e.getMessage());
                }
            }
            return null;
        }
    }

    /**
     * DEL, inside the namespace: every saved sysctl value back, newest first. A sysctl that is gone (its interface was
     * deleted) has nothing to restore; the other failures are collected, not thrown, so every value is tried.
     */
    private static final class RestoreSavedSysctls implements NetNs.Task<List<String>, RuntimeException> {
        private final List<Map.Entry<String, String>> saved;

        RestoreSavedSysctls(Map<String, String> saved) {
            this.saved = new ArrayList<>(saved.entrySet());
        }

        @Override
        public List<String> run() {
            List<String> errors = new ArrayList<>();
            for (int i = saved.size() - 1; i >= 0; i--) {
                String path = saved.get(i).getKey();
                String value = saved.get(i).getValue();
                try {
                    Sysctl.write(path, value);
                } catch (KernelException e) {
                    if (!e.isNotFound()) {
                        errors.add("failed to restore sysctl " + path + "=" + value + ": " + e.getMessage());
                    }
                }
            }
            return errors;
        }
    }
}

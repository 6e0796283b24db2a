package io.jcni.runtime;

import io.jcni.spec.CniArgs;
import io.jcni.spec.GcAttachment;
import io.jcni.spec.JsonObject;
import java.util.Objects;

/**
 * The per-attachment parameters of one operation, as libcni's {@code RuntimeConf} holds them: everything a plugin gets
 * besides the network configuration.
 *
 * @param containerId    {@code CNI_CONTAINERID}; must follow the spec's rule ({@code ^[a-zA-Z0-9][a-zA-Z0-9_.\-]*$})
 * @param netns          {@code CNI_NETNS}: the path of the network namespace; "" is passed through as it is (a DEL
 *                       after the namespace is gone)
 * @param ifName         {@code CNI_IFNAME}: the interface name inside the container
 * @param args           {@code CNI_ARGS} pairs
 * @param capabilityArgs capability arguments by capability name (e.g. {@code portMappings}); each plugin gets, as
 *                       {@code runtimeConfig}, those its {@code capabilities} enable
 */
public record RuntimeConf(String containerId, String netns, String ifName, CniArgs args, JsonObject capabilityArgs) {

    public RuntimeConf {
        Objects.requireNonNull(containerId, "containerId");
        Objects.requireNonNull(netns, "netns");
        Objects.requireNonNull(ifName, "ifName");
        args = args == null ? CniArgs.empty() : args;
        capabilityArgs = capabilityArgs == null ? JsonObject.EMPTY : capabilityArgs;
    }

    /** No CNI_ARGS and no capability arguments. */
    public RuntimeConf(String containerId, String netns, String ifName) {
        this(containerId, netns, ifName, CniArgs.empty(), JsonObject.EMPTY);
    }

    public RuntimeConf withArgs(CniArgs newArgs) {
        return new RuntimeConf(containerId, netns, ifName, newArgs, capabilityArgs);
    }

    public RuntimeConf withCapabilityArgs(JsonObject newCapabilityArgs) {
        return new RuntimeConf(containerId, netns, ifName, args, newCapabilityArgs);
    }

    public RuntimeConf withContainerId(String newContainerId) {
        return new RuntimeConf(newContainerId, netns, ifName, args, capabilityArgs);
    }

    public RuntimeConf withIfName(String newIfName) {
        return new RuntimeConf(containerId, netns, newIfName, args, capabilityArgs);
    }

    public RuntimeConf withNetns(String newNetns) {
        return new RuntimeConf(containerId, newNetns, ifName, args, capabilityArgs);
    }

    /** The attachment this configuration addresses, as GC lists valid ones. */
    public GcAttachment attachment() {
        return new GcAttachment(containerId, ifName);
    }
}

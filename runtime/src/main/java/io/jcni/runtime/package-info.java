/**
 * The CNI runtime library: what a container runtime links to attach containers to networks, the Java counterpart of
 * Go's libcni. Load network configurations with {@link io.jcni.runtime.NetworkConfigs}, make a
 * {@link io.jcni.runtime.CniRuntime} once, and call it from any thread:
 *
 * {@snippet :
 * NetworkConfigList list = NetworkConfigs.load(Path.of("/etc/cni/net.d")).require("mynet");
 * CniRuntime.Options options = CniRuntime.Options.of(List.of(Path.of("/opt/cni/bin")));
 * try (CniRuntime cni = CniRuntime.create(options)) {
 *     RuntimeConf container = new RuntimeConf("a1b2c3", "/var/run/netns/a1b2c3", "eth0");
 *     CniRuntime call = cni.withTimeout(Duration.ofSeconds(30));   // each call killed/rolled back after 30 s
 *     Result result = Result.from(call.addNetworkList(list, container));
 *     for (IpConfig ip : result.ips()) {
 *         System.out.println(ip.address());                           // 10.22.0.5/16
 *     }
 *     call.checkNetworkList(list, container);
 *     call.delNetworkList(list, container);
 * } catch (CniRuntimeException e) {
 *     // e.code(): the plugin's CNI error code; e.fromPlugin(), e.pluginType(), e.stderr(), e.timedOut()
 * }
 * }
 *
 * <p>What to know, each detailed in the type it concerns:
 * <ul>
 * <li>Results are typed: {@link io.jcni.spec.CniResult} is {@link io.jcni.spec.Result} (0.3.0 and later) or
 * {@link io.jcni.spec.LegacyResult} (0.1.0, 0.2.0), converted to the list's version; {@code Result.from} gives any
 * of them in the newest shape.</li>
 * <li>Failures are one unchecked type, {@link io.jcni.runtime.CniRuntimeException}, a
 * {@link io.jcni.spec.CniException} carrying the CNI error code, the plugin and its stderr.</li>
 * <li>Time limits and cancellation: {@link io.jcni.runtime.CniRuntime#withTimeout},
 * {@link io.jcni.runtime.CniRuntime#withDeadline}, and interrupts of the calling thread (see {@code CniRuntime},
 * "Deadlines and cancellation").</li>
 * <li>A failed ADD is rolled back ({@link io.jcni.runtime.CniRuntime.Options#withDeleteOnAddFailure}); a second ADD of
 * the same attachment without a DEL is refused; the result cache is libcni's, readable by Go runtimes and back.</li>
 * <li>Every network of a configuration directory for one sandbox, as containerd's go-cni does it (interfaces
 * {@code eth0}, {@code eth1}, ..., typed capability arguments, labels, results by interface, parallel setup):
 * {@link io.jcni.runtime.SandboxNetworks}, {@link io.jcni.runtime.Sandbox}, {@link io.jcni.runtime.Capabilities},
 * {@link io.jcni.runtime.SandboxResult}; {@link io.jcni.runtime.CniRuntime.Options#fromEnvironment()} reads
 * {@code CNI_PATH}, {@code NETCONFPATH} and {@code JCNI_CACHE_DIR}.</li>
 * <li>jcni's plugins can run in the runtime's JVM instead of being exec'd: {@code io.jcni.plugins.Plugins.inProcess()}
 * (module {@code io.jcni.plugins}, which needs {@code --enable-native-access=io.jcni.netlink}, or
 * {@code ALL-UNNAMED} on the class path), passed to
 * {@link io.jcni.runtime.CniRuntime.Options#withInProcess}.</li>
 * <li>The package also holds the contract with jcni's plugin SDK: {@link io.jcni.runtime.InProcessPlugin},
 * {@link io.jcni.runtime.InProcessPlugins}, {@link io.jcni.runtime.Delegation},
 * {@link io.jcni.runtime.JcniLaunchers}.</li>
 * </ul>
 * The README's "Use as a library" has the Maven coordinates, the {@code requires} lines and a complete example
 * (ADD, CHECK, DEL, GC, STATUS) that the build compiles and runs.
 */
package io.jcni.runtime;

# The JVM options and entry points of the image's programs, sourced (with $image set to a jlink image) by
# build-dist.sh, which writes them into the launchers, and by train-aot.sh, which trains the AOT caches with them: a
# cache is trained with the options it is used with.
#
# Sets: main (the plugins' launcher), cli (the runtime CLI's module options), service_main, flags (the plugin
# launchers' and the CLI's JVM options), service_flags (the plugin service's).

main=io.jcni.plugins/io.jcni.plugins.internal.launcher.Launcher
# The jcni CLI lives in io.jcni.runtime, which does not read io.jcni.netlink: adding that module to the graph keeps
# the image's --enable-native-access=io.jcni.netlink from warning "Unknown module" at every CLI start.
cli="--add-modules io.jcni.netlink -m io.jcni.runtime/io.jcni.runtime.internal.cli.JcniCli"
# Start-up flags, measured on this machine (benchmarks/compare.sh): C1 only, and only for methods ten times hotter than
# C1's default thresholds (CompileThresholdScaling=10). An exec'd plugin is over in tens of milliseconds: with the
# default thresholds C1 compiled ~180 methods per host-local ADD (mostly the JDK's classfile code that spins FFM's
# downcall stub), 20-40 ms of CPU on a second core that a busy node does not have; scaled, it compiles ~40. Measured
# against the default (30 interleaved rounds, chrt -f 20): host-local ADD 44.6 -> 45.7 ms wall, 70 -> 57 ms CPU;
# bridge ADD 67 -> 58 ms, 98 -> 73 ms CPU; bridge DEL 83 -> 72 ms, 94 -> 67 ms CPU. The interpreter alone (-Xint) is
# as fast for these calls but makes a long loop such as host-local's index rebuild of a full /16 six times slower
# (570 ms -> 3.5 s; scaled C1: 700 ms). Then the serial collector, no hsperfdata file in /tmp, a small initial heap. JVM warnings go to stderr: stdout carries
# the CNI result. jdk.includeInExceptions is set below to the image's own default, as a system property: then
# InetAddress's initialization does not load and parse conf/security/java.security (JDK 25), which saves ~40 class
# initializations and a file read in every plugin that handles an IP address.
#
# Two diagnostic flags of the image's own JVM (the image pins it, and the build's cache check and the it module's
# DistVerificationTest start launchers with them): ArchiveRelocationMode=0 maps the AOT cache at the base address it was
# written for instead of a random one, which spares relocating every pointer of a 9-16 MB cache at each start (VERSION
# with the netlink cache 44.3 -> 40.6 ms, 40 interleaved rounds); the JVM still relocates when that address is taken.
# The cost is address randomization of the cached class metadata (heap, stacks, code and libraries stay randomized); the
# README's security notes say so, and JCNI_JAVA_OPTS=-XX:ArchiveRelocationMode=1 takes it back. -AOTReplayTraining: the
# JVM does not replay the training's compilation profile at start, a thread that competes with the plugin's for two
# cores and whose compilations a call of tens of milliseconds does not live to use (bridge ADD 88.6 -> 87.5 ms wall,
# 100.6 -> 93.2 ms CPU, 24 rounds). -AOTAdapterCaching: JDK 25 keys the cached i2c/c2i adapters by a hash of their
# signature that can collide (JDK-8364929, fixed in 26); a cache holding two such adapters makes every start warn on
# stderr and lose one (seen with the CLI's cache: 'Saved blob's name LLLLLLLLLLLL is different from the expected name
# LLLLLLILILLL'). Without adapter caching jcni --version and bridge VERSION start as fast (50 and 42 ms, 30 runs each).
flags='-XX:TieredStopAtLevel=1 -XX:CompileThresholdScaling=10 -XX:+UseSerialGC -XX:-UsePerfData -Xms8m -Xss512k -XX:+UnlockDiagnosticVMOptions -XX:ArchiveRelocationMode=0 -XX:-AOTReplayTraining -XX:-AOTAdapterCaching -XX:+DisplayVMOutputToStderr -Xlog:disable -Xlog:all=warning:stderr'
exceptions=$(sed -n 's/^jdk\.includeInExceptions=//p' "$image/conf/security/java.security" | tail -n 1)
flags="$flags -Djdk.includeInExceptions=${exceptions:-}"
# The service is long-running: the JIT's full tiers, the serial collector (one heap, small footprint), a heap that
# bounds the worst case (every call thread holding a request of the largest size) and stays far below it in use.
# Its young generation is sized, not left to the serial collector's ergonomics (-Xms64m -Xmn32m): from -Xms16m alone the
# young generation is ~5 MB and stays so (it grows only at a full collection), and a burst of pods collects it every
# 0.6-0.8 s, each pause (1-25 ms, stop-the-world) stalling every call in flight, and promotes the calls in flight to
# the old generation. Measured in the simulated cluster (it/src/test/cluster/cluster_sim.py, 10 nodes x 100 pods):
# young collections over a run, the ten services' together, 390 -> 60; the warm path's allocation p99 lower in every
# alternating pair (README, Cluster IPAM at scale). The heap's initial size holds the young generation: an -Xmn at
# -Xms leaves no room for the AOT cache's archived heap objects, and the JVM refuses to start.
# Its AOT cache, lib/jcni-service.aot, is trained on the service's own workload (train-service.sh): classes loaded and
# linked, and method profiles, so that its first calls are not those of a cold JVM. AOTReplayTraining stays on here (the
# JIT compiles from the training's profiles early: the service lives long enough to use them); adapter caching is off
# as in the launchers (JDK-8364929).
# AOTCompileEagerly (experimental in JDK 25): once a class the training saw is initialized, the methods the training
# compiled are compiled at once, from the cached profiles, instead of after the invocation counts that tiered
# compilation waits for (200 calls for C1, 5,000 for C2: a method run once per ADD reaches them only after hundreds of
# pods). The JIT does about the same work (C2 CPU over a fresh service's first 100 bridge ADD/DEL pairs 1.44 s against
# 1.33 s), earlier. Measured (benchmarks/compare.sh --suites cold, five runs, bridge + host-local ADD x Go): calls 2-20
# 0.62-0.76x and calls 21-100 0.45x, against 1.09-1.20x and 0.55x for the build before (README, Performance).
# Lowering the thresholds instead (CompileThresholdScaling=0.1) gave 0.51-0.63x and 0.45x (ad-hoc A/B) for twice the
# C2 CPU (2.9 s).
# SkipTier2IfPossible (diagnostic): a method the training compiled with C2 goes to C2 at once, from the training's
# profile, instead of first to C1 level 2. The eager queue is ~1,800 C1 compilations (~1,100 of them queued while the
# JVM boots, before the socket exists), which keep the one C1 thread busy for the first ~700 ms while the C2 thread
# sits idle; the first calls run in that window, interpreted where their methods wait in the C1 queue. With the flag the
# hottest methods get C2 code in the first 400 ms from the idle C2 thread. cold suite, calls 2-20: 0.55/0.57/0.57x
# against 0.78/0.65x for the build without it, alternating runs (README, Performance); calls 21-100 unchanged (0.45x).
# The cost is the first call (48-58 ms against 32-34 ms in 8-service runs of an ad-hoc harness; ~40 ms saved over the
# first 20 calls). Not the C2 thread's CPU: reniced for the first second, or a second C2 thread, left it unchanged;
# likely a method sent straight to C2 runs interpreted until C2's slower compilation ends (README, Performance).
service_flags="-XX:+UseSerialGC -XX:-UsePerfData -Xms64m -Xmn32m -Xmx256m -XX:+UnlockDiagnosticVMOptions -XX:-AOTAdapterCaching -XX:+UnlockExperimentalVMOptions -XX:+AOTCompileEagerly -XX:+SkipTier2IfPossible -XX:+DisplayVMOutputToStderr -Xlog:disable -Xlog:all=warning:stderr -Djdk.includeInExceptions=${exceptions:-}"
service_main=io.jcni.plugins/io.jcni.plugins.internal.service.ServiceMain

package io.jcni.plugins.internal.ipam.hostlocal;

import io.jcni.plugins.internal.pkg.ipam.ranges.Allocation;
import io.jcni.plugins.internal.pkg.ipam.ranges.Attachment;
import io.jcni.plugins.internal.pkg.ipam.ranges.IpamException;
import io.jcni.plugins.internal.pkg.ipam.ranges.OnExisting;
import io.jcni.plugins.internal.pkg.ipam.ranges.RangeSet;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A separate process for {@link StoreProcessTest}: each operation opens its own store, as a plugin exec does.
 *
 * <pre>
 * alloc   DATADIR NETWORK PREFIX COUNT THREADS SUBNET...   allocate PREFIX-0..COUNT-1 in parallel; prints "OK id ip"
 * release DATADIR NETWORK PREFIX COUNT THREADS             release them in parallel; prints "OK id n"
 * stop    DATADIR NETWORK ID POINT SUBNET...               allocate ID, but print "AT POINT" at that failpoint and hang
 * loop    DATADIR NETWORK PREFIX SUBNET...                 allocate PREFIX-0, -1, ... forever; prints "BEGIN id" first
 * </pre>
 */
public final class StoreWorker {

    private StoreWorker() {}

    public static void main(String[] args) throws Exception {
        Path dataDir = Path.of(args[1]);
        String network = args[2];
        switch (args[0]) {
            case "alloc" -> parallel(dataDir, network, args[3], Integer.parseInt(args[4]), Integer.parseInt(args[5]),
                    sets(args, 6), true);
            case "release" -> parallel(dataDir, network, args[3], Integer.parseInt(args[4]),
                    Integer.parseInt(args[5]), List.of(), false);
            case "stop" -> stop(dataDir, network, args[3], args[4], sets(args, 5));
            case "loop" -> loop(dataDir, network, args[3], sets(args, 4));
            default -> throw new IllegalArgumentException(args[0]);
        }
        System.out.flush();
    }

    private static List<RangeSet> sets(String[] args, int from) throws IpamException {
        List<RangeSet> out = new ArrayList<>();
        for (int i = from; i < args.length; i++) {
            out.add(Fixtures.set(args[i].split(",")));
        }
        return out;
    }

    private static void parallel(Path dataDir, String network, String prefix, int count, int threads,
            List<RangeSet> sets, boolean allocate) throws Exception {
        try (ExecutorService pool = Executors.newFixedThreadPool(threads)) {
            List<Future<String>> results = new ArrayList<>();
            for (int i = 0; i < count; i++) {
                Attachment who = Fixtures.who(prefix + "-" + i);
                results.add(pool.submit(() -> {
                    try (HostLocalStore store = HostLocalStore.open(dataDir, network)) {
                        if (allocate) {
                            StringBuilder line = new StringBuilder("OK " + who.containerId());
                            for (Allocation a : store.allocate(who, sets, List.of(), OnExisting.REUSE)) {
                                line.append(' ').append(a.address());
                            }
                            return line.toString();
                        }
                        return "OK " + who.containerId() + " " + store.release(who).size();
                    }
                }));
            }
            for (Future<String> f : results) {
                System.out.println(f.get());
            }
        }
    }

    private static void stop(Path dataDir, String network, String id, String point, List<RangeSet> sets)
            throws Exception {
        Failpoints.hook = name -> {
            if (name.equals(point)) {
                System.out.println("AT " + name);
                System.out.flush();
                try {
                    Thread.sleep(600_000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
        };
        try (HostLocalStore store = HostLocalStore.open(dataDir, network)) {
            store.allocate(Fixtures.who(id), sets, List.of(), OnExisting.REUSE);
        }
        System.out.println("DONE without reaching " + point);
    }

    private static void loop(Path dataDir, String network, String prefix, List<RangeSet> sets) throws IOException {
        for (int i = 0; ; i++) {
            Attachment who = Fixtures.who(prefix + "-" + i);
            System.out.println("BEGIN " + who.containerId());
            System.out.flush();
            try (HostLocalStore store = HostLocalStore.open(dataDir, network)) {
                store.allocate(who, sets, List.of(), OnExisting.REUSE);
            } catch (IpamException e) {
                System.out.println("FAILED " + e.getMessage());
                Files.createDirectories(dataDir); // keep going; the parent decides
            }
        }
    }
}

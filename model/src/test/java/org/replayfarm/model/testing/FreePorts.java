package org.replayfarm.model.testing;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Ports for nodes a test starts a moment later. A port from {@code new ServerSocket(0)} comes from Linux's ephemeral
 * range (32768 and up by default), the same range outbound connections take their local ports from: closed again
 * before the node binds it, it may meanwhile become another node's outbound Artery or HTTP connection's local port,
 * and the bind fails ("Address already in use": a CI run failed so). These come from 20000..31999, below that range,
 * each checked free on its address when asked, from a random start per JVM so that test JVMs running side by side
 * rarely try the same ones; a port is never handed out twice in one JVM.
 */
public final class FreePorts {
    static final int FIRST = 20_000;
    static final int COUNT = 12_000;
    private static final AtomicInteger NEXT = new AtomicInteger(ThreadLocalRandom.current().nextInt(COUNT));

    private FreePorts() {
    }

    /** A loopback port nothing holds now. */
    public static int loopback() {
        return on(InetAddress.getLoopbackAddress());
    }

    /** {@code n} distinct loopback ports nothing holds now, in ascending order. */
    public static int[] loopback(int n) {
        int[] ports = new int[n];
        for (int i = 0; i < n; i++) {
            ports[i] = loopback();
        }
        java.util.Arrays.sort(ports);
        return ports;
    }

    /** A port nothing holds now on {@code host} (a name or an address such as 127.0.0.2). */
    public static int on(String host) {
        try {
            return on(InetAddress.getByName(host));
        } catch (IOException e) {
            throw new IllegalArgumentException("not an address: " + host, e);
        }
    }

    private static int on(InetAddress address) {
        for (int tries = 0; tries < COUNT; tries++) {
            int port = FIRST + Math.floorMod(NEXT.getAndIncrement(), COUNT);
            try (ServerSocket s = new ServerSocket(port, 1, address)) {
                return s.getLocalPort();
            } catch (IOException taken) {
                // held by something else: the next one
            }
        }
        throw new IllegalStateException("no free port in " + FIRST + ".." + (FIRST + COUNT - 1) + " on " + address);
    }
}

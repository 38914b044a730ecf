package org.replayfarm.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.Stream;

/**
 * The TCP sockets a process listens on, read from Linux's {@code /proc}: the socket inodes among its file
 * descriptors matched with the LISTEN entries of its network namespace's {@code net/tcp} and {@code net/tcp6}.
 */
final class Listeners {
    /** One listening socket: its address as the kernel holds it and its port. */
    record Listener(String address, int port, long inode) {
        boolean loopback() {
            return address.startsWith("127.") || address.equals("::1");
        }

        boolean wildcard() {
            return address.equals("0.0.0.0") || address.equals("::");
        }
    }

    private Listeners() {
    }

    /** The sockets process {@code pid} listens on now. */
    static List<Listener> of(long pid) throws IOException {
        Path proc = Path.of("/proc", String.valueOf(pid));
        Set<Long> inodes = new HashSet<>();
        try (Stream<Path> fds = Files.list(proc.resolve("fd"))) {
            for (Path fd : (Iterable<Path>) fds::iterator) {
                try {
                    String target = Files.readSymbolicLink(fd).toString();
                    if (target.startsWith("socket:[")) {
                        inodes.add(Long.parseLong(target.substring(8, target.length() - 1)));
                    }
                } catch (IOException closedMeanwhile) {
                    // the descriptor went away while we listed them
                }
            }
        }
        List<Listener> out = new ArrayList<>();
        for (String table : List.of("tcp", "tcp6")) {
            Path file = proc.resolve("net").resolve(table);
            if (!Files.exists(file)) {
                continue;
            }
            List<String> lines = Files.readAllLines(file);
            for (String line : lines.subList(1, lines.size())) {
                String[] f = line.trim().split("\\s+");
                if (!f[3].equals("0A")) {
                    continue; // not LISTEN
                }
                long inode = Long.parseLong(f[9]);
                if (!inodes.contains(inode)) {
                    continue;
                }
                String[] local = f[1].split(":");
                out.add(new Listener(address(local[0]), Integer.parseInt(local[1], 16), inode));
            }
        }
        return out;
    }

    /** The kernel's hex address: IPv4 as one little-endian word, IPv6 as four (an IPv4-mapped one as IPv4). */
    static String address(String hex) {
        if (hex.length() == 8) {
            return ipv4(hex);
        }
        if (hex.equals("0000000000000000FFFF0000" + hex.substring(24))) {
            return ipv4(hex.substring(24));
        }
        if (hex.equals("00000000000000000000000000000000")) {
            return "::";
        }
        if (hex.equals("00000000000000000000000001000000")) {
            return "::1";
        }
        return "ipv6:" + hex;
    }

    private static String ipv4(String hex) {
        long v = Long.parseLong(hex, 16);
        return (v & 0xff) + "." + ((v >> 8) & 0xff) + "." + ((v >> 16) & 0xff) + "." + ((v >> 24) & 0xff);
    }
}

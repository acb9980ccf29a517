package io.kubeloop.apiserver.internal.registry;

import java.util.regex.Pattern;

/**
 * IP addresses and CIDRs as Go's {@code netutils.ParseIPSloppy} / {@code ParseCIDRSloppy} read them (kube's IP
 * validation in 1.32): dotted-quad IPv4 (leading zeros allowed) or IPv6 (no zone), and {@code ip/prefix}. Never
 * resolves a name.
 */
final class IpAddresses {

    /** Which family an address belongs to; {@code null} from {@link #family} means not an IP. */
    enum Family {
        V4,
        V6
    }

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6_CHARS = Pattern.compile("[0-9a-fA-F:.]+");

    private IpAddresses() {}

    /** The family of {@code ip}, or null when it is not an IP address. */
    static Family family(String ip) {
        var m = IPV4.matcher(ip);
        if (m.matches()) {
            for (int i = 1; i <= 4; i++) {
                if (Integer.parseInt(m.group(i)) > 255) {
                    return null;
                }
            }
            return Family.V4;
        }
        if (!ip.contains(":") || !IPV6_CHARS.matcher(ip).matches()) {
            return null;
        }
        try {
            // a bracketed literal is parsed, never looked up; an IPv4-mapped address is IPv4, as in Go
            return java.net.InetAddress.getByName("[" + ip + "]") instanceof java.net.Inet4Address
                    ? Family.V4
                    : Family.V6;
        } catch (java.net.UnknownHostException | IllegalArgumentException e) {
            return null;
        }
    }

    /** The family of {@code cidr} ({@code ip/prefix}), or null when it is not a CIDR. */
    static Family cidrFamily(String cidr) {
        int slash = cidr.indexOf('/');
        if (slash < 0 || slash != cidr.lastIndexOf('/')) {
            return null;
        }
        Family family = family(cidr.substring(0, slash));
        String prefix = cidr.substring(slash + 1);
        if (family == null || !prefix.matches("\\d{1,3}")) {
            return null;
        }
        int bits = Integer.parseInt(prefix);
        return bits <= (family == Family.V4 ? 32 : 128) ? family : null;
    }
}

package io.jcni.plugins.internal.ipam.dhcp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The DHCP message codec against RFC 2131's layout (section 2, figure 1: offsets of the fixed fields, the magic
 * cookie at 236) and RFC 2132's and RFC 3396's option rules, byte by byte.
 */
class DhcpMessageTest {
    private static final byte[] MAC = {2, 0, 0, 0, 0, 0x42};

    @Test
    void aDiscoverIsLaidOutAsRfc2131Says() {
        Map<Integer, byte[]> options = new LinkedHashMap<>();
        options.put(DhcpMessage.OPT_CLIENT_ID, new byte[] {0, 'c', '1'});
        options.put(DhcpMessage.OPT_PARAMETER_REQUEST_LIST, new byte[] {1, 3});
        byte[] m = DhcpMessage.request(DhcpMessage.DISCOVER, 0x0a0b0c0d, DhcpMessage.FLAG_BROADCAST, null, MAC, options)
                .encode();
        assertThat(m).hasSize(300); // BOOTP's minimum, padded
        assertThat(Arrays.copyOfRange(m, 0, 4)).isEqualTo(new byte[] {1, 1, 6, 0}); // op, htype, hlen, hops
        assertThat(Arrays.copyOfRange(m, 4, 8)).isEqualTo(new byte[] {0x0a, 0x0b, 0x0c, 0x0d}); // xid
        assertThat(Arrays.copyOfRange(m, 8, 12)).isEqualTo(new byte[] {0, 0, (byte) 0x80, 0}); // secs, flags
        assertThat(Arrays.copyOfRange(m, 12, 28)).isEqualTo(new byte[16]); // ciaddr, yiaddr, siaddr, giaddr
        assertThat(Arrays.copyOfRange(m, 28, 34)).isEqualTo(MAC);
        assertThat(Arrays.copyOfRange(m, 34, 236)).isEqualTo(new byte[202]); // rest of chaddr, sname, file
        assertThat(Arrays.copyOfRange(m, 236, 240)).isEqualTo(new byte[] {99, (byte) 130, 83, 99});
        assertThat(Arrays.copyOfRange(m, 240, 256)).isEqualTo(new byte[] {53, 1, 1, 61, 3, 0, 'c', '1', 55, 2, 1, 3,
            (byte) 255, 0, 0, 0});
    }

    @Test
    void decodingReadsBackWhatEncodingWrote() throws Exception {
        Map<Integer, byte[]> options = new LinkedHashMap<>();
        options.put(DhcpMessage.OPT_SERVER_ID, new byte[] {10, 0, 0, 1});
        options.put(DhcpMessage.OPT_LEASE_TIME, new byte[] {0, 0, 0x0e, 0x10});
        DhcpMessage sent = new DhcpMessage(DhcpMessage.BOOTREPLY, 7, 3, 0, null, new byte[] {10, 0, 0, 9}, null,
                null, MAC, options);
        byte[] wire = sent.encode();
        DhcpMessage read = DhcpMessage.decode(wire, 0, wire.length);
        assertThat(read.op).isEqualTo(DhcpMessage.BOOTREPLY);
        assertThat(read.xid).isEqualTo(7);
        assertThat(read.secs).isEqualTo(3);
        assertThat(read.yiaddr).isEqualTo(new byte[] {10, 0, 0, 9});
        assertThat(Arrays.copyOf(read.chaddr, 6)).isEqualTo(MAC);
        assertThat(read.optionCodes()).containsExactly(DhcpMessage.OPT_SERVER_ID, DhcpMessage.OPT_LEASE_TIME);
        assertThat(read.secondsOption(DhcpMessage.OPT_LEASE_TIME)).isEqualTo(3600);
        assertThat(read.addressOption(DhcpMessage.OPT_SERVER_ID)).isEqualTo(new byte[] {10, 0, 0, 1});
        assertThat(read.messageType()).isZero();
    }

    @Test
    void aValueLongerThan255BytesIsSplitAndJoinedAgain() throws Exception {
        byte[] long300 = new byte[300];
        for (int i = 0; i < long300.length; i++) {
            long300[i] = (byte) i;
        }
        Map<Integer, byte[]> options = new LinkedHashMap<>();
        options.put(DhcpMessage.OPT_CLASSLESS_ROUTES, long300);
        byte[] wire = new DhcpMessage(DhcpMessage.BOOTREPLY, 1, 0, 0, null, null, null, null, MAC, options).encode();
        // RFC 3396: option 121 twice, 255 then 45 bytes.
        assertThat(wire[240] & 0xff).isEqualTo(121);
        assertThat(wire[241] & 0xff).isEqualTo(255);
        assertThat(wire[240 + 257] & 0xff).isEqualTo(121);
        assertThat(wire[240 + 258] & 0xff).isEqualTo(45);
        assertThat(DhcpMessage.decode(wire, 0, wire.length).option(DhcpMessage.OPT_CLASSLESS_ROUTES))
                .isEqualTo(long300);
    }

    @Test
    void overloadedFileAndSnameFieldsHoldOptions() throws Exception {
        byte[] m = new byte[244 + 4];
        m[0] = DhcpMessage.BOOTREPLY;
        m[236] = 99;
        m[237] = (byte) 130;
        m[238] = 83;
        m[239] = 99;
        m[240] = DhcpMessage.OPT_OVERLOAD;
        m[241] = 1;
        m[242] = 3; // both fields
        m[243] = (byte) 255;
        // file (108..235): option 3 = 10.0.0.1; sname (44..107): option 6 = 10.0.0.53
        System.arraycopy(new byte[] {3, 4, 10, 0, 0, 1, (byte) 255}, 0, m, 108, 7);
        System.arraycopy(new byte[] {6, 4, 10, 0, 0, 53, (byte) 255}, 0, m, 44, 7);
        DhcpMessage read = DhcpMessage.decode(m, 0, m.length);
        assertThat(read.addressOption(DhcpMessage.OPT_ROUTER)).isEqualTo(new byte[] {10, 0, 0, 1});
        assertThat(read.addressOption(DhcpMessage.OPT_DNS)).isEqualTo(new byte[] {10, 0, 0, 53});
        assertThat(read.has(DhcpMessage.OPT_OVERLOAD)).as("read, then dropped").isFalse();
    }

    @Test
    void malformedMessagesAreRefusedWithTheReason() {
        byte[] valid = DhcpMessage.request(DhcpMessage.DISCOVER, 1, 0, null, MAC, Map.of()).encode();
        assertThatThrownBy(() -> DhcpMessage.decode(valid, 0, 200)).hasMessage(
                "a DHCP message of 200 bytes (at least 240)");
        byte[] bootp = valid.clone();
        bootp[236] = 0;
        assertThatThrownBy(() -> DhcpMessage.decode(bootp, 0, bootp.length)).hasMessageContaining("magic cookie");
        byte[] pastEnd = Arrays.copyOf(valid, 244);
        pastEnd[240] = 12;
        pastEnd[241] = 10; // 10 bytes announced, 2 there
        assertThatThrownBy(() -> DhcpMessage.decode(pastEnd, 0, pastEnd.length))
                .hasMessage("option 12 in options runs past the end");
        byte[] badOp = valid.clone();
        badOp[0] = 9;
        assertThatThrownBy(() -> DhcpMessage.decode(badOp, 0, badOp.length)).hasMessage("op 9");
    }
}

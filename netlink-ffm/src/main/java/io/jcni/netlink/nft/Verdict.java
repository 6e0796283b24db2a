package io.jcni.netlink.nft;

import io.jcni.netlink.internal.wire.NetfilterH;
import io.jcni.netlink.internal.wire.NfTablesH;
import java.util.Objects;

/**
 * What a rule decides ({@code accept}, {@code drop}, {@code return}, {@code jump CHAIN}, {@code goto CHAIN},
 * {@code continue}): the data of an {@code immediate} to the verdict register, or of a verdict-map element.
 *
 * @param code the verdict
 * @param chain the target of {@code jump}/{@code goto}; null for the others
 */
public record Verdict(Code code, String chain) {

    /** Verdict codes: {@code NF_ACCEPT}, {@code NF_DROP} of {@code <linux/netfilter.h>} and {@code NFT_*}. */
    public enum Code {
        ACCEPT("accept", NetfilterH.NF_ACCEPT),
        DROP("drop", NetfilterH.NF_DROP),
        CONTINUE("continue", NfTablesH.NFT_CONTINUE),
        BREAK("break", NfTablesH.NFT_BREAK),
        JUMP("jump", NfTablesH.NFT_JUMP),
        GOTO("goto", NfTablesH.NFT_GOTO),
        RETURN("return", NfTablesH.NFT_RETURN);

        private final String nftName;
        private final int value;

        Code(String nftName, int value) {
            this.nftName = nftName;
            this.value = value;
        }

        /** The code as the kernel encodes it ({@code NFTA_VERDICT_CODE}). */
        public int value() {
            return value;
        }

        public String nftName() {
            return nftName;
        }

        /** The code of kernel value {@code value}. */
        public static Code of(int value) {
            for (Code c : values()) {
                if (c.value == value) {
                    return c;
                }
            }
            throw new IllegalArgumentException("unknown verdict code " + value);
        }
    }

    /** {@code accept}. */
    public static final Verdict ACCEPT = new Verdict(Code.ACCEPT, null);
    /** {@code drop}. */
    public static final Verdict DROP = new Verdict(Code.DROP, null);
    /** {@code return}: back to the chain that jumped here (for a base chain: its policy). */
    public static final Verdict RETURN = new Verdict(Code.RETURN, null);
    /** {@code continue}. */
    public static final Verdict CONTINUE = new Verdict(Code.CONTINUE, null);

    public Verdict {
        Objects.requireNonNull(code, "code");
        boolean needsChain = code == Code.JUMP || code == Code.GOTO;
        if (needsChain != (chain != null)) {
            throw new IllegalArgumentException(needsChain ? code.nftName + " needs a chain"
                    : code.nftName + " takes no chain");
        }
        if (chain != null) {
            Names.check("chain", chain);
        }
    }

    /** {@code jump CHAIN}: run CHAIN, then continue here unless it decided. */
    public static Verdict jump(String chain) {
        return new Verdict(Code.JUMP, chain);
    }

    /** {@code goto CHAIN}: run CHAIN and do not come back. */
    public static Verdict goTo(String chain) {
        return new Verdict(Code.GOTO, chain);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Verdict v && v.code == code && Objects.equals(v.chain, chain);
    }

    @Override
    public int hashCode() {
        return code.hashCode() * 31 + Objects.hashCode(chain);
    }

    /** As {@code nft --debug=netlink} prints it: {@code accept}, {@code jump -> CHAIN}. */
    @Override
    public String toString() {
        return chain == null ? code.nftName : code.nftName + " -> " + chain;
    }
}

package io.jcni.plugins.internal.ipam.cluster;

import io.jcni.plugins.internal.ipam.cluster.EtcdException.Kind;
import io.jcni.runtime.internal.files.BoundedFiles;
import io.jcni.runtime.internal.files.IoText;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Collection;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocketFactory;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS from PEM files as etcd's clients take them ({@code --cacert}, {@code --cert}, {@code --key}): X.509 certificates
 * and a private key in PKCS#8 ({@code BEGIN PRIVATE KEY}), PKCS#1 RSA ({@code BEGIN RSA PRIVATE KEY}) or SEC1 EC
 * ({@code BEGIN EC PRIVATE KEY}), unencrypted. JDK 25 reads certificates from PEM itself; its PEM key decoder is a
 * preview API, so keys are decoded here: PKCS#1 and SEC1 are wrapped into the PKCS#8 structure the JDK's
 * {@link KeyFactory} reads.
 */
final class Pem {
    /** Largest PEM file read (certificates chains are a few KiB). */
    private static final int MAX_FILE = 1 << 20;

    private Pem() {
    }

    /**
     * The socket factory for {@code trustedCAFile} (trust: only these CAs; none given: the JDK's default trust) and
     * the client identity {@code certFile} + {@code keyFile} (both or neither).
     */
    static SSLSocketFactory socketFactory(Path trustedCa, Path cert, Path key) throws EtcdException {
        try {
            TrustManagerFactory tmf = null;
            if (trustedCa != null) {
                KeyStore trust = KeyStore.getInstance("PKCS12");
                trust.load(null, null);
                int i = 0;
                for (Certificate c : certificates(trustedCa)) {
                    trust.setCertificateEntry("ca" + i++, c);
                }
                tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
                tmf.init(trust);
            }
            KeyManagerFactory kmf = null;
            if (cert != null) {
                List<Certificate> chain = certificates(cert);
                PrivateKey privateKey = privateKey(key);
                KeyStore identity = KeyStore.getInstance("PKCS12");
                identity.load(null, null);
                char[] none = new char[0];
                identity.setKeyEntry("client", privateKey, none, chain.toArray(new Certificate[0]));
                kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
                kmf.init(identity, none);
            }
            SSLContext context = SSLContext.getInstance("TLS");
            context.init(kmf == null ? null : kmf.getKeyManagers(), tmf == null ? null : tmf.getTrustManagers(),
                    null);
            return context.getSocketFactory();
        } catch (GeneralSecurityException | IOException e) {
            throw new EtcdException(Kind.CONFIG, "cannot set up TLS: " + reason(e), e);
        }
    }

    static List<Certificate> certificates(Path file) throws EtcdException {
        byte[] bytes = read(file);
        try {
            Collection<? extends Certificate> found = CertificateFactory.getInstance("X.509")
                    .generateCertificates(new ByteArrayInputStream(bytes));
            if (found.isEmpty()) {
                throw new EtcdException(Kind.CONFIG, file + ": no certificate in the file");
            }
            return new ArrayList<>(found);
        } catch (GeneralSecurityException e) {
            throw new EtcdException(Kind.CONFIG, file + ": not a PEM certificate: " + reason(e), e);
        }
    }

    static PrivateKey privateKey(Path file) throws EtcdException {
        String text = new String(read(file), StandardCharsets.US_ASCII);
        try {
            byte[] der = block(text, "PRIVATE KEY");
            if (der != null) {
                return pkcs8(der);
            }
            der = block(text, "RSA PRIVATE KEY");
            if (der != null) {
                // PrivateKeyInfo { version 0, AlgorithmIdentifier { rsaEncryption, NULL }, OCTET STRING pkcs1 }
                byte[] algorithm = Der.sequence(Der.concat(Der.oid(RSA_ENCRYPTION), new byte[] {0x05, 0x00}));
                return KeyFactory.getInstance("RSA").generatePrivate(new PKCS8EncodedKeySpec(
                        Der.sequence(Der.concat(new byte[] {0x02, 0x01, 0x00}, algorithm, Der.octets(der)))));
            }
            der = block(text, "EC PRIVATE KEY");
            if (der != null) {
                // PrivateKeyInfo { 0, AlgorithmIdentifier { id-ecPublicKey, curve OID from SEC1's [0] }, sec1 }
                byte[] curve = Der.ecCurveOid(der);
                byte[] algorithm = Der.sequence(Der.concat(Der.oid(EC_PUBLIC_KEY), curve));
                return KeyFactory.getInstance("EC").generatePrivate(new PKCS8EncodedKeySpec(
                        Der.sequence(Der.concat(new byte[] {0x02, 0x01, 0x00}, algorithm, Der.octets(der)))));
            }
        } catch (GeneralSecurityException | IllegalArgumentException e) {
            throw new EtcdException(Kind.CONFIG, file + ": cannot read the private key: " + reason(e), e);
        }
        throw new EtcdException(Kind.CONFIG, file + ": no unencrypted PEM private key (PRIVATE KEY, RSA PRIVATE KEY"
                + " or EC PRIVATE KEY)");
    }

    private static final byte[] RSA_ENCRYPTION = {0x2a, (byte) 0x86, 0x48, (byte) 0x86, (byte) 0xf7, 0x0d, 0x01, 0x01,
        0x01};
    private static final byte[] EC_PUBLIC_KEY = {0x2a, (byte) 0x86, 0x48, (byte) 0xce, 0x3d, 0x02, 0x01};

    private static PrivateKey pkcs8(byte[] der) throws GeneralSecurityException {
        GeneralSecurityException last = null;
        for (String algorithm : List.of("RSA", "EC", "Ed25519", "RSASSA-PSS")) {
            try {
                return KeyFactory.getInstance(algorithm).generatePrivate(new PKCS8EncodedKeySpec(der));
            } catch (GeneralSecurityException e) {
                last = e;
            }
        }
        throw last;
    }

    /** The DER bytes of the first {@code -----BEGIN <label>-----} block, or null. */
    static byte[] block(String text, String label) {
        String begin = "-----BEGIN " + label + "-----";
        int from = text.indexOf(begin);
        if (from < 0) {
            return null;
        }
        int to = text.indexOf("-----END " + label + "-----", from);
        if (to < 0) {
            throw new IllegalArgumentException("unterminated " + label + " block");
        }
        String body = text.substring(from + begin.length(), to);
        if (body.contains("Proc-Type:") || body.contains("ENCRYPTED")) {
            throw new IllegalArgumentException("encrypted keys are not supported");
        }
        return Base64.getMimeDecoder().decode(body);
    }

    /**
     * A PEM file named by the configuration, read as the runtime reads its own (only a regular file, links followed,
     * at most {@link #MAX_FILE} bytes): a FIFO there would block the call, {@code /dev/zero} would never end.
     */
    private static byte[] read(Path file) throws EtcdException {
        try {
            return BoundedFiles.read(file, MAX_FILE, BoundedFiles.Links.FOLLOW);
        } catch (IOException e) {
            throw new EtcdException(Kind.CONFIG, "cannot read " + file + ": " + IoText.reason(e), e);
        }
    }

    private static String reason(Exception e) {
        return e instanceof IOException io ? IoText.reason(io) : String.valueOf(e.getMessage());
    }

    /** The little DER writing and reading the key wrapping needs. */
    static final class Der {
        private Der() {
        }

        static byte[] concat(byte[]... parts) {
            int n = 0;
            for (byte[] p : parts) {
                n += p.length;
            }
            byte[] out = new byte[n];
            int at = 0;
            for (byte[] p : parts) {
                System.arraycopy(p, 0, out, at, p.length);
                at += p.length;
            }
            return out;
        }

        static byte[] sequence(byte[] content) {
            return tagged(0x30, content);
        }

        static byte[] octets(byte[] content) {
            return tagged(0x04, content);
        }

        static byte[] oid(byte[] content) {
            return tagged(0x06, content);
        }

        static byte[] tagged(int tag, byte[] content) {
            int n = content.length;
            byte[] length;
            if (n < 0x80) {
                length = new byte[] {(byte) n};
            } else if (n < 0x100) {
                length = new byte[] {(byte) 0x81, (byte) n};
            } else if (n < 0x10000) {
                length = new byte[] {(byte) 0x82, (byte) (n >> 8), (byte) n};
            } else {
                length = new byte[] {(byte) 0x83, (byte) (n >> 16), (byte) (n >> 8), (byte) n};
            }
            return concat(new byte[] {(byte) tag}, length, content);
        }

        /**
         * The curve OID (tag and length included) of a SEC1 {@code ECPrivateKey}: {@code SEQUENCE { INTEGER 1, OCTET
         * STRING key, [0] parameters OID, [1] public key }}.
         */
        static byte[] ecCurveOid(byte[] sec1) {
            int[] at = {0};
            expect(sec1, at, 0x30);
            int end = length(sec1, at) + at[0];
            while (at[0] < end) {
                int tag = sec1[at[0]] & 0xff;
                at[0]++;
                int len = length(sec1, at);
                if (tag == 0xa0) {
                    int start = at[0];
                    if ((sec1[start] & 0xff) != 0x06) {
                        break;
                    }
                    byte[] oid = new byte[len];
                    System.arraycopy(sec1, start, oid, 0, len);
                    return oid;
                }
                at[0] += len;
            }
            throw new IllegalArgumentException("SEC1 EC key without named curve parameters");
        }

        private static void expect(byte[] der, int[] at, int tag) {
            if (der.length <= at[0] || (der[at[0]] & 0xff) != tag) {
                throw new IllegalArgumentException("malformed DER");
            }
            at[0]++;
        }

        private static int length(byte[] der, int[] at) {
            if (at[0] >= der.length) {
                throw new IllegalArgumentException("malformed DER");
            }
            int first = der[at[0]++] & 0xff;
            if (first < 0x80) {
                return first;
            }
            int bytes = first & 0x7f;
            if (bytes > 3 || at[0] + bytes > der.length) {
                throw new IllegalArgumentException("malformed DER length");
            }
            int n = 0;
            for (int i = 0; i < bytes; i++) {
                n = (n << 8) | (der[at[0]++] & 0xff);
            }
            return n;
        }
    }
}

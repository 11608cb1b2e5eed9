// EciesVectors wraps and unwraps data keys with BouncyCastle's Cipher
// "ECIES", loading the PEM keys the way Pulsar's Java client
// (MessageCryptoBc) loads them, so that pulsargo's ECIES can be checked
// against real BouncyCastle output. See README.md; regen.sh runs it.
//
//   java -cp bcprov.jar:bcpkix.jar:bcutil.jar:. EciesVectors wrap KEYDIR OUT
//       for every KEYDIR/<stem>.pub.pem: each data key wrapped twice, each
//       ciphertext checked to open with <stem>.priv.pem and <stem>.pkcs8.pem;
//       lines "<stem> <data key hex> <ciphertext hex>" to OUT.
//   java ... EciesVectors unwrap KEYDIR IN OUT
//       for every line of IN (same format, made by pulsargo): opens the
//       ciphertext with both private key files of <stem>, writes
//       "<stem> <private key file> OK|FAIL <reason>" to OUT; exit status 1
//       if any line failed.

import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyFactory;
import java.security.PrivateKey;
import java.security.PublicKey;
import java.security.Security;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.List;
import java.util.stream.Stream;
import javax.crypto.Cipher;
import org.bouncycastle.asn1.ASN1ObjectIdentifier;
import org.bouncycastle.asn1.pkcs.PrivateKeyInfo;
import org.bouncycastle.asn1.x509.SubjectPublicKeyInfo;
import org.bouncycastle.asn1.x9.ECNamedCurveTable;
import org.bouncycastle.asn1.x9.X9ECParameters;
import org.bouncycastle.cert.X509CertificateHolder;
import org.bouncycastle.jce.interfaces.ECPrivateKey;
import org.bouncycastle.jce.interfaces.ECPublicKey;
import org.bouncycastle.jce.provider.BouncyCastleProvider;
import org.bouncycastle.jce.spec.ECParameterSpec;
import org.bouncycastle.jce.spec.ECPrivateKeySpec;
import org.bouncycastle.jce.spec.ECPublicKeySpec;
import org.bouncycastle.jce.spec.IESParameterSpec;
import org.bouncycastle.openssl.PEMKeyPair;
import org.bouncycastle.openssl.PEMParser;
import org.bouncycastle.openssl.jcajce.JcaPEMKeyConverter;

public final class EciesVectors {
    /** The data keys wrapped: an AES-256 key, and an AES-128 one (a JVM with limited crypto strength). */
    static final byte[][] DATA_KEYS = {
        "pulsargo-bouncycastle-ecies-key!".getBytes(StandardCharsets.US_ASCII),
        "pulsargo-16-key!".getBytes(StandardCharsets.US_ASCII),
    };

    static final HexFormat HEX = HexFormat.of();

    public static void main(String[] args) throws Exception {
        Security.addProvider(new BouncyCastleProvider());
        System.out.println("BouncyCastle " + Security.getProvider("BC").getVersionStr());
        if (args.length == 3 && args[0].equals("wrap")) {
            wrap(Path.of(args[1]), Path.of(args[2]));
        } else if (args.length == 4 && args[0].equals("unwrap")) {
            if (!unwrap(Path.of(args[1]), Path.of(args[2]), Path.of(args[3]))) {
                System.exit(1);
            }
        } else {
            System.err.println("usage: EciesVectors wrap KEYDIR OUT | unwrap KEYDIR IN OUT");
            System.exit(2);
        }
    }

    /** The IESParameterSpec MessageCryptoBc passes (required since BouncyCastle 1.72). */
    static IESParameterSpec params() {
        return new IESParameterSpec(null, null, 128);
    }

    static byte[] seal(PublicKey pub, byte[] dataKey) throws Exception {
        Cipher c = Cipher.getInstance("ECIES", "BC");
        c.init(Cipher.ENCRYPT_MODE, pub, params());
        return c.doFinal(dataKey);
    }

    static byte[] open(PrivateKey priv, byte[] wrapped) throws Exception {
        Cipher c = Cipher.getInstance("ECIES", "BC");
        c.init(Cipher.DECRYPT_MODE, priv, params());
        return c.doFinal(wrapped);
    }

    static void wrap(Path dir, Path out) throws Exception {
        List<String> lines = new ArrayList<>();
        for (String stem : stems(dir)) {
            PublicKey pub = loadPublicKey(Files.readAllBytes(dir.resolve(stem + ".pub.pem")));
            if (!"ECDSA".equals(pub.getAlgorithm())) {
                throw new IllegalStateException(stem + ": algorithm " + pub.getAlgorithm());
            }
            for (byte[] dk : DATA_KEYS) {
                for (int i = 0; i < 2; i++) {
                    byte[] w = seal(pub, dk);
                    for (String form : privateForms(dir, stem)) {
                        PrivateKey priv = loadPrivateKey(Files.readAllBytes(dir.resolve(form)));
                        if (!Arrays.equals(open(priv, w), dk)) {
                            throw new IllegalStateException(stem + ": BC does not open its own ciphertext with " + form);
                        }
                    }
                    lines.add(stem + " " + HEX.formatHex(dk) + " " + HEX.formatHex(w));
                }
            }
        }
        Files.write(out, lines);
        System.out.println("wrote " + lines.size() + " BouncyCastle ciphertexts to " + out);
    }

    static boolean unwrap(Path dir, Path in, Path out) throws Exception {
        List<String> results = new ArrayList<>();
        int ok = 0;
        int failed = 0;
        for (String line : Files.readAllLines(in)) {
            if (line.isBlank() || line.startsWith("#")) {
                continue;
            }
            String[] f = line.trim().split(" ");
            byte[] dk = HEX.parseHex(f[1]);
            byte[] w = HEX.parseHex(f[2]);
            for (String form : privateForms(dir, f[0])) {
                String status;
                try {
                    PrivateKey priv = loadPrivateKey(Files.readAllBytes(dir.resolve(form)));
                    status = Arrays.equals(open(priv, w), dk) ? "OK" : "FAIL data key differs";
                } catch (Exception e) {
                    status = "FAIL " + e;
                }
                if (status.equals("OK")) {
                    ok++;
                } else {
                    failed++;
                }
                results.add(f[0] + " " + form + " " + status);
            }
        }
        try (PrintWriter w = new PrintWriter(Files.newBufferedWriter(out))) {
            w.println("# BouncyCastle " + Security.getProvider("BC").getVersionStr()
                    + " opening pulsargo's ciphertexts: " + ok + " OK, " + failed + " failed");
            results.forEach(w::println);
        }
        System.out.println("BouncyCastle opened " + ok + " of " + (ok + failed) + " pulsargo ciphertexts");
        return failed == 0;
    }

    static List<String> stems(Path dir) throws IOException {
        try (Stream<Path> s = Files.list(dir)) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".pub.pem"))
                    .map(n -> n.substring(0, n.length() - ".pub.pem".length())).sorted().toList();
        }
    }

    static List<String> privateForms(Path dir, String stem) {
        return Stream.of(stem + ".priv.pem", stem + ".pkcs8.pem").filter(n -> Files.exists(dir.resolve(n))).toList();
    }

    /** Reads an optional EC PARAMETERS block (an OID or explicit parameters). */
    static X9ECParameters ecParameters(Object o) throws IOException {
        if (o instanceof ASN1ObjectIdentifier oid) {
            X9ECParameters p = ECNamedCurveTable.getByOID(oid);
            if (p == null) {
                throw new IOException("unknown curve " + oid);
            }
            return p;
        }
        return o instanceof X9ECParameters p ? p : null;
    }

    /** Loads a public key as MessageCryptoBc.loadPublicKey does. */
    static PublicKey loadPublicKey(byte[] pem) throws Exception {
        try (PEMParser r = new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
            Object o = r.readObject();
            X9ECParameters ecParam = ecParameters(o);
            if (ecParam != null) {
                o = r.readObject();
            }
            SubjectPublicKeyInfo info = o instanceof X509CertificateHolder c ? c.getSubjectPublicKeyInfo()
                    : (SubjectPublicKeyInfo) o;
            PublicKey k = new JcaPEMKeyConverter().getPublicKey(info);
            if (ecParam != null && "ECDSA".equals(k.getAlgorithm())) {
                ECParameterSpec spec = new ECParameterSpec(ecParam.getCurve(), ecParam.getG(), ecParam.getN(),
                        ecParam.getH(), ecParam.getSeed());
                k = KeyFactory.getInstance("ECDSA", "BC").generatePublic(new ECPublicKeySpec(((ECPublicKey) k).getQ(), spec));
            }
            return k;
        }
    }

    /** Loads a private key as MessageCryptoBc.loadPrivateKey does. */
    static PrivateKey loadPrivateKey(byte[] pem) throws Exception {
        try (PEMParser r = new PEMParser(new StringReader(new String(pem, StandardCharsets.US_ASCII)))) {
            Object o = r.readObject();
            X9ECParameters ecParam = ecParameters(o);
            if (ecParam != null) {
                o = r.readObject();
            }
            PrivateKey k;
            if (o instanceof PEMKeyPair kp) {
                k = new JcaPEMKeyConverter().getPrivateKey(kp.getPrivateKeyInfo());
            } else if (o instanceof PrivateKeyInfo info) {
                k = new JcaPEMKeyConverter().getPrivateKey(info);
            } else {
                throw new IOException("not a private key: " + o);
            }
            if (ecParam != null && "ECDSA".equals(k.getAlgorithm())) {
                ECParameterSpec spec = new ECParameterSpec(ecParam.getCurve(), ecParam.getG(), ecParam.getN(),
                        ecParam.getH(), ecParam.getSeed());
                k = KeyFactory.getInstance("ECDSA", "BC").generatePrivate(new ECPrivateKeySpec(((ECPrivateKey) k).getD(), spec));
            }
            return k;
        }
    }
}

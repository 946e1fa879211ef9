import CCrypto

/// SHA-256 and HMAC-SHA256 from libgcrypt: Debian's security updates, and no
/// cost to the daemon (the web app is the same binary): libsystemd loads
/// libgcrypt into it already, where swift-crypto's static BoringSSL was 1.9 MB
/// of the package and OpenSSL's libcrypto 1.4 MB of the daemon's Pss.
public enum Digest {
    /// libgcrypt wants its version checked once before any other call.
    private static let ready = moonrunner_gcrypt_initialise() == 1

    /// SHA-256 of `bytes` (32 bytes).
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        precondition(ready, "libgcrypt did not initialise")
        var out = [UInt8](repeating: 0, count: 32)
        Array(bytes).withUnsafeBytes { input in
            out.withUnsafeMutableBytes { gcry_md_hash_buffer(Int32(GCRY_MD_SHA256.rawValue), $0.baseAddress, input.baseAddress, input.count) }
        }
        return out
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        precondition(ready, "libgcrypt did not initialise")
        var handle: gcry_mac_hd_t?
        // Fails only when libgcrypt cannot allocate; a made-up MAC would be a silent wrong answer.
        precondition(gcry_mac_open(&handle, Int32(GCRY_MAC_HMAC_SHA256.rawValue), 0, nil) == 0, "libgcrypt's HMAC-SHA256 failed")
        defer { gcry_mac_close(handle) }
        var out = [UInt8](repeating: 0, count: 32)
        var length = 32
        let ok = Array(key).withUnsafeBytes { k in
            Array(message).withUnsafeBytes { m in
                out.withUnsafeMutableBytes { o in
                    gcry_mac_setkey(handle, k.baseAddress, k.count) == 0 && gcry_mac_write(handle, m.baseAddress, m.count) == 0
                        && gcry_mac_read(handle, o.baseAddress, &length) == 0
                }
            }
        }
        precondition(ok && length == 32, "libgcrypt's HMAC-SHA256 failed")
        return out
    }

    /// `count` bytes from the kernel's random source (getrandom), for keys and tokens.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var rng = SystemRandomNumberGenerator()
        return (0..<count).map { _ in UInt8.random(in: .min ... .max, using: &rng) }
    }

    /// Lower-case hex, two digits a byte.
    public static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var s = [UInt8]()
        for b in bytes { s.append(digits[Int(b >> 4)]); s.append(digits[Int(b & 15)]) }
        return String(decoding: s, as: UTF8.self)
    }
}

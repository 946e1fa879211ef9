import CCrypto

/// SHA-256 and HMAC-SHA256 from the system's libcrypto (OpenSSL 3, Debian's
/// security updates), not a second static copy of BoringSSL in the binary
/// (swift-crypto's: 1.1 MB of the package for three hashes).
public enum Digest {
    /// SHA-256 of `bytes` (32 bytes).
    public static func sha256(_ bytes: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length: UInt32 = 0
        let ok = Array(bytes).withUnsafeBytes { input in
            out.withUnsafeMutableBufferPointer { EVP_Digest(input.baseAddress, input.count, $0.baseAddress, &length, EVP_sha256(), nil) }
        }
        // EVP_Digest fails only when libcrypto cannot allocate; a zero digest would be a silent wrong answer.
        precondition(ok == 1 && length == 32, "libcrypto's SHA-256 failed")
        return out
    }

    /// HMAC-SHA256 of `message` under `key` (32 bytes).
    public static func hmacSHA256(key: some Collection<UInt8>, message: some Collection<UInt8>) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: 32)
        var length = 0
        let result = Array(key).withUnsafeBytes { k in
            Array(message).withUnsafeBytes { m in
                out.withUnsafeMutableBufferPointer {
                    EVP_Q_mac(nil, "HMAC", nil, "SHA256", nil, k.baseAddress, k.count, m.baseAddress, m.count, $0.baseAddress, 32, &length)
                }
            }
        }
        precondition(result != nil && length == 32, "libcrypto's HMAC-SHA256 failed")
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

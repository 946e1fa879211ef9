import Foundation

/// One-time pairing codes: `moonrunner web pair` asks for one, the phone
/// trades it for a device token. A code works once and for `lifetime`
/// seconds (10 minutes by default); only its SHA-256 is kept, compared in
/// constant time. Ten symbols of Crockford's base32 are 50 bits: with the
/// per-address back-off (`PairingThrottle`) nobody guesses one in ten
/// minutes. Time comes in from outside.
public struct PairingCodes: Sendable {
    public let lifetime: Double
    private var pending: [(digest: [UInt8], expires: Double)] = []
    /// Codes waiting at once at most (an admin who asks again and again).
    static let maxPending = 8
    /// Crockford's base32: no I, L, O, U, so what a person types back is unambiguous.
    static let alphabet = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ")
    static let length = 10

    public init(lifetime: Double = 600) {
        self.lifetime = lifetime
    }

    /// A new code, shown as `K7QM-2XPA-9F` (the dashes are optional when typed).
    public mutating func issue<R: RandomNumberGenerator>(at now: Double, using rng: inout R) -> String {
        let code = String((0..<Self.length).map { _ in Self.alphabet[Int(rng.next(upperBound: UInt8(32)))] })
        pending.removeAll { $0.expires <= now }
        if pending.count >= Self.maxPending { pending.removeFirst() }
        pending.append((Digest.sha256(Array(code.utf8)), now + lifetime))
        return Self.display(code)
    }

    /// True, once, for a code issued less than `lifetime` ago; the code is then spent.
    public mutating func redeem(_ typed: String, at now: Double) -> Bool {
        pending.removeAll { $0.expires <= now }
        guard let code = Self.normalise(typed) else { return false }
        let digest = Digest.sha256(Array(code.utf8))
        var found: Int?
        for (i, p) in pending.enumerated() where Self.equal(p.digest, digest) { found = i }
        guard let i = found else { return false }
        pending.remove(at: i)
        return true
    }

    /// Codes that still work.
    public func outstanding(at now: Double) -> Int { pending.filter { $0.expires > now }.count }

    /// What a person typed, as the code: dashes and spaces dropped, upper case,
    /// O read as 0 and I, L as 1; nil when it cannot be a code.
    static func normalise(_ typed: String) -> String? {
        var out: [Character] = []
        for c in typed.uppercased() where c != "-" && c != " " {
            let mapped: Character = c == "O" ? "0" : (c == "I" || c == "L") ? "1" : c
            guard alphabet.contains(mapped) else { return nil }
            out.append(mapped)
        }
        return out.count == length ? String(out) : nil
    }

    /// `K7QM2XPA9F` as `K7QM-2XPA-9F`.
    static func display(_ code: String) -> String {
        let c = Array(code)
        return String(c[0..<4]) + "-" + String(c[4..<8]) + "-" + String(c[8...])
    }

    private static func equal(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var diff: UInt8 = 0
        for (x, y) in zip(a, b) { diff |= x ^ y }
        return diff == 0
    }
}

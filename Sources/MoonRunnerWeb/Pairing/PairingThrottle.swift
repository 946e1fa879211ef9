/// Back-off for wrong pairing codes, per address: after the n-th wrong code
/// from an address, the next try from it waits 2^(n−1) s (1, 2, 4, … up to
/// 5 minutes); a right code forgets the address. Only pairing attempts
/// consult it, so a paired phone is never locked out, and one address's
/// guesses never slow another's. At most `capacity` addresses are
/// remembered (the oldest back-off is dropped), so a flood of addresses
/// costs bounded memory. Time comes in from outside.
public struct PairingThrottle: Sendable {
    public static let longestWait = 300.0
    public let capacity: Int
    private var entries: [String: (failures: Int, until: Double)] = [:]

    public init(capacity: Int = 4096) {
        self.capacity = capacity
    }

    /// Seconds before `address` may try again; 0 when it may now.
    public func wait(for address: String, at now: Double) -> Double {
        guard let e = entries[address] else { return 0 }
        return max(0, e.until - now)
    }

    /// A wrong code from `address`.
    public mutating func failed(_ address: String, at now: Double) {
        let failures = (entries[address]?.failures ?? 0) + 1
        let delay = min(Self.longestWait, Double(1 << min(failures - 1, 20)))
        if entries[address] == nil, entries.count >= capacity {
            // Forget back-offs that ended long ago first, else the one that ends soonest.
            entries = entries.filter { $0.value.until + Self.longestWait > now }
            if entries.count >= capacity, let soonest = entries.min(by: { $0.value.until < $1.value.until }) {
                entries[soonest.key] = nil
            }
        }
        entries[address] = (failures, now + delay)
    }

    /// A right code from `address`: its count starts again.
    public mutating func succeeded(_ address: String) {
        entries[address] = nil
    }

    public var remembered: Int { entries.count }
}

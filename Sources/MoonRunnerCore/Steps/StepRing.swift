/// The last sixteen values (step instants or their sizes), oldest first, in
/// inline fixed-size storage so that holding them never allocates. Sixteen
/// covers a bout's start plus the gap before it that a bridge looks across.
struct StepRing: Sendable {
    static let capacity = 16
    private var items: (SIMD8<Double>, SIMD8<Double>) = (.zero, .zero)
    private var start = 0
    private(set) var count = 0

    /// Appends `value`, dropping the oldest when full.
    mutating func append(_ value: Double) {
        if count == Self.capacity {
            start = (start + 1) & (Self.capacity - 1)
            count -= 1
        }
        let slot = (start + count) & (Self.capacity - 1)
        withUnsafeMutableBytes(of: &items) { raw in
            raw.storeBytes(of: value, toByteOffset: slot * MemoryLayout<Double>.stride, as: Double.self)
        }
        count += 1
    }

    mutating func removeAll() {
        count = 0
        start = 0
    }

    /// The `i`-th oldest value; `i` must be below `count`.
    subscript(i: Int) -> Double {
        let slot = (start + i) & (Self.capacity - 1)
        return withUnsafeBytes(of: items) { raw in
            raw.load(fromByteOffset: slot * MemoryLayout<Double>.stride, as: Double.self)
        }
    }
}

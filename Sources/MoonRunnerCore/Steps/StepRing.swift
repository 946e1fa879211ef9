/// The last eight values (step instants or their sizes), oldest first; a
/// fixed-size tuple so that holding them never allocates.
struct StepRing: Sendable {
    static let capacity = 8
    private var items: (Double, Double, Double, Double, Double, Double, Double, Double) = (0, 0, 0, 0, 0, 0, 0, 0)
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

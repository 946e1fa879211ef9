import Glibc

/// A second-order IIR section (transposed direct form II), designed for the
/// sample rate it runs at so that filters stay rate-independent.
public struct Biquad: Sendable {
    private var b0 = 1.0, b1 = 0.0, b2 = 0.0, a1 = 0.0, a2 = 0.0
    private var z1 = 0.0, z2 = 0.0

    public init() {}

    /// Butterworth (Q = 1/√2) low-pass at `cutoff` Hz for sample rate `fs` Hz.
    public static func lowPass(cutoff: Double, fs: Double, q: Double = 0.5.squareRoot()) -> Biquad {
        let w = 2 * Double.pi * min(cutoff, fs * 0.45) / fs
        let alpha = sin(w) / (2 * q), c = cos(w)
        var f = Biquad()
        let a0 = 1 + alpha
        f.b0 = (1 - c) / 2 / a0
        f.b1 = (1 - c) / a0
        f.b2 = (1 - c) / 2 / a0
        f.a1 = -2 * c / a0
        f.a2 = (1 - alpha) / a0
        return f
    }

    /// Butterworth (Q = 1/√2) high-pass at `cutoff` Hz for sample rate `fs` Hz.
    public static func highPass(cutoff: Double, fs: Double, q: Double = 0.5.squareRoot()) -> Biquad {
        let w = 2 * Double.pi * min(cutoff, fs * 0.45) / fs
        let alpha = sin(w) / (2 * q), c = cos(w)
        var f = Biquad()
        let a0 = 1 + alpha
        f.b0 = (1 + c) / 2 / a0
        f.b1 = -(1 + c) / a0
        f.b2 = (1 + c) / 2 / a0
        f.a1 = -2 * c / a0
        f.a2 = (1 - alpha) / a0
        return f
    }

    /// Primes the state so that a constant input `x` passes without a transient.
    public mutating func settle(at x: Double) {
        let dc = (b0 + b1 + b2) / (1 + a1 + a2)
        let y = x * dc
        // Steady state of the transposed form: z2 = b2 x − a2 y, z1 = b1 x − a1 y + z2.
        z2 = b2 * x - a2 * y
        z1 = b1 * x - a1 * y + z2
    }

    @inline(__always)
    public mutating func step(_ x: Double) -> Double {
        let y = b0 * x + z1
        z1 = b1 * x - a1 * y + z2
        z2 = b2 * x - a2 * y
        return y
    }
}

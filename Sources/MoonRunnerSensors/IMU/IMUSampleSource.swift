import MoonRunnerCore

/// Something that yields IMU samples in time order: a trace file being streamed, or an
/// array in tests. The emulator pulls from it as its virtual sample clock advances.
public protocol IMUSampleSource {
    /// Whether the samples carry a rotation rate.
    var hasGyro: Bool { get }
    /// The next sample, or nil at the end.
    mutating func next() throws -> IMUSample?
}

extension IMUTraceReader: IMUSampleSource {}

/// An in-memory sample sequence.
public struct ArraySampleSource: IMUSampleSource, Sendable {
    public let samples: [IMUSample]
    private var index = 0

    public init(_ samples: [IMUSample]) {
        self.samples = samples
    }

    public var hasGyro: Bool { samples.first?.hasGyro ?? false }

    public mutating func next() -> IMUSample? {
        guard index < samples.count else { return nil }
        defer { index += 1 }
        return samples[index]
    }
}

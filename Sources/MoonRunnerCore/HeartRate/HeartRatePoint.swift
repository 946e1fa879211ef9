/// A point of the session's heart-rate series, as the engine emits it and the
/// store and the exports keep it (like `TrackPoint`): its `time` and its
/// heart rate (NaN while missing).
public struct HeartRatePoint: Sendable, Equatable {
    public var time: Double
    public var bpm: Double

    public init(time: Double, bpm: Double) {
        self.time = time
        self.bpm = bpm
    }
}

/// One R–R interval: when its notification arrived and its length in milliseconds.
public struct RRInterval: Sendable, Equatable {
    public var time: Double
    public var milliseconds: Double

    public init(time: Double, milliseconds: Double) {
        self.time = time
        self.milliseconds = milliseconds
    }
}

/// One thing to say (and perhaps a tone before it).
public struct Announcement: Sendable, Equatable {
    /// A short tone that says more quickly than a voice what happened.
    public enum Cue: String, Sendable, CaseIterable {
        case pause, resume
    }

    /// The sentence; empty when only the cue is wanted.
    public var text: String
    public var cue: Cue?
    /// What caused it: the EVENT's name, or `interval`.
    public var trigger: String
    /// When the daemon decided it, on the daemon's clock (`detected_at`, or the STATUS time).
    public var detectedAt: Double
    /// When the line that caused it arrived, on the announcer's monotonic clock:
    /// staleness is measured from here.
    public var receivedAt: Double

    public init(text: String, cue: Cue? = nil, trigger: String, detectedAt: Double, receivedAt: Double) {
        self.text = text
        self.cue = cue
        self.trigger = trigger
        self.detectedAt = detectedAt
        self.receivedAt = receivedAt
    }
}

/// The cue a `turn_ahead` or `turn_now` event says: its kind, where it lies
/// on the course, how far the wearer was from it, and its name.
public struct CueEvent: Sendable, Equatable, Codable {
    public var kind: CueKind
    /// The street or place, when the course file names one (null when not).
    @NullCoded public var name: String?
    /// Metres along the course where the cue lies.
    public var courseM: Double
    /// Metres from the wearer to it along the course when it was said.
    public var distanceM: Double
    /// Turns said with it ("turn left, then right").
    public var then: [CueKind]

    public init(kind: CueKind, name: String?, courseM: Double, distanceM: Double, then: [CueKind] = []) {
        self.kind = kind
        self.name = name
        self.courseM = courseM
        self.distanceM = distanceM
        self.then = then
    }

    public init(_ a: CueAnnouncement) {
        self.init(kind: a.cue.kind, name: a.cue.name, courseM: a.cue.courseM, distanceM: a.distance, then: a.cue.then)
    }

    private enum CodingKeys: String, CodingKey {
        case kind, name, courseM = "course_m", distanceM = "distance_m", then
    }
}

/// Turns "does the terrain model cover the track here?" into the session's
/// `terrain_lost` and `terrain_regained` moments, so that a runner learns
/// that a stretch's climb came from GPS and which tile would have answered.
///
/// The coverage must hold for `fixes` accepted positions in a row before it
/// counts as changed: a void of a posting or two, or a track grazing a
/// tile's edge, says nothing. A session that starts outside every tile says
/// so once its first positions agree; one that starts inside says nothing.
public struct TerrainWatch: Sendable, Equatable {
    /// Accepted positions in a row that make a change (3 s at 1 Hz).
    public static let fixes = 3
    /// What was last said (nil before anything this session).
    private var covered: Bool?
    private var streak = 0
    private var lastValue: Bool?

    public init() {}

    /// The event to record for one accepted position's reading, and its detail, if any.
    public mutating func update(_ reading: TerrainReading) -> (kind: SessionEventKind, detail: String?)? {
        let now: Bool
        let detail: String
        switch reading {
        case .elevation(_, _):
            now = true
            detail = ""
        case let .noTile(cell):
            now = false
            detail = "no tile \(cell)"
        case let .void(cell):
            now = false
            detail = "no elevation in \(cell)"
        }
        streak = now == lastValue ? streak + 1 : 1
        lastValue = now
        guard streak >= Self.fixes, now != covered else { return nil }
        let before = covered
        covered = now
        if now { return before == false ? (.terrainRegained, nil) : nil }
        return (.terrainLost, detail)
    }
}

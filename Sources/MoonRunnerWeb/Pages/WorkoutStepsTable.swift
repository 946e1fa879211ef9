import MoonRunnerCore
import MoonRunnerProtocol

/// The session page's table of a workout's steps: each step as run, its
/// target, distance, moving time, average pace (a ride's speed) and heart
/// rate, and the share of it spent inside the target. Pure: the steps
/// (`WorkoutStepSummary`, from the session's events and track) and the
/// phone's words in.
enum WorkoutStepsTable {
    static func header(_ p: Phrases, pace: String) -> [String] {
        [p[.workout], p[.target], p[.distance], p[.moving], pace, p[.heartRate], p[.inTarget]]
    }

    static func rows(_ steps: [WorkoutStepSummary], count: Int, _ shown: ActivityProfile, _ p: Phrases,
                     _ units: UnitSystem) -> [SessionPage.Row] {
        steps.map { s in
            let inTarget: String = s.timeInTarget.map { t in
                s.moving > 0 ? "\(Int((100 * min(1, t / s.moving)).rounded())) %" : "–"
            } ?? "–"
            return SessionPage.Row(cells: [
                WorkoutView.stepText(s.step, of: count, p) + (s.completed ? "" : " …"),
                s.step.target.map { WorkoutView.bandText($0, units) } ?? "–",
                Formatting.distance(s.distance, units),
                Formatting.duration(s.moving),
                s.averageSpeed.map { FigureText.rateNumber(speed: $0, shown, units) } ?? "–",
                s.averageHeartRate.map { "\(Int($0.rounded())) bpm" } ?? "–",
                inTarget,
            ])
        }
    }

    /// The steps of a stored session: from its events (EVENT.workout) and its track's points and heart rate.
    static func steps(_ reply: SessionReply, points: [TrackPoint]) -> [WorkoutStepSummary] {
        let events = reply.events.compactMap { e -> SessionEvent? in
            guard let kind = SessionEventKind(rawValue: e.event), e.workout != nil else { return nil }
            return SessionEvent(kind: kind, time: e.time, detectedAt: e.detectedAt, cause: e.cause,
                                state: e.state, workout: e.workout)
        }
        guard !events.isEmpty else { return [] }
        let beats = points.filter { $0.heartRate.isFinite }.map { HeartRatePoint(time: $0.time, bpm: $0.heartRate) }
        let end = reply.session.endTime ?? points.last?.time ?? reply.session.startTime
        return WorkoutStepSummary.steps(events: events, points: points, heartRate: beats, pauses: reply.pauses, end: end)
    }
}

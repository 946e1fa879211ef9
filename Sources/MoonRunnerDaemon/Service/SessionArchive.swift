import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerStore

/// The session being recorded, whose engine is newer than its stored row.
struct LiveSession: Sendable {
    var id: Int64
    var snapshot: SessionSnapshot
    var state: SessionState
}

/// Recorded sessions as they leave the daemon (`?SESSIONS`, `?SESSION`,
/// `?DELETE`, and the session `?EXPORT` writes): read from the store, the live
/// one's figures taken from the engine as the session service has it at the
/// moment of asking, every time moved to UTC. The reads run in the caller's
/// task, never on the session actor; a failure of the store is told to the
/// service, whose `STATUS` then shows it.
struct SessionArchive: Sendable {
    let service: SessionService
    let store: SessionStore
    let calories: CalorieModel
    let heartRateProfile: HeartRateProfile
    /// The state folder, named in a failure's message.
    let stateDir: String

    init(service: SessionService, store: SessionStore, config: DaemonConfig) {
        self.service = service
        self.store = store
        calories = CalorieModel(bodyMass: config.bodyMassKg)
        heartRateProfile = config.engineConfig.heartRate
        stateDir = config.stateDir
    }

    /// `?SESSIONS`: a page of sessions, newest first.
    func sessions(limit: Int, before: Int64?) async throws(RequestError) -> SessionsReply {
        let live = await service.liveSession
        let list = try await reading { try await store.sessions(limit: limit, before: before) }
        return SessionsReply(sessions: list.map { Self.info($0, live: live) })
    }

    /// `?SESSION`: one session in full.
    func session(_ sid: Int64) async throws(RequestError) -> SessionReply {
        let live = await service.liveSession
        let found = try await reading { () async throws -> (StoredSession, ExportSession)? in
            guard let s = try await store.session(id: sid) else { return nil }
            return (s, try await export(s, live: live))
        }
        guard let (s, detail) = found else { throw RequestError(.notFound, "no session \(sid); ?SESSIONS; lists them") }
        return await reply(for: s, detail: detail, live: live)
    }

    /// `?DELETE`: a finished session and everything stored with it.
    func delete(_ sid: Int64) async throws(RequestError) -> DeletedReply {
        guard sid != (await service.liveSession)?.id else {
            throw RequestError(.invalidState, "session \(sid) is being recorded; ?STOP; it first")
        }
        guard try await reading({ try await store.delete(id: sid) }) else {
            throw RequestError(.notFound, "no session \(sid)")
        }
        return DeletedReply(session: sid)
    }

    /// Everything stored about a session, in the form the exporters and the
    /// statistics take (what `?EXPORT` writes).
    func export(id sid: Int64) async throws(RequestError) -> ExportSession {
        let live = await service.liveSession
        let found: ExportSession?
        do {
            if let s = try await store.session(id: sid) {
                found = try await export(s, live: live)
            } else {
                found = nil
            }
        } catch {
            await service.storeFailed(error)
            throw RequestError(.storeError, "the store failed: \(error)")
        }
        guard let found else { throw RequestError(.notFound, "no session \(sid); ?SESSIONS; lists them") }
        return found
    }

    /// Runs a read or write of the store; its failure is the store's (the
    /// service is told) and the client is told what to check.
    private func reading<T>(_ body: () async throws -> T) async throws(RequestError) -> T {
        do {
            return try await body()
        } catch {
            await service.storeFailed(error)
            throw RequestError(.storeError, "the store failed: \(error); check free space and permissions of \(stateDir)")
        }
    }

    /// Everything stored about a session, in the form the exporters and the
    /// statistics take.
    func export(_ s: StoredSession, live: LiveSession?) async throws -> ExportSession {
        let snap = Self.snapshot(of: s, live: live)
        let offset = snap.utcOffset
        let points = try await store.points(session: s.id).shifted(by: offset)
        let events = try await store.events(session: s.id).shifted(by: offset)
        let steps = try await store.stepSeconds(session: s.id).shifted(by: offset)
        let heartRate = try await store.heartRate(session: s.id).shifted(by: offset)
        let rr = try await store.rrIntervals(session: s.id).shifted(by: offset)
        return ExportSession(id: s.id, activity: s.activity, startTime: s.startTime + (offset ?? 0),
                             endTime: s.endTime.map { $0 + (offset ?? 0) },
                             stats: snap.stats, points: points, events: events, pauses: snap.pauses,
                             stepSeconds: steps, calorieModel: calories, course: snap.navigation?.courseName,
                             coursePoints: try await coursePoints(snap.navigation?.courseID),
                             heartRate: heartRate, rrIntervals: rr, heartRateProfile: heartRateProfile,
                             workout: snap.workout?.workout)
    }

    /// The points the followed course's file named, placed on it; none when
    /// it named none, or the course has left the library since.
    private func coursePoints(_ courseID: Int64?) async throws -> [CourseCue] {
        guard let courseID, let (_, course) = try await CourseStore(store).load(id: courseID), !course.marks.isEmpty,
              let geometry = try? CourseGeometry(course.points) else { return [] }
        return CourseCues.place(course.marks, on: geometry)
    }

    /// `?SESSION`'s reply for a session and what `export` read of it.
    private func reply(for s: StoredSession, detail: ExportSession, live: LiveSession?) async -> SessionReply {
        let events = detail.events.map { EventReply(session: s.id, event: $0) }
        let snap = Self.snapshot(of: s, live: live)
        // Splits and laps walk the whole track: off the session actor.
        let figures = await Task.detached { Self.figures(detail) }.value
        let course = snap.navigation.flatMap { n in
            n.courseName.map { SessionCourseReply(id: n.courseID, name: $0, finished: n.finished) }
        }
        return SessionReply(session: Self.info(s, live: live), stats: snap.stats, pauses: snap.pauses,
                            events: events, points: detail.points.count, figures: figures, course: course)
    }

    /// A session's snapshot (the engine's for the live one) with its times in UTC.
    static func snapshot(of s: StoredSession, live: LiveSession?) -> SessionSnapshot {
        let snap = current(s, live: live)?.snapshot ?? s.snapshot
        return snap.shifted(by: snap.utcOffset)
    }

    /// A session's line in `?SESSIONS` (and the head of `?SESSION`), in UTC.
    static func info(_ s: StoredSession, live: LiveSession?) -> SessionInfo {
        let recording = current(s, live: live)
        let snap = recording?.snapshot ?? s.snapshot
        let offset = snap.utcOffset ?? 0
        return SessionInfo(id: s.id, activity: s.activity.rawValue, state: recording?.state ?? s.state,
                           startTime: s.startTime + offset, endTime: s.endTime.map { $0 + offset }, distanceM: snap.stats.distance,
                           elapsedS: snap.stats.elapsed, movingS: snap.stats.moving, steps: snap.stats.steps,
                           interrupted: s.interrupted)
    }

    /// The live session when `s` is it.
    private static func current(_ s: StoredSession, live: LiveSession?) -> LiveSession? {
        live?.id == s.id ? live : nil
    }

    /// Splits per km and mile (per 5 on a ride: the activity's), laps, calories and best pace of a session.
    static func figures(_ s: ExportSession) -> SessionFigures {
        let hr = s.heartRateSummary()
        let each = s.activity.profile.splitUnits
        return SessionFigures(caloriesKcal: s.calories,
                              splitsKm: Splits.compute(points: s.points, pauses: s.pauses, units: .metric,
                                                       start: s.startTime, end: s.endTime, unitsPerSplit: each),
                              splitsMi: Splits.compute(points: s.points, pauses: s.pauses, units: .imperial,
                                                       start: s.startTime, end: s.endTime, unitsPerSplit: each),
                              laps: s.laps, caloriesMethod: hr.calorieMethod,
                              heartRate: s.hasHeartRate ? HeartRateFigures(hr, rrIntervals: s.rrIntervals.count) : nil)
    }
}

import Foundation
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore

/// The workout library behind `?WORKOUTS`, `?WORKOUT`, `?WORKOUT_DELETE`
/// and uploads: reads workouts (a FIT workout file or the text form,
/// MoonRunnerExport's `WorkoutFile`), checks that they run with the
/// wearer's heart-rate profile before anything is stored, and hands a stored
/// one to a session as its plan. Parsing runs in the caller's task, never
/// on the session actor.
public final class WorkoutLibrary: Sendable {
    private let store: WorkoutStore
    private let clock: EngineClock
    private let profile: HeartRateProfile

    public init(store: SessionStore, clock: EngineClock, profile: HeartRateProfile) {
        self.store = WorkoutStore(store)
        self.clock = clock
        self.profile = profile
    }

    /// `?WORKOUTS`: every workout in the library.
    public func workouts() async throws(RequestError) -> WorkoutsReply {
        WorkoutsReply(workouts: try await reading { try await store.workouts() }.map { info($0) })
    }

    /// `?WORKOUT`: one workout with its steps as the wearer runs them.
    public func workout(_ wid: Int64) async throws(RequestError) -> WorkoutReply {
        guard let w = try await reading({ try await store.workout(id: wid) }) else { throw notFound(wid) }
        return WorkoutReply(workout: info(w, plan: true))
    }

    /// `?WORKOUT_DELETE`: a workout leaves the library (sessions that ran it keep their steps).
    public func delete(_ wid: Int64) async throws(RequestError) -> WorkoutDeletedReply {
        guard try await reading({ try await store.delete(id: wid) }) else { throw notFound(wid) }
        return WorkoutDeletedReply(workout: wid)
    }

    /// Reads an uploaded file and stores it. A file that is not a workout, or
    /// a workout that cannot be run, is `bad_workout` and nothing is stored.
    func add(_ data: Data, header: UploadHeader) async throws(RequestError) -> WorkoutInfo {
        guard data.count <= UploadKind.workoutMaxBytes else {
            throw RequestError(.tooLarge, "the file has \(data.count) bytes; workouts of at most "
                + "\(UploadKind.workoutMaxBytes / 1024) KiB are accepted")
        }
        let workout: Workout, plan: WorkoutPlan
        do {
            workout = try WorkoutFile.read(data, format: header.format.flatMap(WorkoutFileFormat.init(rawValue:)),
                                           name: header.name)
        } catch {
            throw RequestError(.badWorkout, "not a workout: \(error.message); nothing was stored")
        }
        do {
            plan = try WorkoutPlan(workout, heartRate: profile)
        } catch {
            throw RequestError(.badWorkout, "the workout cannot be run: \(error); nothing was stored")
        }
        let format = header.format ?? WorkoutFileFormat.sniff(data).rawValue
        do {
            let stored = try await store.add(workout, format: format, sourceBytes: data.count, steps: plan.steps.count,
                                             at: clock.now())
            return info(stored, plan: true)
        } catch {
            throw RequestError(.storeError, "the store failed: \(error); the workout was not stored")
        }
    }

    /// A stored workout, resolved for the wearer, ready to run.
    public func load(id: Int64) async throws(RequestError) -> WorkoutPlan {
        guard let found = try await reading({ try await store.workout(id: id) }) else { throw notFound(id) }
        do {
            return try WorkoutPlan(found.workout, heartRate: profile)
        } catch {
            throw RequestError(.badWorkout, "workout \(id) cannot be run: \(error)")
        }
    }

    private func notFound(_ wid: Int64) -> RequestError {
        RequestError(.notFound, "no workout \(wid); ?WORKOUTS; lists them")
    }

    /// Runs a read or write of the library; its failure is a `store_error`.
    private func reading<T>(_ body: () async throws -> T) async throws(RequestError) -> T {
        do {
            return try await body()
        } catch {
            throw RequestError(.storeError, "the store failed: \(error)")
        }
    }

    func info(_ w: StoredWorkout, plan: Bool = false) -> WorkoutInfo {
        WorkoutInfo(id: w.id, name: w.workout.name, sport: w.workout.sport?.rawValue, format: w.format,
                    createdAt: w.createdAt, steps: w.steps, text: WorkoutText.format(w.workout),
                    plan: plan ? (try? WorkoutPlan(w.workout, heartRate: profile))?.steps : nil)
    }
}

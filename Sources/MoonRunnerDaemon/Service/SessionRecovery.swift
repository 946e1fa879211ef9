import Logging
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerStore

/// What start-up asks of the store beside the session it resumes: closing a
/// session a crash or power cut left open too long ago, the finished sessions
/// the badges are judged on, and the course a resumed session followed.
struct SessionRecovery: Sendable {
    let store: SessionStore
    let library: CourseLibrary
    let logger: Logger

    /// Closes an open session that cannot be resumed, keeping what it had
    /// committed; `age` is how long ago that was (s).
    func close(_ s: StoredSession, age: Double) async throws {
        try await store.closeInterrupted(id: s.id)
        logger.notice("closed interrupted session \(s.id) (left open \(Int(age)) s ago)")
    }

    /// The finished sessions the badges are judged on.
    func badgeSessions() async throws -> [BadgeSessionSummary] {
        try await store.sessions(limit: 1_000_000).filter { $0.state == .stopped }.map(BadgeSessionSummary.init)
    }

    /// The course a snapshot followed, from the library; nil (following
    /// ends, logged) when it was deleted meanwhile.
    func followedCourse(of snapshot: SessionSnapshot) async -> FollowedCourse? {
        guard let cid = snapshot.navigation?.courseID else { return nil }
        do throws(RequestError) {
            return try await library.load(id: cid)
        } catch {
            logger.warning("the resumed session followed course \(cid): \(error.message); it is no longer followed")
            return nil
        }
    }
}

import MoonRunnerCore
import MoonRunnerProtocol
import Testing
@testable import MoonRunnerDaemon

@Suite("?START while a session is open")
struct StartRefusalTests {
    @Test("a change of activity in the middle of a session is refused, saying the session keeps its own and how to start anew")
    func activityChange() throws {
        let refusal = try #require(StartRefusal(asked: .ride, current: .run, state: .recording, starting: false))
        #expect(refusal.message == "a run is already recording, and a session keeps the activity it started as: "
            + "?STOP; it, then ?START={\"activity\":\"ride\"}; anew")
        let same = try #require(StartRefusal(asked: .hike, current: .hike, state: .autoPaused, starting: false))
        #expect(same.message == "a hike is already autoPaused; ?STOP; it first")
    }

    @Test("idle or stopped, a session of any activity may start; one being started refuses a second")
    func allowed() {
        for state in [SessionState.idle, .stopped] {
            #expect(StartRefusal(asked: .ride, current: .run, state: state, starting: false) == nil)
        }
        #expect(StartRefusal(asked: .run, current: .run, state: .idle, starting: true)?.message
            == "a session is being started; ?STATUS; says when")
    }

    @Test("through the service: ?START of a ride while a run is recording is invalid_state, and the run goes on as a run")
    func service() async throws {
        let (service, _) = try SessionServiceTests.service()
        let started = try await service.start(.run, course: nil, destination: nil)
        do throws(RequestError) {
            _ = try await service.start(.ride, course: nil, destination: nil)
            Issue.record("a ride was started over a run")
        } catch {
            #expect(error.code == .invalidState && error.message.contains("?START={\"activity\":\"ride\"}; anew"))
        }
        let now = await service.status()
        #expect(now.activity == "run" && now.state == .recording && now.session == started.session)
    }
}

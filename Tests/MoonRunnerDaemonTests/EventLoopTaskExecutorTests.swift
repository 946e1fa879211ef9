import MoonRunnerSystem
import NIOCore
import NIOPosix
import Testing
@testable import MoonRunnerDaemon

/// The daemon's tasks on its event loop, and the doorbell that times their
/// waits with the loop's timers instead of `Task.sleep`.
/// The waits are long (10 minutes) against loose bounds: a loaded test run
/// resumes its tasks late, but a wait that did not end would take the whole time.
@Suite("Event loop executor and doorbell", .timeLimit(.minutes(30)))
struct EventLoopTaskExecutorTests {
    @Test("a task that prefers the daemon's executor runs on its loop, child tasks and actors too")
    func runsOnTheLoop() async {
        let executor = EventLoopTaskExecutor.daemon
        let counter = Counter()
        let onLoop = await withTaskExecutorPreference(executor) { () async -> [Bool] in
            var seen = [executor.loop.inEventLoop]
            seen.append(await counter.bumpOnLoop(executor.loop))
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { executor.loop.inEventLoop }
                for await s in group { seen.append(s) }
            }
            return seen
        }
        #expect(onLoop == [true, true, true])
        #expect(!executor.loop.inEventLoop, "without the preference the test goes back where it was")
    }

    @Test("a wait ends when rung, and a ring before the wait ends the next one at once")
    func rung() async {
        let bell = Doorbell()
        let start = MonotonicClock.now()
        Task { bell.ring() }
        await bell.wait(upTo: 600)
        bell.ring()
        await bell.wait(upTo: 600)
        #expect(MonotonicClock.now() - start < 300)
    }

    @Test("a wait nobody rings ends at its time, not before")
    func timesOut() async {
        let start = MonotonicClock.now()
        await Doorbell().wait(upTo: 0.2)
        let took = MonotonicClock.now() - start
        #expect(took >= 0.19, "took \(took) s")
    }

    @Test("cancelling the waiting task ends its wait")
    func cancelled() async {
        let start = MonotonicClock.now()
        let waiting = Task { await Doorbell().wait(upTo: 600) }
        waiting.cancel()
        await waiting.value
        #expect(MonotonicClock.now() - start < 300)
    }
}

private actor Counter {
    var count = 0
    func bumpOnLoop(_ loop: any EventLoop) -> Bool {
        count += 1
        return loop.inEventLoop
    }
}

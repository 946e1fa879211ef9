import Testing
@testable import MoonRunnerUpload

@Suite("Upload: the waits between attempts")
struct RetryPolicyTests {
    @Test("the wait after failures doubles from 5 s to at most 15 minutes; a poll waits 2 s doubling to a minute")
    func waits() {
        let p = RetryPolicy()
        #expect((1...10).map { p.wait(afterAttempts: $0) } == [5, 10, 20, 40, 80, 160, 320, 640, 900, 900])
        #expect((0...6).map { RetryPolicy.poll(afterPolls: $0) } == [2, 4, 8, 16, 32, 60, 60])
    }

    @Test("the configured first and longest waits are kept; zero and negative counts wait the first")
    func configured() {
        let p = RetryPolicy(first: 2, longest: 30)
        #expect([0, -3, 1, 2, 3, 4, 5].map { p.wait(afterAttempts: $0) } == [2, 2, 2, 4, 8, 16, 30])
    }

    @Test("a job failed a thousand times still waits the longest, not an overflow")
    func manyAttempts() {
        #expect(RetryPolicy().wait(afterAttempts: 1000) == 900)
        #expect(RetryPolicy.poll(afterPolls: 1000) == 60)
        #expect(RetryPolicy.poll(afterPolls: -1) == 2)
    }
}

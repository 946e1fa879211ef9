import Testing
@testable import MoonRunnerSensors

/// The calls the heart-rate link has asked and awaits.
@Suite("BlueZ calls")
struct BlueZCallsTests {
    @Test("calls go out in the order asked, each answered once, and tokens keep growing after the bus goes")
    func tokens() {
        var calls = BlueZCalls()
        calls.ask(.getManagedObjects, "/", attempt: 0)
        calls.ask(.connect, "/dev", attempt: 0)
        let sent = calls.take()
        #expect(sent.map(\.kind) == [.getManagedObjects, .connect])
        #expect(sent.map(\.token) == [1, 2])
        let again = calls.take()
        #expect(again.isEmpty)
        let answers = [calls.answer(1)?.kind, calls.answer(1)?.kind]
        #expect(answers == [.getManagedObjects, nil])
        calls.abandon()
        #expect(calls.count == 0)
        calls.ask(.getManagedObjects, "/", attempt: 1)
        let later = calls.take()
        #expect(later.map(\.token) == [3])
    }

    @Test("a pending call is found by kind, and by path and attempt when they are given")
    func asking() {
        var calls = BlueZCalls()
        calls.ask(.startNotify, "/char", attempt: 2)
        #expect(calls.asking(.startNotify))
        #expect(calls.asking(.startNotify, on: "/char", in: 2))
        #expect(!calls.asking(.startNotify, in: 3))
        #expect(!calls.asking(.startNotify, on: "/other"))
        calls.settleNotify(on: "/char")
        #expect(!calls.asking(.startNotify))
    }
}

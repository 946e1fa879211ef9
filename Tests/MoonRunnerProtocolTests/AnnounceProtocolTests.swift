import Foundation
import MoonRunnerCore
import Testing
@testable import MoonRunnerProtocol

@Suite("Protocol: the announcer's additions (1.1)")
struct AnnounceProtocolTests {
    @Test("?ANNOUNCE takes quiet (a bool, required) and changes state")
    func announceRequest() throws {
        let r = try RequestParser.parse("?ANNOUNCE={\"quiet\":true};")
        #expect(r.command == .announce(quiet: true))
        #expect(r.command.changesState)
        #expect(try RequestParser.parse(Request(command: .announce(quiet: false)).line).command == .announce(quiet: false))
        for bad in ["?ANNOUNCE;", "?ANNOUNCE={\"quiet\":1};", "?ANNOUNCE={\"quiet\":true,\"loud\":1};"] {
            #expect(throws: RequestError.self, "\(bad)") { try RequestParser.parse(bad) }
            do { _ = try RequestParser.parse(bad) } catch { #expect(error.code == .badParameter, "\(bad)") }
        }
    }

    @Test("STATUS carries quiet; a 1.0 STATUS without it still decodes")
    func statusQuiet() throws {
        let s = StatusReply(time: 1, state: .idle, session: nil, stats: nil,
                            gps: GPSStatus(health: .ok, grade: .best, fixes: 0, connects: 1),
                            imu: IMUStatus(health: .ok, samples: 0, rejected: 0, busErrors: 0, overflows: 0),
                            store: StoreStatus(health: .ok, pending: 0, lastError: nil), lastTransition: nil,
                            units: .metric, quiet: true)
        let line = ReplyEncoder.line(s)
        #expect(line.contains("\"quiet\":true"))
        #expect(try ReplyEncoder.decode(StatusReply.self, from: line).quiet == true)
        let old = line.replacingOccurrences(of: ",\"quiet\":true", with: "")
        #expect(!old.contains("quiet"))
        #expect(try ReplyEncoder.decode(StatusReply.self, from: old).quiet == nil)
    }

    @Test("a split EVENT carries the split's figures, other EVENTs split: null")
    func splitEvent() throws {
        let split = Split(number: 3, units: .metric, distance: 1000, cumulativeDistance: 3000, isPartial: false,
                          startTime: 100, endTime: 412, elapsed: 312, moving: 312, elevationChange: 2)
        let e = SessionEvent(kind: .split, time: 412, detectedAt: 412.4, cause: "distance", state: .recording, detail: "3")
        let line = ReplyEncoder.line(EventReply(session: 7, event: e, split: split))
        let back = try ReplyEncoder.decode(EventReply.self, from: line)
        #expect(back.event == "split" && back.detail == "3")
        #expect(back.split?.paceS == 312 && back.split?.number == 3 && back.split?.distanceM == 1000)
        let lap = ReplyEncoder.line(EventReply(session: 7, event: SessionEvent(kind: .lap, time: 1, detectedAt: 1, cause: "command",
                                                                              state: .recording, detail: "1")))
        #expect(lap.contains("\"split\":null"))
        #expect(try ReplyEncoder.decode(EventReply.self, from: lap).split == nil)
    }
}

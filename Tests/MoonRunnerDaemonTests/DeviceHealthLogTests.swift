import Glibc
import Logging
import Testing
@testable import MoonRunnerDaemon

@Suite("What the journal says of the devices")
struct DeviceHealthLogTests {
    @Test("a device that starts well says once what was found, and nothing while it stays well")
    func quietWhileWell() {
        var log = DeviceHealthLog()
        let found = "MPU-6050 at 0x68 on /dev/i2c-1"
        #expect(log.decide("imu", health: "ok", fault: nil, found: found, at: 1)
                == .init(level: .notice, message: "imu: ok (MPU-6050 at 0x68 on /dev/i2c-1)"))
        #expect((2...100).compactMap { log.decide("imu", health: "ok", fault: nil, found: found, at: Double($0)) }.isEmpty)
    }

    @Test("losing a device is a warning with its fault, and its return a notice")
    func lostAndBack() {
        var log = DeviceHealthLog()
        _ = log.decide("imu", health: "ok", fault: nil, at: 0)
        #expect(log.decide("imu", health: "lost", fault: "cannot open /dev/i2c-1: Operation not permitted", at: 5)
                == .init(level: .warning, message: "imu: lost: cannot open /dev/i2c-1: Operation not permitted"))
        #expect(log.decide("imu", health: "ok", fault: nil, found: "MPU-6050 at 0x68 on /dev/i2c-1", at: 9)
                == .init(level: .notice, message: "imu: ok (MPU-6050 at 0x68 on /dev/i2c-1)"))
    }

    @Test("a device that is never configured, or still connecting, says nothing at start")
    func silentStart() {
        var log = DeviceHealthLog()
        #expect(log.decide("barometer", health: "none", fault: nil, at: 0) == nil)
        #expect(log.decide("gps", health: "connecting", fault: nil, at: 0) == nil)
    }

    @Test("a new fault under the same health is logged at most once a minute (faults carry changing counts)")
    func faultsRateLimited() {
        var log = DeviceHealthLog()
        let lines = (0..<180).compactMap {
            log.decide("heart-rate strap", health: "degraded", fault: "no notification for \($0 % 7) s", at: Double($0))
        }
        // The change of health at 0, then one line per minute of faults.
        #expect(lines.count == 3)
        #expect(lines.first?.level == .warning)
    }

    @Test("the first fault of a health already logged is logged at once (it says why)")
    func firstFault() {
        var log = DeviceHealthLog()
        #expect(log.decide("heart-rate strap", health: "degraded", fault: nil, at: 0)
                == .init(level: .warning, message: "heart-rate strap: degraded"))
        #expect(log.decide("heart-rate strap", health: "degraded", fault: "BlueZ has no Bluetooth adapter", at: 1)
                == .init(level: .warning, message: "heart-rate strap: degraded: BlueZ has no Bluetooth adapter"))
    }

    @Test("the journal's priority of each level is syslog's (RFC 5424)")
    func priorities() {
        #expect([Logger.Level.critical, .error, .warning, .notice, .info, .debug, .trace]
                    .map(JournalLogHandler.priority) == [2, 3, 4, 5, 6, 7, 7])
    }

    @Test("standard error is the journal only when JOURNAL_STREAM names its device and inode")
    func journalStream() {
        var st = stat()
        #expect(fstat(STDERR_FILENO, &st) == 0)
        let saved = getenv("JOURNAL_STREAM").map { String(cString: $0) }
        defer {
            if let saved { setenv("JOURNAL_STREAM", saved, 1) } else { unsetenv("JOURNAL_STREAM") }
        }
        setenv("JOURNAL_STREAM", "\(st.st_dev):\(st.st_ino)", 1)
        #expect(JournalLogHandler.isJournal(STDERR_FILENO))
        setenv("JOURNAL_STREAM", "\(st.st_dev):\(st.st_ino &+ 1)", 1)
        #expect(!JournalLogHandler.isJournal(STDERR_FILENO))
        unsetenv("JOURNAL_STREAM")
        #expect(!JournalLogHandler.isJournal(STDERR_FILENO))
    }
}

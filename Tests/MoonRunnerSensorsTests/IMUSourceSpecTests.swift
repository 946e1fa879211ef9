import Foundation
import Testing
@testable import MoonRunnerSensors

@Suite("IMU source spec and Linux bus")
struct IMUSourceSpecTests {
    @Test func parsesI2CSpecs() throws {
        #expect(try IMUSourceSpec.parse("i2c:/dev/i2c-1@0x68") == .i2c(path: "/dev/i2c-1", address: 0x68))
        #expect(try IMUSourceSpec.parse("i2c:/dev/i2c-1@0x69") == .i2c(path: "/dev/i2c-1", address: 0x69))
        #expect(try IMUSourceSpec.parse("i2c:/dev/i2c-3") == .i2c(path: "/dev/i2c-3", address: 0x68))
        #expect(try IMUSourceSpec.parse(" i2c:/dev/i2c-1@105 ") == .i2c(path: "/dev/i2c-1", address: 0x69))
    }

    @Test("none is a GPS-only set-up: no IMU service is made for it")
    func none() throws {
        #expect(try IMUSourceSpec.parse("none") == IMUSourceSpec.none)
        #expect(try IMUSourceSpec.parse(" none ").description == "none")
        #expect(try IMUService.make(spec: .none, config: IMUServiceConfig(), clock: .engine(EngineClock(speed: 1))) == nil)
    }

    @Test func parsesReplaySpecs() throws {
        #expect(try IMUSourceSpec.parse("replay:/a/b.csv.gz") == .replay(path: "/a/b.csv.gz", speed: 1, loop: false))
        #expect(try IMUSourceSpec.parse("replay:x.csv,speed=10,loop") == .replay(path: "x.csv", speed: 10, loop: true))
        #expect(try IMUSourceSpec.parse("replay:x.csv,loop,speed=2.5") == .replay(path: "x.csv", speed: 2.5, loop: true))
        #expect(try IMUSourceSpec.parse("replay:odd,name.csv,loop") == .replay(path: "odd,name.csv", speed: 1, loop: true))
        #expect(try IMUSourceSpec.parse("replay:x.csv,speed=10").speed == 10)
    }

    @Test(arguments: ["", "gpio:1", "i2c:dev/i2c-1", "i2c:/dev/i2c-1@0x100", "i2c:/dev/i2c-1@zz",
                      "replay:", "replay:x.csv,speed=0", "replay:x.csv,speed=-1", "replay:x.csv,speed=fast"])
    func rejectsBadSpecsWithAReason(text: String) {
        do {
            _ = try IMUSourceSpec.parse(text)
            Issue.record("'\(text)' must be rejected")
        } catch {
            #expect(error.spec == text)
            #expect(!error.reason.isEmpty)
            #expect(error.description.contains("invalid IMU source"))
        }
    }

    @Test func descriptionRoundTrips() throws {
        for text in ["i2c:/dev/i2c-1@0x69", "replay:/t.csv", "replay:/t.csv,speed=10.0,loop"] {
            let spec = try IMUSourceSpec.parse(text)
            #expect(try IMUSourceSpec.parse(spec.description) == spec)
        }
    }

    @Test func openingAMissingBusIsAClearError() {
        do {
            _ = try LinuxI2CBus(path: "/dev/i2c-97")
            Issue.record("there is no /dev/i2c-97 here")
        } catch {
            #expect(error == .openFailed(path: "/dev/i2c-97", errno: ENOENT))
            #expect(error.description.contains("/dev/i2c-97"))
            #expect(error.description.contains("No such file"))
        }
    }

    @Test func linuxErrnoMapping() {
        #expect(LinuxI2CBus.error(fromResult: -EREMOTEIO, address: 0x68) == .nack(address: 0x68))
        #expect(LinuxI2CBus.error(fromResult: -ENXIO, address: 0x69) == .nack(address: 0x69))
        #expect(LinuxI2CBus.error(fromResult: -EIO, address: 0x68) == .eio)
        #expect(LinuxI2CBus.error(fromResult: -ETIMEDOUT, address: 0x68) == .timeout)
        #expect(LinuxI2CBus.error(fromResult: -EBUSY, address: 0x68) == .io(errno: EBUSY))
    }
}

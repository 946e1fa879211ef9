import Foundation
import MoonRunnerTestSupport
import MoonRunnerCore
import Synchronization
@testable import MoonRunnerSensors

/// A virtual engine clock for IMU tests: `sleep` advances it instead of waiting, so the
/// driver, the emulator and the service run deterministically and fast.
///
/// Only the thread that sleeps on it (the service's) moves time, so everything that thread
/// does is a function of virtual time alone. Tests keep it that way under any CPU load by
/// scheduling their interventions (`at`) on the virtual timeline instead of poking from the
/// test task at whatever real moment it gets to run, and by capping time (`horizon`) so
/// the service cannot run arbitrarily far ahead while the test task is not scheduled.
final class IMUManualClock: Sendable {
    private struct Event {
        let time: Double
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Double
        var horizon = Double.infinity
        var events: [Event] = []
    }

    private let state: Mutex<State>
    /// Real seconds each `sleep` also takes, so a service thread does not spin flat out.
    private let realPause: Double

    init(start: Double = 1_000, realPause: Double = 0) {
        state = Mutex(State(now: start))
        self.realPause = realPause
    }

    var now: Double { state.withLock { $0.now } }

    /// Time never moves past this (sleeps that would cross it end at it).
    var horizon: Double {
        get { state.withLock { $0.horizon } }
        set { state.withLock { $0.horizon = newValue } }
    }

    /// Runs `action` on the thread that moves time, at the moment time reaches `time`.
    /// An action may itself advance the clock (a stall of that thread).
    func at(_ time: Double, _ action: @escaping @Sendable () -> Void) {
        state.withLock { $0.events.append(Event(time: time, action: action)) }
    }

    /// Moves time forward by `seconds` (not past the horizon), running due actions in
    /// time order (ties in the order they were scheduled) on the calling thread.
    func advance(_ seconds: Double) {
        let target = state.withLock { s in max(s.now, min(s.now + seconds, s.horizon)) }
        while true {
            let next: Event? = state.withLock { s in
                var best: Int?
                for (i, e) in s.events.enumerated() where e.time <= target {
                    if best.map({ e.time < s.events[$0].time }) ?? true { best = i }
                }
                guard let i = best else { return nil }
                s.now = max(s.now, s.events[i].time)
                return s.events.remove(at: i)
            }
            guard let event = next else { break }
            event.action()
        }
        state.withLock { $0.now = max($0.now, target) }
    }

    var imuClock: IMUClock {
        IMUClock(now: { self.now }, sleep: { seconds in
            self.advance(seconds)
            if self.realPause > 0 { usleep(UInt32(self.realPause * 1e6)) }
        })
    }
}

/// A thread-safe cell for values captured on the service thread (scheduled snapshots).
final class IMUBox<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ initial: Value) { value = Mutex(initial) }
    var get: Value { value.withLock { $0 } }
    func set(_ v: Value) { value.withLock { $0 = v } }
}

/// Forwards to another bus and can advance a manual clock right after a chosen transfer,
/// as if the thread had been preempted there: deterministic tests of what a loaded CPU
/// does to the driver between two bus transactions.
final class IMUStallingBus: I2CBus {
    enum Trigger: Sendable, Equatable {
        /// After a write of `value` to `register`.
        case write(register: UInt8, value: UInt8)
        /// After a read starting at `register`.
        case read(register: UInt8)
    }

    private let inner: any I2CBus
    private let clock: IMUManualClock
    private let armed = Mutex<[(trigger: Trigger, seconds: Double)]>([])

    init(_ inner: any I2CBus, clock: IMUManualClock) {
        self.inner = inner
        self.clock = clock
    }

    /// The next transfer matching `trigger` is followed by a stall of `seconds` (once).
    func stall(after trigger: Trigger, for seconds: Double) {
        armed.withLock { $0.append((trigger, seconds)) }
    }

    private func fire(_ t: Trigger) {
        let seconds: Double? = armed.withLock { a in
            guard let i = a.firstIndex(where: { $0.trigger == t }) else { return nil }
            return a.remove(at: i).seconds
        }
        if let seconds { clock.advance(seconds) }
    }

    func select(address: UInt8) throws(I2CError) { try inner.select(address: address) }

    func readRegisters(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        try inner.readRegisters(register, into: buffer)
        fire(.read(register: register))
    }

    func readStream(_ register: UInt8, into buffer: UnsafeMutableRawBufferPointer) throws(I2CError) {
        try inner.readStream(register, into: buffer)
        fire(.read(register: register))
    }

    func writeRegister(_ register: UInt8, value: UInt8) throws(I2CError) {
        try inner.writeRegister(register, value: value)
        fire(.write(register: register, value: value))
    }
}

enum IMUTestTraces {
    /// A deterministic trace whose accelerometer encodes the sample index (ax carries
    /// k mod 3584 in steps of 1/256 g = 16 LSB at ±8 g, az the rest in steps of 1/16 g),
    /// so a delivered sample tells which trace sample it is.
    static func indexed(count: Int, rate: Double = 100, gyro: Bool = true, t0: Double = 0) -> [IMUSample] {
        (0..<count).map { k in
            let t = t0 + Double(k) / rate
            let w = 2 * Double.pi * 1.7 * t
            return IMUSample(t: t, ax: -7 + Double(k % 3584) / 256, ay: 0.6 * sin(w), az: 1 + Double(k / 3584) / 16,
                             gx: gyro ? 3 * sin(0.3 * w) : .nan, gy: gyro ? -2.5 * cos(w) : .nan,
                             gz: gyro ? 0.7 * sin(2 * w) : .nan)
        }
    }

    /// The trace index a sample of `indexed(...)` carries (nil when it is not one).
    static func index(of s: IMUSample) -> Int? {
        let low = (s.ax + 7) * 256
        let high = (s.az - 1) * 16
        guard abs(low - low.rounded()) < 0.1, abs(high - high.rounded()) < 0.1 else { return nil }
        return Int(high.rounded()) * 3584 + Int(low.rounded())
    }

    /// Writes `samples` as an IMU CSV trace (with or without gyro columns).
    static func csv(_ samples: [IMUSample], gyro: Bool) -> String {
        var s = IMUTraceWriter.header(gyro: gyro)
        for x in samples {
            IMUTraceWriter.append(x, gyro: gyro, to: &s)
        }
        return s
    }
}

/// A scratch directory removed when the value is released.
final class IMUTempDir {
    let path: String

    init() {
        let base = FileManager.default.temporaryDirectory.path
        path = "\(base)/imu-tests-\(getpid())-\(UUID().uuidString)"
        try? FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }

    func write(_ name: String, _ text: String) throws -> String {
        let p = "\(path)/\(name)"
        try text.write(toFile: p, atomically: true, encoding: .utf8)
        return p
    }

    /// Writes `text` gzip-compressed (through /bin/gzip, so the reader is checked against
    /// an independent compressor) under `name`.
    func writeGzip(_ name: String, _ text: String) throws -> String {
        let plain = try write(name + ".tmp", text)
        let out = "\(path)/\(name)"
        let r = try MoonRunnerTestSupport.run("/bin/sh", ["-c", "gzip -c '\(plain)' > '\(out)'"])
        guard r.status == 0 else { throw CocoaError(.fileWriteUnknown) }
        return out
    }
}

/// Polls `condition` in real time (the service runs on its own thread). Suspends rather
/// than blocks, so the batch consumers keep running on the cooperative pool.
func imuWait(timeout: Double = 20, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if condition() { return true }
        try? await Task.sleep(nanoseconds: 2_000_000)
    }
    return condition()
}

/// Where the shared labelled data lives, relative to the package root.
enum IMUSharedData {
    static var stepsFolder: String {
        let here = URL(fileURLWithPath: #filePath)   // …/Tests/MoonRunnerSensorsTests/IMUTestSupport.swift
        let root = here.deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        return root.appendingPathComponent("../shared/data/steps").standardizedFileURL.path
    }

    static var available: Bool { FileManager.default.fileExists(atPath: stepsFolder) }
}

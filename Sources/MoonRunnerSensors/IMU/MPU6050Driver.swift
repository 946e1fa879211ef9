import MoonRunnerCore

/// Driver for the InvenSense MPU-6050/6500/9250 over any `I2CBus`.
///
/// FIFO frames (accel + gyro = 12 bytes, big-endian int16) are stamped from
/// the sample clock (`anchorTime + (k − anchorIndex) / rate`), never the read
/// time, so bus latency and scheduling add no jitter; it is re-anchored only
/// when it leaves what is possible (a sample later than the read or a period
/// older), which absorbs the oscillator's drift, and skips the samples an
/// overflow lost. A loaded CPU can stall between any two transfers, so the
/// first FIFO count pins the first sample (`resync`), and a FIFO that
/// overflowed during a burst (shifting every frame) is caught by INT_STATUS
/// read after it and thrown away. One driver, one thread (not thread-safe);
/// `readFIFO` fills the caller's array and reuses one buffer: no allocation.
public final class MPU6050Driver {
    public let bus: any I2CBus
    public let config: MPU6050Config
    public let clock: IMUClock
    public let rate: MPU6050RateSettings
    /// Known after `initialize()`.
    public private(set) var model: MPU6050Model?
    public private(set) var isInitialized = false

    /// Bytes per FIFO frame: 12 with gyro, 6 accelerometer only.
    public var frameSize: Int { config.gyroEnabled ? 12 : 6 }
    /// Current estimate of the device's real sample rate (Hz).
    public var estimatedRate: Double { 1 / period }

    /// One FIFO's worth of bytes, allocated once.
    private let buffer: UnsafeMutableRawBufferPointer
    private var anchorTime = 0.0
    private var anchorIndex = 0
    private var period: Double
    /// Index of the next sample that will come out of the FIFO.
    private var nextIndex = 1
    /// Where the stream started: the base line of the period estimate.
    private var referenceTime = 0.0
    private var referenceIndex = 0
    /// Timestamp of the last sample delivered.
    private var lastStamp = -Double.infinity
    /// After a FIFO (re)start: the indices the first frame in the FIFO can have (ticks may
    /// fall between the clock reads around the enable write); nil once pinned down.
    private var resync: ClosedRange<Int>?
    private let accelScale: Double
    private let gyroScale: Double

    /// How far (s) the newest sample may sit outside its physical window before the
    /// clock is re-anchored: covers the bus transfer between the clock reads and the count.
    static let clockSlack = 0.002
    /// The period estimate never leaves ±5 % of nominal (the oscillator spec is far tighter).
    static let maxPeriodDeviation = 0.05

    public init(bus: any I2CBus, config: MPU6050Config, clock: IMUClock) {
        self.bus = bus
        self.config = config
        self.clock = clock
        rate = MPU6050RateSettings(rate: config.sampleRate)
        period = rate.period
        buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1024, alignment: 8)
        buffer.initializeMemory(as: UInt8.self, repeating: 0)
        accelScale = 1 / config.accelRange.lsbPerG
        gyroScale = 1 / config.gyroRange.lsbPerRadianPerSecond
    }

    deinit { buffer.deallocate() }

    // MARK: - Bring-up

    /// Resets and configures the device, then starts the FIFO. The sample clock starts now.
    public func initialize() throws(IMUDriverError) {
        isInitialized = false
        model = nil
        let address = config.address
        do { try bus.select(address: address) } catch { throw .bus(error) }
        let who = try read(MPU6050Register.whoAmI)
        guard let found = MPU6050Model(whoAmI: who) else {
            throw .unknownDevice(whoAmI: who, address: address)
        }
        // Full reset so that nothing a previous run (or a brown-out) left behind survives;
        // the register map asks for 100 ms before the device is usable again.
        try write(MPU6050Register.pwrMgmt1, MPU6050Bits.deviceReset)
        clock.sleep(0.1)
        // Wake. The gyro PLL is the better clock, but it needs the gyro running.
        let power: UInt8 = config.gyroEnabled ? MPU6050Bits.clockPLLGyroX : 0
        try write(MPU6050Register.pwrMgmt1, power)
        try write(MPU6050Register.pwrMgmt2, config.gyroEnabled ? 0 : MPU6050Bits.standbyGyro)
        clock.sleep(0.01)

        try write(MPU6050Register.config, rate.dlpf)
        try write(MPU6050Register.smplrtDiv, rate.divider)
        try write(MPU6050Register.gyroConfig, config.gyroRange.registerValue)
        try write(MPU6050Register.accelConfig, config.accelRange.registerValue)
        if found.hasAccelDLPF {
            try write(MPU6050Register.accelConfig2, rate.dlpf)
        }
        try write(MPU6050Register.intEnable, 0)

        // Read the configuration back in one burst: a device that silently ignores writes
        // (wrong part, bus trouble) must not be trusted with a session.
        let expected = [rate.divider, rate.dlpf, config.gyroRange.registerValue, config.accelRange.registerValue]
        try readRegisters(MPU6050Register.smplrtDiv, count: 4)
        for (i, want) in expected.enumerated() where buffer[i] != want {
            throw .configurationMismatch(register: MPU6050Register.smplrtDiv + UInt8(i), wrote: want, read: buffer[i])
        }
        let powerRead = try read(MPU6050Register.pwrMgmt1)
        if powerRead != power {
            throw .configurationMismatch(register: MPU6050Register.pwrMgmt1, wrote: power, read: powerRead)
        }

        model = found
        let window = try restartFIFO()
        _ = try read(MPU6050Register.intStatus)   // clear a stale overflow flag
        // The sample clock starts where the FIFO did; its phase is refined by `discipline`.
        anchorTime = window.lowerBound
        anchorIndex = 0
        referenceTime = anchorTime
        referenceIndex = 0
        period = rate.period
        nextIndex = 1
        resync = 1...max(1, newestIndex(at: window.upperBound) + 1)
        lastStamp = -Double.infinity
        isInitialized = true
    }

    /// Puts the device to sleep (best effort; used on shutdown).
    public func sleepDevice() {
        isInitialized = false
        _ = try? bus.writeRegister(MPU6050Register.pwrMgmt1, value: MPU6050Bits.sleep)
    }

    // MARK: - Streaming

    /// Reads every whole frame waiting in the FIFO and appends the samples to `out`.
    ///
    /// Throws only for bus errors; an untrustworthy FIFO (overflow, broken alignment,
    /// a count the sample clock cannot explain) is reset and reported in the result.
    @discardableResult
    public func readFIFO(into out: inout [IMUSample]) throws(IMUDriverError) -> FIFOReadReport {
        guard isInitialized, let model else { throw .notInitialized }
        var report = FIFOReadReport()
        let before = clock.now()
        let status = try read(MPU6050Register.intStatus)
        try readRegisters(MPU6050Register.fifoCountH, count: 2)
        let count = Int(buffer[0] & 0x1F) << 8 | Int(buffer[1])
        let after = clock.now()

        guard let frames = try trustedFrames(count: count, status: status, capacity: model.fifoCapacity,
                                             before: before, after: after, &report) else { return report }
        if let range = resync {
            report.lostSamples += resolveStart(range, frames: frames, before: before, after: after)
        }
        guard frames > 0 else { return report }

        try readStream(MPU6050Register.fifoRW, count: count)
        // The FIFO may have overflowed after the count was latched (the thread stalled, or
        // the burst itself was slow): the device then dropped its oldest bytes and every
        // frame just read may be shifted. Nothing of it can be trusted.
        if try read(MPU6050Register.intStatus) & MPU6050Bits.intFIFOOverflow != 0 {
            try resetFIFO(.overflow(count: count), &report)
            return report
        }
        // Discipline the clock before stamping, so no sample is stamped outside the window
        // it can physically have been taken in.
        report.clockCorrection = discipline(newest: nextIndex + frames - 1, before: before, after: after)
        let garbage = decode(frames, into: &out)
        nextIndex += frames
        report.samples = frames - garbage
        if garbage > 0 {
            // Reading past the FIFO's end returns its last byte over and over: the count
            // lied. Nothing after this point can be trusted until the FIFO restarts.
            report.lostSamples += garbage
            try resetFIFO(.garbageFrames(garbage), &report)
            return report
        }
        return report
    }

    /// The whole frames the FIFO holds, or nil when its count cannot be trusted
    /// (then the FIFO is reset and `report` says why).
    private func trustedFrames(count: Int, status: UInt8, capacity: Int, before: Double, after: Double,
                               _ report: inout FIFOReadReport) throws(IMUDriverError) -> Int? {
        if status & MPU6050Bits.intFIFOOverflow != 0 || count >= capacity {
            try resetFIFO(.overflow(count: count), &report)
            return nil
        }
        if count % frameSize != 0 {
            try resetFIFO(.partialFrame(count: count), &report)
            return nil
        }
        let frames = count / frameSize
        // The count was latched between `before` and `after`, so it must match what the
        // sample clock says was due, give or take the read's own duration, one frame of
        // phase, a little drift (which `discipline` keeps small) and, just after a FIFO
        // restart, the samples that may have been taken before the FIFO was enabled.
        let due = newestIndex(at: after) - (nextIndex - 1)
        var tolerance = 1 + Int(((after - before) / period).rounded(.up)) + due / 50
        if let resync { tolerance += resync.count - 1 }
        if abs(frames - due) > tolerance {
            try resetFIFO(.implausibleCount(count: count, expectedFrames: due), &report)
            return nil
        }
        return frames
    }

    /// Appends the samples of the first `frames` frames in `buffer`, stamped from
    /// `nextIndex` on, to `out`; how many frames were garbage (every byte the same).
    /// Scales are read once into locals: this loop runs for every sample.
    private func decode(_ frames: Int, into out: inout [IMUSample]) -> Int {
        var garbage = 0
        let size = frameSize
        let gyro = config.gyroEnabled
        let ax = accelScale
        let gs = gyroScale
        let bytes = UnsafeBufferPointer(buffer.bindMemory(to: UInt8.self))
        for f in 0..<frames {
            let o = f * size
            if MPU6050Driver.isUniform(bytes, o, size) {
                garbage += 1
                continue
            }
            let t = time(ofIndex: nextIndex + f)
            let s: IMUSample
            if gyro {
                s = IMUSample(t: t,
                              ax: Double(MPU6050Driver.int16(bytes, o)) * ax,
                              ay: Double(MPU6050Driver.int16(bytes, o + 2)) * ax,
                              az: Double(MPU6050Driver.int16(bytes, o + 4)) * ax,
                              gx: Double(MPU6050Driver.int16(bytes, o + 6)) * gs,
                              gy: Double(MPU6050Driver.int16(bytes, o + 8)) * gs,
                              gz: Double(MPU6050Driver.int16(bytes, o + 10)) * gs)
            } else {
                s = IMUSample(t: t,
                              ax: Double(MPU6050Driver.int16(bytes, o)) * ax,
                              ay: Double(MPU6050Driver.int16(bytes, o + 2)) * ax,
                              az: Double(MPU6050Driver.int16(bytes, o + 4)) * ax)
            }
            out.append(s)
            lastStamp = t
        }
        return garbage
    }

    // MARK: - Sample clock

    /// Engine time of sample `index`.
    @inline(__always)
    func time(ofIndex index: Int) -> Double {
        anchorTime + Double(index - anchorIndex) * period
    }

    /// Index of the newest sample the device can have produced by time `t`.
    func newestIndex(at t: Double) -> Int {
        anchorIndex + Int(((t - anchorTime) / period + 1e-6).rounded(.down))
    }

    /// Keeps the newest sample inside [before − period, after]; returns the shift applied.
    ///
    /// A backward step never puts the next sample at or before the last one delivered, so
    /// timestamps stay strictly increasing. Small (drift-sized) corrections also refine the
    /// period as the slope from the start of the stream to the corrected point: a long
    /// baseline, so the estimate converges without overshooting.
    private func discipline(newest: Int, before: Double, after: Double) -> Double {
        let predicted = time(ofIndex: newest)
        var shift = 0.0
        if predicted > after + MPU6050Driver.clockSlack {
            let firstNew = time(ofIndex: nextIndex)
            let floor = lastStamp + 0.1 * period - firstNew
            shift = max(after - predicted, floor)
        } else if predicted < before - period - MPU6050Driver.clockSlack {
            shift = (before - period) - predicted
        }
        guard shift != 0 else { return 0 }
        anchorTime = predicted + shift
        anchorIndex = newest
        let span = newest - referenceIndex
        if abs(shift) <= period && Double(span) * period >= 1 {
            let nominal = rate.period
            let slope = (anchorTime - referenceTime) / Double(span)
            period = min(max(slope, nominal * (1 - MPU6050Driver.maxPeriodDeviation)),
                         nominal * (1 + MPU6050Driver.maxPeriodDeviation))
        }
        return shift
    }

    /// Which sample the FIFO's first frame is, from the first count after a restart:
    /// `frames` frames latched between `before` and `after` end at the newest sample of
    /// that window, which narrows `range` (normally to one index). Moves `nextIndex` there
    /// and returns the samples that turn out to have been lost before it.
    private func resolveStart(_ range: ClosedRange<Int>, frames: Int, before: Double, after: Double) -> Int {
        let first: Int
        if frames == 0 {
            // Nothing stored yet: the first frame is a sample taken after `before`.
            let lower = min(max(range.lowerBound, newestIndex(at: before) + 1), range.upperBound)
            if lower < range.upperBound {
                resync = lower...range.upperBound
            } else {
                resync = nil
            }
            first = lower
        } else {
            // The newest frame is a sample taken by the time the count was latched.
            let low = max(range.lowerBound, newestIndex(at: before) - frames + 1)
            let high = min(range.upperBound, newestIndex(at: after) - frames + 1)
            // Both windows hold the truth; when they do not overlap (the clock disagrees:
            // a drifting oscillator, a device that reset itself) stay inside what the
            // restart allows, nearest to what the count says.
            first = low <= high ? high : (high < range.lowerBound ? range.lowerBound : range.upperBound)
            resync = nil
        }
        let lost = max(0, first - nextIndex)
        nextIndex = max(first, nextIndex)
        return lost
    }

    // MARK: - FIFO control

    /// Empties and restarts the FIFO; returns the clock readings around the enable write,
    /// the window in which the FIFO started taking samples.
    private func restartFIFO() throws(IMUDriverError) -> ClosedRange<Double> {
        try write(MPU6050Register.userCtrl, 0)
        try write(MPU6050Register.fifoEnable, 0)
        try write(MPU6050Register.userCtrl, MPU6050Bits.userFIFOReset)
        let sources = MPU6050Bits.fifoAccel | (config.gyroEnabled ? MPU6050Bits.fifoGyro : 0)
        try write(MPU6050Register.fifoEnable, sources)
        let start = clock.now()
        try write(MPU6050Register.userCtrl, MPU6050Bits.userFIFOEnable)
        let end = clock.now()
        return start...max(start, end)
    }

    /// Drops the FIFO's content and moves the sample index past everything produced
    /// before the restart, so the samples that follow keep their place on the sample
    /// clock; the first read after it settles exactly where the FIFO started.
    private func resetFIFO(_ anomaly: FIFOAnomaly, _ report: inout FIFOReadReport) throws(IMUDriverError) {
        report.anomaly = anomaly
        let window = try restartFIFO()
        _ = try read(MPU6050Register.intStatus)
        let lower = max(newestIndex(at: window.lowerBound) + 1, nextIndex)
        let upper = max(newestIndex(at: window.upperBound) + 1, lower)
        report.lostSamples += lower - nextIndex
        nextIndex = lower
        resync = lower < upper ? lower...upper : nil
    }

    // MARK: - Bytes

    @inline(__always)
    static func int16(_ b: UnsafeBufferPointer<UInt8>, _ i: Int) -> Int16 {
        Int16(bitPattern: UInt16(b[i]) << 8 | UInt16(b[i + 1]))
    }

    @inline(__always)
    static func isUniform(_ b: UnsafeBufferPointer<UInt8>, _ o: Int, _ n: Int) -> Bool {
        let first = b[o]
        for i in 1..<n where b[o + i] != first { return false }
        return true
    }

    private func read(_ register: UInt8) throws(IMUDriverError) -> UInt8 {
        do { return try bus.readRegister(register) } catch { throw .bus(error) }
    }

    private func readRegisters(_ register: UInt8, count: Int) throws(IMUDriverError) {
        do {
            try bus.readRegisters(register, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch { throw .bus(error) }
    }

    private func readStream(_ register: UInt8, count: Int) throws(IMUDriverError) {
        do {
            try bus.readStream(register, into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<count]))
        } catch { throw .bus(error) }
    }

    private func write(_ register: UInt8, _ value: UInt8) throws(IMUDriverError) {
        do { try bus.writeRegister(register, value: value) } catch { throw .bus(error) }
    }
}

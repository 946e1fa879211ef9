import MoonRunnerCore

/// Everything behind the emulator's lock.
struct EmulatorState {
    let model: MPU6050Model
    let address: UInt8
    var playback: TracePlayback

    var regs = [UInt8](repeating: 0, count: 128)
    var selected: UInt8?
    var present = true
    var whoAmIOverride: UInt8?
    /// Transfers NACK until this time after a DEVICE_RESET.
    var busyUntil = -Double.infinity

    // FIFO ring buffer
    var fifo: [UInt8]
    var fifoHead = 0
    var fifoCount = 0
    var lastFIFOByte: UInt8 = 0
    var latchedCount = 0
    var ledger = FIFOTraceLedger()
    /// The frame being pushed holds a sample of the recording (not one held before or after it).
    private var pushingRecorded = false

    // Sample clock
    var phaseOrigin = 0.0
    var lastTick = 0

    // Faults
    var readFaults = 0
    var readFaultError = I2CError.eio
    var writeFaults = 0
    var writeFaultError = I2CError.eio
    var stuckCount: Int?
    var forceOverflow = false

    var stats = MPU6050EmulatorStats()

    /// A still, flat device (used without a trace).
    static let restingSample = IMUSample(t: 0, ax: 0, ay: 0, az: 1, gx: 0, gy: 0, gz: 0)
    /// 25 °C in TEMP_OUT units: (25 − 36.53) × 340.
    static let temperatureRaw: Int16 = -3920
    /// How long the device ignores the bus after DEVICE_RESET.
    static let resetBusyTime = 0.05

    init(model: MPU6050Model, address: UInt8, playback: TracePlayback) {
        self.model = model
        self.address = address
        self.playback = playback
        fifo = [UInt8](repeating: 0, count: model.fifoCapacity)
        resetRegisters()
    }

    mutating func resetRegisters() {
        for i in regs.indices { regs[i] = 0 }
        regs[Int(MPU6050Register.pwrMgmt1)] = MPU6050Bits.sleep   // reset value 0x40
        ledger.dropped(fifoCount)
        fifoHead = 0
        fifoCount = 0
        latchedCount = 0
    }

    var isAwake: Bool {
        let p = regs[Int(MPU6050Register.pwrMgmt1)]
        return p & MPU6050Bits.sleep == 0 && p & 0x07 != MPU6050Bits.clockStop
    }

    var samplePeriod: Double {
        let dlpf = regs[Int(MPU6050Register.config)] & 0x07
        let outputRate = (dlpf == 0 || dlpf == 7) ? 8000.0 : 1000.0
        return (1 + Double(regs[Int(MPU6050Register.smplrtDiv)])) / outputRate
    }

    var fifoEnabled: Bool { regs[Int(MPU6050Register.userCtrl)] & MPU6050Bits.userFIFOEnable != 0 }

    /// Bytes one sample adds to the FIFO with the current FIFO_EN.
    var frameSize: Int {
        let en = regs[Int(MPU6050Register.fifoEnable)]
        var n = 0
        if en & MPU6050Bits.fifoAccel != 0 { n += 6 }
        if en & MPU6050Bits.fifoTemp != 0 { n += 2 }
        if en & MPU6050Bits.fifoGyroX != 0 { n += 2 }
        if en & MPU6050Bits.fifoGyroY != 0 { n += 2 }
        if en & MPU6050Bits.fifoGyroZ != 0 { n += 2 }
        return n
    }

    // MARK: Transactions

    mutating func beginTransaction(at t: Double, isRead: Bool) throws(I2CError) {
        stats.transactions += 1
        guard let selected else { throw .notReady }
        guard present, selected == address, t >= busyUntil else { throw .nack(address: selected) }
        if isRead, readFaults > 0 {
            readFaults -= 1
            stats.injectedFaults += 1
            throw readFaultError
        }
        if !isRead, writeFaults > 0 {
            writeFaults -= 1
            stats.injectedFaults += 1
            throw writeFaultError
        }
        advance(to: t)
    }

    mutating func readByte(_ register: UInt8, at t: Double) -> UInt8 {
        switch register {
        case MPU6050Register.whoAmI:
            return whoAmIOverride ?? model.whoAmI
        case MPU6050Register.intStatus:
            let v = regs[Int(register)]
            regs[Int(register)] = 0
            return v
        case MPU6050Register.fifoCountH:
            latchedCount = stuckCount ?? fifoCount
            return UInt8(truncatingIfNeeded: latchedCount >> 8)
        case MPU6050Register.fifoCountL:
            return UInt8(truncatingIfNeeded: latchedCount)
        case MPU6050Register.fifoRW:
            if fifoCount > 0 {
                lastFIFOByte = fifo[fifoHead]
                fifoHead = (fifoHead + 1) % fifo.count
                fifoCount -= 1
                if playback.hasSource { ledger.popped() }
            }
            return lastFIFOByte
        default:
            return regs[Int(register & 0x7F)]
        }
    }

    mutating func writeByte(_ register: UInt8, _ value: UInt8, at t: Double) {
        switch register {
        case MPU6050Register.whoAmI, MPU6050Register.intStatus, MPU6050Register.fifoCountH,
             MPU6050Register.fifoCountL, MPU6050Register.accelXoutH...(MPU6050Register.gyroXoutH + 5):
            return   // read-only
        case MPU6050Register.pwrMgmt1:
            if value & MPU6050Bits.deviceReset != 0 {
                resetRegisters()
                stats.deviceResets += 1
                busyUntil = t + EmulatorState.resetBusyTime
                return
            }
            let wasAwake = isAwake
            regs[Int(register)] = value
            if !wasAwake && isAwake {
                restartSampleClock(at: t)
            }
        case MPU6050Register.smplrtDiv, MPU6050Register.config:
            regs[Int(register)] = value
            restartSampleClock(at: t)
        case MPU6050Register.userCtrl:
            if value & MPU6050Bits.userFIFOReset != 0 {
                ledger.dropped(fifoCount)
                fifoHead = 0
                fifoCount = 0
                stats.fifoResets += 1
            }
            if value & MPU6050Bits.userSigCondReset != 0 {
                for r in Int(MPU6050Register.accelXoutH)...Int(MPU6050Register.gyroXoutH + 5) { regs[r] = 0 }
            }
            regs[Int(register)] = value & ~(MPU6050Bits.userFIFOReset | MPU6050Bits.userSigCondReset | 0x02)
        case MPU6050Register.fifoRW:
            push(value)
        default:
            regs[Int(register & 0x7F)] = value
        }
    }

    mutating func restartSampleClock(at t: Double) {
        phaseOrigin = t
        lastTick = 0
    }

    // MARK: Sample clock

    /// Takes every sample due by `t`: ticks at phaseOrigin + k·period, k ≥ 1.
    mutating func advance(to t: Double) {
        let period = samplePeriod
        // Same rounding as the driver (MPU6050Driver.newestIndex) for ticks that land
        // exactly on a read, as they do on a stepped test clock.
        let due = Int(((t - phaseOrigin) / period + 1e-6).rounded(.down))
        guard due > lastTick else { return }
        guard isAwake else {
            lastTick = due
            return
        }
        let frame = fifoEnabled ? frameSize : 0
        var first = lastTick + 1
        // After a long gap only the newest samples can still be in the FIFO; skip the rest
        // (the FIFO overflowed meanwhile), keeping this O(FIFO) however far time jumped.
        let keep = frame > 0 ? fifo.count / frame + 2 : 1
        if due - first + 1 > keep {
            if frame > 0 { markOverflow() }
            stats.samplesTaken += due - first + 1 - keep
            first = due - keep + 1
        }
        for k in first...due {
            let tick = phaseOrigin + Double(k) * period
            let value = traceValue(at: tick, storing: frame > 0)
            pushingRecorded = playback.started && !playback.ended
            stats.samplesTaken += 1
            latch(value)
            regs[Int(MPU6050Register.intStatus)] |= MPU6050Bits.intDataReady
            if frame > 0 {
                if forceOverflow {
                    forceOverflow = false
                    while fifoCount + frame <= fifo.count { pushFrame() }
                }
                pushFrame()
            }
        }
        pushingRecorded = false
        lastTick = due
    }

    private mutating func traceValue(at tick: Double, storing: Bool) -> IMUSample {
        if !playback.hasSource { return EmulatorState.restingSample }
        // The trace starts with the first sample that reaches the FIFO, so a trace
        // recorded at the configured rate is delivered sample for sample: none lost
        // while the driver configures the device, none interpolated.
        if !playback.started {
            guard storing else { return EmulatorState.restingSample }
            // A trace on the receiver's clock that is not due yet: the device lies as
            // the recording begins (its first sample held), as a sensor keeps sampling.
            guard playback.startIfDue(at: tick, period: samplePeriod) else {
                return playback.firstSample ?? EmulatorState.restingSample
            }
        }
        return playback.sample(at: tick) ?? EmulatorState.restingSample
    }

    /// Encodes `s` into the data registers at the current full scales.
    private mutating func latch(_ s: IMUSample) {
        let afs = AccelRange(rawValue: (regs[Int(MPU6050Register.accelConfig)] >> 3) & 3) ?? .g2
        let gfs = GyroRange(rawValue: (regs[Int(MPU6050Register.gyroConfig)] >> 3) & 3) ?? .dps250
        let a = afs.lsbPerG
        let g = gfs.lsbPerRadianPerSecond
        store(MPU6050Register.accelXoutH, EmulatorState.encode(s.ax, a))
        store(MPU6050Register.accelXoutH + 2, EmulatorState.encode(s.ay, a))
        store(MPU6050Register.accelXoutH + 4, EmulatorState.encode(s.az, a))
        store(MPU6050Register.tempOutH, EmulatorState.temperatureRaw)
        store(MPU6050Register.gyroXoutH, EmulatorState.encode(s.gx, g))
        store(MPU6050Register.gyroXoutH + 2, EmulatorState.encode(s.gy, g))
        store(MPU6050Register.gyroXoutH + 4, EmulatorState.encode(s.gz, g))
    }

    /// Physical value → int16 at `lsb` per unit, saturating at ±32767; NaN (no gyro in
    /// the trace) reads as 0 like a gyro at rest.
    static func encode(_ value: Double, _ lsb: Double) -> Int16 {
        guard value.isFinite else { return value.isNaN ? 0 : (value > 0 ? 32767 : -32767) }
        let raw = (value * lsb).rounded()
        return Int16(min(max(raw, -32767), 32767))
    }

    private mutating func store(_ register: UInt8, _ v: Int16) {
        let u = UInt16(bitPattern: v)
        regs[Int(register)] = UInt8(u >> 8)
        regs[Int(register) + 1] = UInt8(u & 0xFF)
    }

    /// Pushes the latched data registers selected by FIFO_EN, in register order.
    private mutating func pushFrame() {
        let en = regs[Int(MPU6050Register.fifoEnable)]
        stats.framesQueued += 1
        if en & MPU6050Bits.fifoAccel != 0 { pushRegisters(MPU6050Register.accelXoutH, 6) }
        if en & MPU6050Bits.fifoTemp != 0 { pushRegisters(MPU6050Register.tempOutH, 2) }
        if en & MPU6050Bits.fifoGyroX != 0 { pushRegisters(MPU6050Register.gyroXoutH, 2) }
        if en & MPU6050Bits.fifoGyroY != 0 { pushRegisters(MPU6050Register.gyroXoutH + 2, 2) }
        if en & MPU6050Bits.fifoGyroZ != 0 { pushRegisters(MPU6050Register.gyroXoutH + 4, 2) }
    }

    private mutating func pushRegisters(_ first: UInt8, _ n: Int) {
        for i in 0..<n { push(regs[Int(first) + i]) }
    }

    /// Appends a byte; when full, the oldest byte is lost and FIFO_OFLOW is raised.
    private mutating func push(_ byte: UInt8) {
        if fifoCount == fifo.count {
            fifoHead = (fifoHead + 1) % fifo.count
            fifoCount -= 1
            ledger.dropped(1)
            markOverflow()
        }
        fifo[(fifoHead + fifoCount) % fifo.count] = byte
        fifoCount += 1
        ledger.pushed(recorded: pushingRecorded)
    }

    private mutating func markOverflow() {
        if regs[Int(MPU6050Register.intStatus)] & MPU6050Bits.intFIFOOverflow == 0 { stats.overflows += 1 }
        regs[Int(MPU6050Register.intStatus)] |= MPU6050Bits.intFIFOOverflow
    }
}

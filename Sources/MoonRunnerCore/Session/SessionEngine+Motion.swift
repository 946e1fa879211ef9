/// The engine's motion input: IMU samples, the steps they hold, and the
/// body's stillness for auto-pause.
extension SessionEngine {
    /// One IMU sample. Implausible samples are refused and counted.
    public mutating func ingest(_ sample: IMUSample, emit: (EngineOutput) -> Void) {
        guard sample.isPlausible else {
            rejectedSamples += 1
            return
        }
        if sample.t <= lastSampleTime {
            // Out of order or repeated: the detector's filters assume a forward clock.
            rejectedSamples += 1
            return
        }
        lastSampleTime = sample.t
        advanceClock(sample.t)
        energy.process(sample)
        // Steps are collected in a stack buffer and handled after the detector
        // returns: its callback must not touch the engine (overlapping access),
        // and copying the detector out and back costs more than the detector.
        // A detector emits at most a bout's worth at once (2.5 s at 240 steps/min).
        withUnsafeTemporaryAllocation(of: Double.self, capacity: Self.maxStepsPerSample) { found in
            var n = 0
            detector.process(sample) { t in
                if n < found.count {
                    found[n] = t
                    n += 1
                }
            }
            for i in 0..<n { stepDetected(at: found[i], emit: emit) }
        }
        if state == .recording || state == .autoPaused {
            let still = energy.accelStd < config.stillAccelStd
                && (!sample.hasGyro || energy.gyroMean < config.stillGyro)
            let rotation = sample.hasGyro ? max(abs(sample.gy), abs(sample.gz)) : 0
            autoPause.imu(still: still, rotation: rotation, at: sample.t)
        }
        checkAutoPause(emit: emit)
    }

    /// A step: counted while a session is open, and evidence for auto-pause.
    private mutating func stepDetected(at t: Double, emit: (EngineOutput) -> Void) {
        // A rider's pedalling (or a jolt of the bike) is no step.
        guard profile.countsSteps else { return }
        lastStep = t
        cadence.addStep(at: t)
        guard state == .recording || state == .autoPaused else { return }
        stats.steps += 1
        emit(.step(t))
        if state == .autoPaused {
            handle(autoPause.step(at: t), emit: emit)
        } else {
            _ = autoPause.step(at: t)
        }
    }
}

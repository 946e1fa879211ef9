import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerSystem

/// The inputs of the session service: the sensors' samples, gpsd's fixes,
/// the strap's readings and link, the battery gauge's readings. Each goes
/// through the engine, then `afterInput` (the moments it brought, a commit
/// when one is due).
extension SessionService {
    public func ingest(samples: [IMUSample]) async {
        collect { engine, emit in
            for s in samples { engine.ingest(s, emit: emit) }
        }
        await afterInput()
    }

    /// Barometer readings, in time order.
    public func ingest(baro samples: [BaroSample]) async {
        collect { engine, emit in
            for s in samples { engine.ingest(s, emit: emit) }
        }
        await afterInput()
    }

    /// A heart-rate reading (a strap's notification or a replayed row).
    public func ingest(heartRate sample: HeartRateSample) async {
        collect { engine, emit in engine.ingest(sample, emit: emit) }
        await afterInput()
    }

    /// The strap's link and health changed (its source's stream, in order); a
    /// change of link is an `hr_connected` or `hr_lost` event (detail: the strap, or why).
    public func update(heartRate s: HeartRateSourceStatus, detail: String?) async {
        readDevices()
        guard let kind = inputHealth.heartRateChanged(s) else { return }
        record(SessionEvent(kind: kind, time: engine.now, detectedAt: engine.now, cause: "heart_rate",
                            state: engine.state, detail: detail))
        await afterInput()
    }

    public func ingest(fix: GPSFix, at t: Double) async {
        // Counted here, as each fix arrives, so that STATUS is never behind
        // what the engine has seen.
        if fix.hasPosition && fix.time.isFinite { inputHealth.gps.fixes += 1 }
        order.add(fix: fix, at: t)
        takeHeld()
        await afterInput()
        await tickIfWatched()
    }

    /// A watched session's heartbeat rides on the inputs that wake the daemon
    /// anyway: the fixes while they come, the sensors' rings when they stop
    /// (a ring comes 1.5 s after the last fix), so it needs no timer of its own.
    private func tickIfWatched() async {
        if engine.state.isActive, !watchers.isEmpty, MonotonicClock.now() - lastTick >= 0.95 { await tick() }
    }

    /// gpsd's fixes as they come, taken on the actor itself: a fix costs one
    /// job on the cooperative pool, not a task's wake and then the actor's.
    public func consume(gps: GPSDClient) async {
        for await update in gps.updates {
            switch update {
            case let .fix(fix, at): await ingest(fix: fix, at: at)
            // gpsd lost or back: the journal hears it now, not at the next heartbeat.
            case .health: readDevices()
            }
        }
    }

    /// A sensor's doorbell (`IMUService.hold`): its batches are taken on the
    /// actor, as the fixes are; the last ones when it stops.
    public func consume(rings: AsyncStream<some Sendable>) async {
        for await _ in rings { await ingestHeld() }
        await ingestHeld()
    }

    /// The sensors rang: their held batches are taken (no fix came to take them),
    /// and a fault they ring for goes to the journal at once.
    public func ingestHeld() async {
        readDevices()
        takeHeld()
        await afterInput()
        await tickIfWatched()
    }

    /// The IMU's and the barometer's batches held since the last call and
    /// gpsd's fixes, in the order of their times (`InputOrder`); with `flush`
    /// (before a command) no fix is left waiting for the IMU.
    func takeHeld(flush: Bool = false) {
        let inputs = held?() ?? HeldInputs(imu: [], baro: [])
        guard !inputs.imu.isEmpty || !inputs.baro.isEmpty || order.waitingSince != nil else { return }
        var order = self.order
        self.order = InputOrder.empty
        collect { engine, emit in
            order.release(imu: inputs.imu, baro: inputs.baro, flush: flush) { input in
                switch input {
                case let .imu(s): engine.ingest(s, emit: emit)
                case let .baro(s): engine.ingest(s, emit: emit)
                case let .fix(f, t): engine.ingest(f, at: t, emit: emit)
                }
            }
        }
        self.order = order
    }

    /// A reading of the battery gauge: `STATUS.battery`, the `battery_low`
    /// warnings, and at the critical level the session stopped (cause
    /// `battery`) and on disk. True when the daemon is then to power off.
    public func ingest(battery reading: BatteryReading) async -> Bool {
        var powerOff = false
        for action in battery.take(reading, sessionActive: engine.state.isActive) {
            switch action {
            case let .warn(percent):
                let e = SessionEvent(kind: .batteryLow, time: engine.now, detectedAt: engine.now, cause: "battery",
                                     state: engine.state, detail: String(Int(percent.rounded())))
                logger.warning("battery at \(Int(percent.rounded())) %")
                if engine.state.isActive {
                    record(e)
                } else {
                    watchers.send(EventReply(session: nil, event: e.shifted(by: engine.utcOffsetNow), split: nil))
                }
            case .stopSession:
                logger.critical("battery critical (\(battery.monitor.policy.critical)): stopping and saving the session")
                takeHeld(flush: true)
                collect { engine, emit in try? engine.stop(at: clock.now(), cause: "battery", emit: emit) }
            case .powerOff:
                powerOff = true
            }
        }
        await afterInput()
        await commitsSettled()
        return powerOff
    }
}

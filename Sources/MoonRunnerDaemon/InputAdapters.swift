import Logging
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors

/// The input adapters the daemon runs: gpsd, and the IMU, the barometer and
/// the heart-rate strap when configured. Built from the validated sources in
/// the order their errors are reported, started together, stopped together.
struct InputAdapters: Sendable {
    let gps: GPSDClient
    /// Nil with `imu.source: none` (a GPS-only set-up).
    let imu: IMUService?
    let baro: BaroService?
    let heartRate: (any HeartRateSource)?
    /// Nil without a gauge (`battery.source: none`, or `auto` finding none).
    let battery: BatteryService?

    /// The configured sources, each validated.
    struct Specs: Sendable {
        let imu: IMUSourceSpec
        let baro: BaroSourceSpec
        let heartRate: HeartRateSourceSpec
        let battery: BatterySourceSpec

        init(_ config: DaemonConfig) throws {
            imu = try DaemonConfigValidator.imuSpec(config)
            baro = try DaemonConfigValidator.baroSpec(config)
            heartRate = try DaemonConfigValidator.hrSpec(config)
            battery = try DaemonConfigValidator.batterySpec(config)
        }

        /// A replay keeps pace with the GPS feed, whose speed gpsfake only approximates.
        var replaying: Bool {
            if case .replay = imu { return true }
            if case .replay = baro { return true }
            if case .replay = heartRate { return true }
            return false
        }
    }

    init(_ specs: Specs, config: DaemonConfig, clock: EngineClock) throws {
        gps = GPSDClient(host: config.gpsdHost, port: config.gpsdPort, clock: clock)
        imu = try IMUService.make(spec: specs.imu, config: DaemonConfigValidator.imuServiceConfig(config),
                                  clock: .engine(clock))
        do {
            baro = try BaroService.make(spec: specs.baro, clock: .engine(clock))
        } catch {
            throw ConfigError(key: "baro.source", value: config.baroSource, allowed: "a barometer trace (\(error))")
        }
        do {
            battery = try BatteryService.make(spec: specs.battery,
                                              config: BatteryServiceConfig(interval: config.battery.interval),
                                              clock: .engine(clock), powerSupplyRoot: config.battery.powerSupplyDir)
        } catch {
            throw ConfigError(key: "battery.source", value: config.battery.source, allowed: error.description)
        }
        switch specs.heartRate {
        case .none:
            heartRate = nil
        case let .ble(address):
            heartRate = BlueZClient(address: address, clock: clock)
        case let .replay(path, _):
            do {
                heartRate = try HeartRateReplay(path: path, clock: .engine(clock))
            } catch {
                throw ConfigError(key: "hr.source", value: config.hrSource, allowed: "a heart-rate trace (\(error))")
            }
        }
    }

    /// Starts every adapter; a replay recorded on the receiver's clock plays
    /// once that clock is known (gpsd's first timed fix).
    func start(clock: EngineClock, logger: Logger) {
        gps.start()
        battery?.start()
        if let imu, !imu.waitsForReceiver { imu.start() }
        if let baro, !baro.waitsForReceiver { baro.start() }
        if let heartRate, !heartRate.waitsForReceiver { heartRate.start() }
        guard imu?.waitsForReceiver == true || baro?.waitsForReceiver == true || heartRate?.waitsForReceiver == true else {
            return
        }
        logger.info("replays on the receiver's clock start with gpsd's first timed fix")
        clock.whenReceiverKnown { [imu, baro, heartRate] in
            if let imu, imu.waitsForReceiver { imu.start() }
            if let baro, baro.waitsForReceiver { baro.start() }
            if let heartRate, heartRate.waitsForReceiver { heartRate.start() }
            let offset = clock.receiverOffset ?? 0
            logger.info("replays placed on the receiver's clock at \(clock.now() + offset) (receiver minus engine \(offset) s)")
        }
    }

    /// Each adapter's health as `STATUS` reports it, read now.
    var readings: AdapterReadings {
        AdapterReadings(gps: gps.health, gpsConnects: gps.connects, imu: imu.map { IMUStatus($0.status) } ?? .none,
                        baro: baro.map { BaroStatus($0.status) }, heartRate: heartRate?.status, battery: battery?.status)
    }

    /// A sensor is delivering, so it rings when fixes stop coming (`BatchHold`):
    /// a watched session then needs no heartbeat timer of its own.
    var sensorsRing: Bool {
        let imuOn = imu.map { $0.status.health != .lost && !$0.status.endOfTrace } ?? false
        let baroOn = baro.map { $0.status.health != .lost && !$0.status.endOfTrace } ?? false
        return imuOn || baroOn
    }

    /// Whether a session needs the sensors: without one the IMU and the
    /// barometer sleep and gpsd's fixes are taken every 15 s.
    func want(_ active: Bool) {
        gps.want(active)
        imu?.want(active)
        baro?.want(active)
    }

    func stop() {
        gps.stop()
        imu?.stop()
        baro?.stop()
        heartRate?.stop()
        battery?.stop()
    }
}

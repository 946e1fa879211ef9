import Foundation
import Logging
import MoonRunnerCore
import MoonRunnerExport
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import ServiceLifecycle

/// The shell: wires the adapters to the session service and runs them until
/// SIGTERM/SIGINT, then commits and exits. It decides nothing itself.
public struct Daemon: Service {
    public let config: DaemonConfig
    private let logger: Logger

    public init(config: DaemonConfig, logger: Logger) {
        self.config = config
        self.logger = logger
    }

    /// Builds everything and runs under a ServiceGroup that turns SIGTERM and
    /// SIGINT into a graceful shutdown.
    public static func main(config: DaemonConfig, logger: Logger) async throws {
        let daemon = Daemon(config: config, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: daemon)],
                                                      gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        try await group.run()
    }

    public func run() async throws {
        let notifier = SystemdNotifier()
        let imuSpec = try DaemonConfigValidator.imuSpec(config)
        let baroSpec = try DaemonConfigValidator.baroSpec(config)
        let hrSpec = try DaemonConfigValidator.hrSpec(config)
        // The socket first: a second daemon beside a live one, or a socket in a
        // shared directory, is refused for what it is before anything is opened.
        let listenFD = SystemdNotifier.activatedSocket()
        if listenFD == nil { try SocketDirectory.prepare(socketPath: config.socketPath, logger: logger) }
        // The daemon writes the store; a second one on the same state folder must not.
        let store: SessionStore
        do {
            store = try SessionStore(directory: config.stateDir, writerWait: 5,
                                     consolidationInterval: config.consolidateInterval)
        } catch let error as StoreError {
            if case .readOnly = error {
                throw ConfigError(key: "state_dir", value: config.stateDir,
                                  allowed: "a folder no other moonrunnerd is writing (\(error))")
            }
            throw error
        }
        if let damage = store.recoveredFromDamage { logger.critical("\(damage)") }
        // After a restart the clock must not run behind what is already stored.
        // A replay keeps pace with the GPS feed, whose speed gpsfake only approximates.
        var replaying = false
        if case .replay = imuSpec { replaying = true }
        if case .replay = baroSpec { replaying = true }
        if case .replay = hrSpec { replaying = true }
        let clock = EngineClock(speed: try DaemonConfigValidator.replaySpeed(config),
                                offset: try await Self.clockOffset(store), followReceiver: replaying)
        let service = SessionService(config: config, store: store, clock: clock, logger: logger)
        await service.recover()

        let gps = GPSDClient(host: config.gpsdHost, port: config.gpsdPort, clock: clock)
        let imu = try IMUService(spec: imuSpec, config: DaemonConfigValidator.imuServiceConfig(config), clock: .engine(clock))
        let baro: BaroService?
        do {
            baro = try BaroService.make(spec: baroSpec, clock: .engine(clock))
        } catch {
            throw ConfigError(key: "baro.source", value: config.baroSource, allowed: "a barometer trace (\(error))")
        }
        let heartRate: (any HeartRateSource)?
        switch hrSpec {
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
        let units = config.units
        let server = ControlServer(config: config, service: service, logger: logger) { id, format throws(RequestError) in
            guard let f = ExportFormat(rawValue: format) else {
                throw RequestError(.badParameter, "\"format\" must be one of \(ExportFormat.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let session = try await service.exportSession(id: id)
            // The file is written here, off the session actor, so a big export never holds up the sensors.
            return ExportFile(session: id, format: format, mediaType: f.mimeType, data: f.export(session, units: units))
        }
        let capture = RawIMUCapture(directory: config.stateDir, megabytes: config.rawIMUCaptureMB, now: clock.now(),
                                    logger: logger)

        gps.start()
        // A replay recorded on the receiver's clock plays once that clock is known.
        if !imu.waitsForReceiver { imu.start() }
        if let baro, !baro.waitsForReceiver { baro.start() }
        if let heartRate, !heartRate.waitsForReceiver { heartRate.start() }
        if imu.waitsForReceiver || baro?.waitsForReceiver == true || heartRate?.waitsForReceiver == true {
            logger.info("replays on the receiver's clock start with gpsd's first timed fix")
            let log = logger
            clock.whenReceiverKnown {
                if imu.waitsForReceiver { imu.start() }
                if let baro, baro.waitsForReceiver { baro.start() }
                if let heartRate, heartRate.waitsForReceiver { heartRate.start() }
                let offset = clock.receiverOffset ?? 0
                log.info("replays placed on the receiver's clock at \(clock.now() + offset) (receiver minus engine \(offset) s)")
            }
        }
        logger.info("moonrunnerd started: gpsd \(config.gpsdHost):\(config.gpsdPort), imu \(config.imuSource), baro \(config.baroSource), hr \(config.hrSource), state \(config.stateDir)")
        do {
            try await cancelWhenGracefulShutdown {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    group.addTask { try await server.run(listenFD: listenFD) }
                    group.addTask {
                        for await update in gps.updates {
                            switch update {
                            case let .fix(fix, at): await service.ingest(fix: fix, at: at)
                            case .health: break
                            }
                        }
                    }
                    group.addTask {
                        for await batch in imu.batches {
                            capture?.append(batch.samples)
                            await service.ingest(samples: batch.samples)
                        }
                    }
                    if let baro {
                        group.addTask {
                            for await batch in baro.batches { await service.ingest(baro: batch.samples) }
                        }
                    }
                    if let heartRate {
                        group.addTask { await Self.relay(heartRate, to: service) }
                        await service.update(heartRate: heartRate.status, detail: nil)
                    }
                    group.addTask {
                        notifier.ready(status: "recording ready")
                        let watchdog = notifier.watchdogPingInterval
                        var lastPing = 0.0
                        while !Task.isCancelled {
                            try await Task.sleep(for: .seconds(1))
                            await service.update(gpsHealth: gps.health.rawValue, connects: gps.connects)
                            let s = imu.status
                            await service.update(imu: IMUStatus(health: s.health.rawValue, samples: s.counters.samples,
                                                                rejected: s.counters.rejected,
                                                                busErrors: s.counters.busErrors,
                                                                overflows: s.counters.overflows,
                                                                fifoResets: s.counters.fifoResets,
                                                                reinitializations: max(0, s.counters.initializations - 1),
                                                                lastError: s.lastError))
                            if let b = baro?.status {
                                await service.update(baro: BaroStatus(health: b.health.rawValue,
                                                                      busErrors: b.counters.busErrors,
                                                                      reinitializations: max(0, b.counters.initializations - 1),
                                                                      device: b.device, lastError: b.lastError))
                            }
                            if let h = heartRate?.status { await service.refresh(heartRate: h) }
                            await service.tick()
                            if let w = watchdog, EngineClock.monotonic() - lastPing >= w {
                                notifier.watchdog()
                                lastPing = EngineClock.monotonic()
                            }
                            notifier.status(await service.oneLineStatus())
                        }
                    }
                    try await group.next()
                    group.cancelAll()
                }
            }
        } catch is CancellationError {
            // Graceful shutdown.
        } catch {
            logger.error("stopping after an error: \(error)")
            notifier.stopping()
            gps.stop()
            imu.stop()
            baro?.stop()
            heartRate?.stop()
            await service.shutdown()
            throw error
        }
        notifier.stopping()
        gps.stop()
        imu.stop()
        baro?.stop()
        heartRate?.stop()
        await service.shutdown()
        logger.info("moonrunnerd stopped; everything recorded is committed")
    }

    /// Hands the strap's readings and link changes to the session service.
    private static func relay(_ source: any HeartRateSource, to service: SessionService) async {
        for await update in source.updates {
            switch update {
            case let .sample(s): await service.ingest(heartRate: s)
            case let .status(status, detail): await service.update(heartRate: status, detail: detail)
            }
        }
    }

    /// How far the newest stored time is ahead of the wall clock (accelerated
    /// replays run ahead of it), so that a restarted clock continues after it.
    private static func clockOffset(_ store: SessionStore) async throws -> Double {
        guard let newest = try await store.sessions(limit: 1).first else { return 0 }
        return max(0, newest.updatedAt - Date().timeIntervalSince1970 + 1)
    }
}


import Foundation
import Logging
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerProtocol
import MoonRunnerSensors
import MoonRunnerStore
import MoonRunnerSystem
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
    /// SIGINT into a graceful shutdown, every task on the daemon's event loop.
    public static func main(config: DaemonConfig, logger: Logger) async throws {
        let daemon = Daemon(config: config, logger: logger)
        let group = ServiceGroup(configuration: .init(services: [.init(service: daemon)],
                                                      gracefulShutdownSignals: [.sigterm, .sigint],
                                                      logger: logger))
        try await withTaskExecutorPreference(EventLoopTaskExecutor.daemon) {
            try await group.run()
        }
    }

    public func run() async throws {
        let notifier = SystemdNotifier()
        let specs = try InputAdapters.Specs(config)
        // The socket first: a second daemon beside a live one, or a socket in a
        // shared directory, is refused for what it is before anything is opened.
        let listenFD = SystemdNotifier.activatedSocket()
        if listenFD == nil { try SocketDirectory.prepare(socketPath: config.socketPath, logger: logger) }
        let store = try openStore()
        if let damage = store.recoveredFromDamage { logger.critical("\(damage)") }
        // Buffered commits write 4 KB each where direct ones write 512 bytes: worth a notice.
        if let mode = store.journalWriteMode {
            logger.log(level: mode.hasPrefix("direct") ? .info : .notice, "store journal: \(mode)")
        }
        // After a restart the clock must not run behind what is already stored.
        let clock = EngineClock(speed: try DaemonConfigValidator.replaySpeed(config),
                                offset: try await Self.clockOffset(store), followReceiver: specs.replaying)
        let service = SessionService(config: config, store: store, clock: clock, logger: logger)
        await service.recover()

        let inputs = try InputAdapters(specs, config: config, clock: clock)
        let archive = SessionArchive(service: service, store: store, config: config)
        let server = ControlServer(config: config, logger: logger,
                                   router: RequestRouter(config: config, service: service, archive: archive, logger: logger))
        let capture = RawIMUCapture(directory: config.stateDir, megabytes: config.rawIMUCaptureMB, now: clock.now(),
                                    logger: logger)
        inputs.start(clock: clock, logger: logger)
        logger.info("moonrunnerd started: gpsd \(config.gpsdHost):\(config.gpsdPort), imu \(config.imuSource), baro \(config.baroSource), hr \(config.hrSource), state \(config.stateDir)")
        var failure: (any Error)?
        do {
            try await cancelWhenGracefulShutdown {
                try await Self.serve(server, listenFD: listenFD, inputs: inputs, service: service, capture: capture,
                                     notifier: notifier, config: config, logger: logger)
            }
        } catch is CancellationError {
            // Graceful shutdown.
        } catch {
            logger.error("stopping after an error: \(error)")
            failure = error
        }
        notifier.stopping()
        inputs.stop()
        await service.shutdown()
        if let failure { throw failure }
        logger.info("moonrunnerd stopped; everything recorded is committed")
    }

    /// The daemon writes the store; a second one on the same state folder must not.
    private func openStore() throws -> SessionStore {
        do {
            return try SessionStore(directory: config.stateDir, writerWait: 5,
                                    consolidationInterval: config.consolidateInterval)
        } catch let error as StoreError {
            if case .readOnly = error {
                throw ConfigError(key: "state_dir", value: config.stateDir,
                                  allowed: "a folder no other moonrunnerd is writing (\(error))")
            }
            throw error
        }
    }

    /// Runs the control socket and every feed until one of them ends or the
    /// shutdown cancels them.
    private static func serve(_ server: ControlServer, listenFD: CInt?, inputs: InputAdapters, service: SessionService,
                              capture: RawIMUCapture?, notifier: SystemdNotifier, config: DaemonConfig,
                              logger: Logger) async throws {
        // STATUS says what each adapter is doing from the first request (without an IMU: "none", not "lost").
        await service.refresh(inputs.readings)
        // The sensors' batches wait for the next fix (or ring after 1.5 s): one wake a second.
        inputs.imu?.hold(upTo: 1.5)
        inputs.baro?.hold(upTo: 1.5)
        await service.connect(readings: { inputs.readings }, want: { inputs.want($0) }, held: {
            let imu = inputs.imu?.takeHeld() ?? []
            for batch in imu { capture?.append(batch.samples) }
            return HeldInputs(imu: imu, baro: inputs.baro?.takeHeld() ?? [])
        })
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask { try await server.run(listenFD: listenFD) }
            group.addTask { await service.consume(gps: inputs.gps) }
            if let imu = inputs.imu {
                group.addTask { await service.consume(rings: imu.batches) }
            }
            if let baro = inputs.baro {
                group.addTask { await service.consume(rings: baro.batches) }
            }
            if let battery = inputs.battery {
                group.addTask { await feed(battery, to: service, delay: config.battery.powerOffDelay, logger: logger) }
            }
            if let heartRate = inputs.heartRate {
                group.addTask { await relay(heartRate, to: service) }
                await service.update(heartRate: heartRate.status, detail: nil)
            }
            group.addTask { try await heartbeat(inputs, service: service, notifier: notifier, logger: logger) }
            try await group.next()
            group.cancelAll()
        }
    }

    /// Hands the gauge's readings to the session service; when the critical
    /// level asks for it, waits `delay` seconds (the announcer says why) and
    /// asks logind to power off, once.
    private static func feed(_ battery: BatteryService, to service: SessionService, delay: Double,
                             logger: Logger) async {
        var asked = false
        for await reading in battery.readings {
            guard await service.ingest(battery: reading), !asked else { continue }
            asked = true
            logger.critical("battery critical: powering off in \(Int(delay)) s")
            // Off the cooperative pool: the call blocks until logind answers.
            Thread.detachNewThread {
                Thread.sleep(forTimeInterval: delay)
                if let refused = LogindPowerOff.request() {
                    logger.error("\(refused)")
                } else {
                    logger.notice("logind accepted the power-off")
                }
            }
        }
    }

    /// While a session is active, once a second (every 5 s while nobody
    /// watches): the adapters' health into `STATUS` (and the journal, when it
    /// changes), time passes for the session, watchers get `STATUS`. Idle,
    /// every `idleStatusInterval` while watched (what changes in between is
    /// pushed as it comes), else only for systemd's watchdog; a session
    /// starting or a watcher joining wakes it. systemd hears that the daemon
    /// is alive (and how it does).
    private static func heartbeat(_ inputs: InputAdapters, service: SessionService,
                                  notifier: SystemdNotifier, logger: Logger) async throws {
        notifier.ready(status: "recording ready")
        let watchdog = notifier.watchdogPingInterval
        var lastPing = 0.0
        while !Task.isCancelled {
            let active = await service.isActive
            let watched = !service.watchers.isEmpty
            // Watched sessions tick with their fixes (`ingest(fix:)`), and when the fixes stop
            // with the sensors' rings; without a sensor every 2.5 s is the fallback.
            let upTo = active && watched && !inputs.sensorsRing ? 2.5
                : active || watched ? service.idleStatusInterval : watchdog ?? 3600
            await service.bell.wait(upTo: upTo)
            try Task.checkCancellation()
            let readings = inputs.readings
            await service.refresh(readings)
            let lastTick = await service.lastTick
            if !(active && watched) || MonotonicClock.now() - lastTick >= 2 { await service.tick() }
            if let w = watchdog, MonotonicClock.now() - lastPing >= w {
                notifier.watchdog()
                lastPing = MonotonicClock.now()
            }
            notifier.status(await service.oneLineStatus())
        }
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


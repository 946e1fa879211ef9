/// A driver error that can be the bus's own: both chips' drivers wrap
/// `I2CError` so, and a bus that could not be opened is opened again.
protocol BusDriverError: Error {
    static func bus(_ error: I2CError) -> Self
    /// The bus's error, when it was the bus that failed.
    var busError: I2CError? { get }
}

/// The device end of a sensor service's thread, the same for every chip: the
/// bus (opened once, and again only after opening it failed), the initialised
/// driver (nil while the device is dropped) and the `DeviceRecovery` that says
/// when to try again and what the health is. Owned by the thread alone.
struct SensorDevice<Driver> {
    private let openBus: @Sendable () throws(I2CError) -> any I2CBus
    private let clock: IMUClock
    private var bus: (any I2CBus)?
    /// The initialised driver; nil while the device is dropped.
    private(set) var driver: Driver?
    var recovery: DeviceRecovery
    /// A replayed recording has been played to its end: nothing follows but `stop()`.
    var ended = false

    init(openBus: @escaping @Sendable () throws(I2CError) -> any I2CBus, policy: DeviceRecovery.Policy, clock: IMUClock) {
        self.openBus = openBus
        self.clock = clock
        recovery = DeviceRecovery(policy: policy, now: clock.now())
    }

    /// `lost` without a driver or after the recording's end, else as the recovery has it.
    func health(at t: Double) -> IMUHealth {
        recovery.health(at: t, connected: !ended && driver != nil)
    }

    /// Opens the bus if it is not open and initialises a driver on it with
    /// `make`; the device then has until `lostAfter` to deliver.
    mutating func initialize<Failure: BusDriverError>(
        _ make: (any I2CBus) throws(Failure) -> Driver
    ) throws(Failure) -> Driver {
        let b: any I2CBus
        if let bus {
            b = bus
        } else {
            do { b = try openBus() } catch { throw .bus(error) }
            bus = b
        }
        let d = try make(b)
        driver = d
        recovery.connected(at: clock.now())
        return d
    }

    /// An initialisation failed: a fault counted and noted in `status`, and the
    /// next attempt after the back-off (on a bus opened again if opening it failed).
    mutating func initializationFailed<Failure: BusDriverError, Status: SensorStatus>(
        _ error: Failure, at t: Double, status: SensorStatusBox<Status>
    ) {
        recovery.fault(at: t)
        if let e = error.busError {
            if case .openFailed = e { bus = nil }
            status.update { $0.counters.busErrors += 1 }
        }
        status.update { $0.counters.initFailures += 1 }
        status.noteFault("initialisation failed: \(error)", at: t)
        drop(at: t)
    }

    /// The device is dropped: the next initialisation waits the back-off.
    mutating func drop(at t: Double) {
        driver = nil
        recovery.scheduleReinit(at: t)
    }

    /// The driver is let go without a new attempt: the recording has ended. (When the thread
    /// stops, the driver is only put to sleep: the last health reported stays that of a device.)
    mutating func release() -> Driver? {
        defer { driver = nil }
        return driver
    }
}

import Synchronization

/// The counters every sensor service keeps, whatever its chip.
protocol SensorCounters: Sendable {
    var busErrors: Int { get set }
    var initializations: Int { get set }
    var initFailures: Int { get set }
    var droppedBatches: Int { get set }
}

/// What every sensor service's status reports, so that the steps the services
/// share (an initialisation counted, a fault noted) are written once.
protocol SensorStatus: Sendable {
    associatedtype Counters: SensorCounters
    var health: IMUHealth { get set }
    var counters: Counters { get set }
    var device: String? { get set }
    var lastError: String? { get set }
    var lastErrorTime: Double? { get set }
    var endOfTrace: Bool { get set }
    var running: Bool { get set }
}

/// A sensor service's status: written by its thread, read as a snapshot from
/// any other, under one lock.
final class SensorStatusBox<Status: SensorStatus>: Sendable {
    private let state: Mutex<Status>

    init(_ status: Status) {
        state = Mutex(status)
    }

    var value: Status { state.withLock { $0 } }

    func update(_ body: (inout Status) -> Void) {
        state.withLock { body(&$0) }
    }

    /// The most recent fault, for humans, with the engine time it happened at.
    func noteFault(_ message: String, at t: Double) {
        update {
            $0.lastError = message
            $0.lastErrorTime = t
        }
    }
}

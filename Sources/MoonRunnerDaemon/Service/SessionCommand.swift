import MoonRunnerCore

/// The commands that act on the session already open: `?PAUSE`, `?RESUME`,
/// `?LAP` and `?STOP` (`?START` opens one, with more to say).
public enum SessionCommand: String, Sendable, CaseIterable {
    case pause, resume, lap, stop

    /// Runs the command on `engine` at engine time `t`.
    func run(on engine: inout SessionEngine, at t: Double, emit: (EngineOutput) -> Void) throws(SessionCommandError) {
        switch self {
        case .pause: try engine.pause(at: t, emit: emit)
        case .resume: try engine.resume(at: t, emit: emit)
        case .lap: try engine.lap(at: t, emit: emit)
        case .stop: try engine.stop(at: t, emit: emit)
        }
    }
}

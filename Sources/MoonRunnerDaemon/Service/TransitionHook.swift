import Foundation
import Logging
import MoonRunnerCore
import NIOCore

/// Runs the configured command on every state transition and navigation
/// event (to play a sound or buzz a motor, as the seed app did), detached
/// from the sensor path: it is started and forgotten, and killed if it
/// outlives its timeout.
struct TransitionHook: Sendable {
    let command: String
    let timeout: Double
    let logger: Logger

    func run(event: SessionEvent, session: Int64?) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        var env = ProcessInfo.processInfo.environment
        env["MOONRUNNER_EVENT"] = event.kind.rawValue
        env["MOONRUNNER_STATE"] = event.state.rawValue
        env["MOONRUNNER_CAUSE"] = event.cause
        env["MOONRUNNER_TIME"] = String(event.time)
        env["MOONRUNNER_SESSION"] = session.map(String.init) ?? ""
        env["MOONRUNNER_DETAIL"] = event.detail ?? ""
        if let cue = event.cue {
            // turn_ahead, turn_now: what the cue says, where and how far.
            env["MOONRUNNER_CUE_KIND"] = cue.kind.rawValue
            env["MOONRUNNER_CUE_NAME"] = cue.name ?? ""
            env["MOONRUNNER_CUE_DISTANCE_M"] = String(Int(cue.distanceM.rounded()))
            env["MOONRUNNER_CUE_COURSE_M"] = String(Int(cue.courseM.rounded()))
        }
        if let w = event.workout {
            // The workout events: the step as run, and an alert's measure.
            env["MOONRUNNER_WORKOUT_INDEX"] = String(w.step.index)
            env["MOONRUNNER_WORKOUT_STEPS"] = String(w.steps)
            env["MOONRUNNER_WORKOUT_WKT_STEP_INDEX"] = String(w.step.wktStepIndex)
            env["MOONRUNNER_WORKOUT_REPEAT"] = String(w.step.round)
            env["MOONRUNNER_WORKOUT_INTENSITY"] = w.step.intensity.rawValue
            env["MOONRUNNER_WORKOUT_MEASURE"] = w.measure?.rawValue ?? ""
        }
        process.environment = env
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            logger.warning("transition hook could not start: \(error)")
            return
        }
        let timeout = self.timeout
        let logger = self.logger
        let pid = process.processIdentifier
        // One wake-up at the timeout, on an event loop's timer, cancelled when the hook exits first.
        let reaper = EventLoopTaskExecutor.daemon.loop.scheduleTask(in: .nanoseconds(Int64(timeout * 1e9))) {
            guard process.isRunning else { return }
            kill(pid, SIGKILL)
            logger.warning("transition hook killed after \(timeout) s")
        }
        process.terminationHandler = { _ in reaper.cancel() }
    }
}

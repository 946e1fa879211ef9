import CProcessFD
import FoundationEssentials
import Glibc
import MoonRunnerSystem

/// A helper program (espeak-ng, aplay) started with posix_spawnp, with our
/// ends of its standard input and output as pipes. Our ends are
/// close-on-exec, so one child never holds another's pipe open.
final class Subprocess {
    let pid: pid_t
    /// Our end of its standard input (-1 when not piped).
    private(set) var input: Int32 = -1
    /// Our end of its standard output (-1 when not piped).
    private(set) var output: Int32 = -1
    private var exitStatus: Int32?
    /// Polls readable once the child has exited (-1 on a kernel before 5.3).
    private let exitWatch: Int32

    struct SpawnError: Error, CustomStringConvertible {
        var program: String
        var code: Int32
        var notInstalled: Bool { code == ENOENT }
        var description: String { "cannot start \(program): \(String(cString: strerror(code)))" }
    }

    init(_ program: String, _ args: [String], pipeInput: Bool, pipeOutput: Bool) throws(SpawnError) {
        var inPipe: [Int32] = [-1, -1], outPipe: [Int32] = [-1, -1]
        // Only the speaker thread starts children, so setting close-on-exec
        // right after pipe() races with no other spawn.
        if pipeInput { guard pipe(&inPipe) == 0 else { throw SpawnError(program: program, code: errno) } }
        if pipeOutput { guard pipe(&outPipe) == 0 else { throw SpawnError(program: program, code: errno) } }
        for fd in inPipe + outPipe where fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        if pipeInput {
            posix_spawn_file_actions_adddup2(&actions, inPipe[0], 0)
        } else {
            posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        }
        if pipeOutput {
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        var attr = posix_spawnattr_t()
        posix_spawnattr_init(&attr)
        defer { posix_spawnattr_destroy(&attr) }
        // The announcer ignores SIGPIPE and blocks SIGTERM/SIGINT for sigwait: children get the defaults.
        var none = sigset_t()
        sigemptyset(&none)
        posix_spawnattr_setsigmask(&attr, &none)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for sig in [SIGPIPE, SIGINT, SIGTERM, SIGHUP] { sigaddset(&defaults, sig) }
        posix_spawnattr_setsigdefault(&attr, &defaults)
        posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([program] + args).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var child = pid_t()
        let rc = posix_spawnp(&child, program, &actions, &attr, argv, environ)
        for fd in [inPipe[0], outPipe[1]] where fd >= 0 { close(fd) }
        guard rc == 0 else {
            for fd in [inPipe[1], outPipe[0]] where fd >= 0 { close(fd) }
            throw SpawnError(program: program, code: rc)
        }
        pid = child
        input = inPipe[1]
        output = outPipe[0]
        exitWatch = pidfd_open(child, 0)
    }

    deinit {
        closeInput()
        if output >= 0 { close(output) }
        if exitStatus == nil {
            kill(pid, SIGKILL)
            _ = wait(timeout: 1)
        }
        if exitWatch >= 0 { close(exitWatch) }
    }

    func closeInput() {
        if input >= 0 { close(input) }
        input = -1
    }

    /// Waits up to `timeout` seconds for the exit; kills it after that. Its status, or nil when killed.
    /// Sleeps in poll(2) on the child's pidfd until it exits or the time is up.
    @discardableResult
    func wait(timeout: Double) -> Int32? {
        if let exitStatus { return exitStatus }
        let deadline = MonotonicClock.now() + timeout
        var exited = reap(blocking: false)
        if !exited, exitWatch >= 0 {
            // The pidfd turns readable when the child has exited.
            exited = ready(exitWatch, write: false, until: deadline) && reap(blocking: true)
        }
        while !exited && MonotonicClock.now() < deadline {
            // A kernel without pidfd (before 5.3): look again shortly.
            usleep(5_000)
            exited = reap(blocking: false)
        }
        if !exited {
            kill(pid, SIGKILL)
            _ = reap(blocking: true)
            exitStatus = -1
            return nil
        }
        return exitStatus
    }

    /// Collects the child's exit status; true once it has exited (or cannot be waited for).
    private func reap(blocking: Bool) -> Bool {
        var status: Int32 = 0
        var r: pid_t
        repeat { r = waitpid(pid, &status, blocking ? 0 : WNOHANG) } while r < 0 && errno == EINTR
        if r == pid {
            exitStatus = status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
            return true
        }
        if r < 0 {
            exitStatus = -1
            return true
        }
        return false
    }
}

/// Waits until `fd` can be read (or written) or `deadline` (monotonic) passes.
func ready(_ fd: Int32, write: Bool, until deadline: Double) -> Bool {
    while true {
        let left = deadline - MonotonicClock.now()
        if left <= 0 { return false }
        var p = pollfd(fd: fd, events: Int16(write ? POLLOUT : POLLIN), revents: 0)
        let n = poll(&p, 1, Int32(min(left, 1) * 1000) + 1)
        if n > 0 { return true }
        if n < 0 && errno != EINTR { return false }
    }
}

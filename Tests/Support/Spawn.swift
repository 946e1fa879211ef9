import Foundation

/// What went wrong starting or running a helper process in a test.
public struct SpawnError: Error, CustomStringConvertible {
    public var description: String
    public init(_ d: String) { description = d }
}

/// Starts a program with posix_spawn in its own process group: stdin from
/// /dev/null, stdout and stderr to the given descriptors, default signal
/// dispositions. (Foundation's Process is not safe to use from many test
/// threads at once on Linux: it crashed here spawning in parallel.)
public func spawnProcess(_ executable: String, _ args: [String], env: [String: String], stdout: Int32, stderr: Int32,
                  locked: Bool = false) throws -> pid_t {
    if !locked { spawnLock.lock() }
    defer { if !locked { spawnLock.unlock() } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_adddup2(&actions, stdout, 1)
    posix_spawn_file_actions_adddup2(&actions, stderr, 2)
    var attr = posix_spawnattr_t()
    posix_spawnattr_init(&attr)
    defer { posix_spawnattr_destroy(&attr) }
    posix_spawnattr_setpgroup(&attr, 0)
    var mask = sigset_t()
    sigemptyset(&mask)
    posix_spawnattr_setsigmask(&attr, &mask)
    var defaults = sigset_t()
    sigemptyset(&defaults)
    for sig in [SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2] { sigaddset(&defaults, sig) }
    posix_spawnattr_setsigdefault(&attr, &defaults)
    posix_spawnattr_setflags(&attr, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

    var environment = ProcessInfo.processInfo.environment
    for (k, v) in env { environment[k] = v }
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + args).map { strdup($0) } + [nil]
    let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer {
        for p in argv { free(p) }
        for p in envp { free(p) }
    }
    var pid = pid_t()
    let rc = posix_spawn(&pid, executable, &actions, &attr, argv, envp)
    guard rc == 0 else { throw SpawnError("cannot start \(executable): \(String(cString: strerror(rc)))") }
    return pid
}

/// Serialises spawning with making descriptors close-on-exec.
public let spawnLock = NSLock()

/// waitpid without blocking: the exit status once the child has ended.
public func reap(_ pid: pid_t) -> Int32? {
    var status: Int32 = 0
    let r = waitpid(pid, &status, WNOHANG)
    guard r == pid else { return nil }
    // WIFEXITED / WEXITSTATUS / WTERMSIG, spelled out (they are C macros).
    if status & 0x7f == 0 { return (status >> 8) & 0xff }
    return 128 + (status & 0x7f)
}

/// A child process with its output in a log file, killed (with its process
/// group) on deinit.
public final class Child: @unchecked Sendable {
    public let pid: pid_t
    public let output: URL
    public let ownGroup: Bool
    private let lock = NSLock()
    private var exitStatus: Int32?

    /// Every child gets its own process group; with `ownGroup` signals go to
    /// the whole group, so that gpsfake and its gpsd die together.
    public init(_ executable: String, _ args: [String], log: URL, ownGroup: Bool = false, env: [String: String] = [:]) throws {
        output = log
        self.ownGroup = ownGroup
        let fd = open(log.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw SpawnError("cannot open \(log.path)") }
        defer { close(fd) }
        pid = try spawnProcess(executable, args, env: env, stdout: fd, stderr: fd)
    }

    public var isRunning: Bool { status == nil }

    /// The exit status once the child has ended (reaped at most once).
    public var status: Int32? {
        lock.lock()
        defer { lock.unlock() }
        if exitStatus == nil { exitStatus = reap(pid) }
        return exitStatus
    }

    public var log: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }

    public func signal(_ sig: Int32) {
        if ownGroup {
            // The group may outlive its leader (gpsd after gpsfake).
            kill(-pid, sig)
        } else if isRunning {
            kill(pid, sig)
        }
    }

    /// Waits up to `timeout` seconds for the process to exit; returns its status or nil.
    public func wait(timeout: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while isRunning && Date() < deadline { usleep(10_000) }
        return status
    }

    deinit {
        signal(SIGKILL)
        _ = wait(timeout: 2)
    }
}

/// Runs a command to completion and returns (status, stdout, stderr).
@discardableResult
public func run(_ executable: String, _ args: [String], timeout: Double = 30, env: [String: String] = [:]) throws
    -> (status: Int32, out: String, err: String) {
    var outPipe: [Int32] = [0, 0], errPipe: [Int32] = [0, 0]
    let pid: pid_t
    // Pipes are made close-on-exec under the spawn lock, so that no other
    // child (a daemon started meanwhile) inherits their write ends.
    spawnLock.lock()
    do {
        guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else {
            spawnLock.unlock()
            throw SpawnError("pipe failed")
        }
        for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        pid = try spawnProcess(executable, args, env: env, stdout: outPipe[1], stderr: errPipe[1], locked: true)
        spawnLock.unlock()
    } catch {
        spawnLock.unlock()
        for fd in outPipe + errPipe { close(fd) }
        throw error
    }
    close(outPipe[1])
    close(errPipe[1])
    defer {
        close(outPipe[0])
        close(errPipe[0])
    }
    // Read both pipes as the child writes, so that a full pipe never blocks it.
    var out: [UInt8] = [], err: [UInt8] = []
    var open = [outPipe[0]: true, errPipe[0]: true]
    let deadline = Date().addingTimeInterval(timeout)
    var buffer = [UInt8](repeating: 0, count: 65536)
    while open.values.contains(true) {
        let remaining = deadline.timeIntervalSinceNow
        if remaining <= 0 {
            kill(-pid, SIGKILL)
            _ = waitpid(pid, nil, 0)
            throw SpawnError("\(executable) \(args.joined(separator: " ")) timed out after \(timeout) s")
        }
        var fds = open.filter(\.value).map { pollfd(fd: $0.key, events: Int16(POLLIN), revents: 0) }
        let n = poll(&fds, nfds_t(fds.count), Int32(min(remaining, 1) * 1000))
        if n < 0 && errno != EINTR { throw SpawnError("poll failed") }
        for p in fds where p.revents != 0 {
            let got = buffer.withUnsafeMutableBytes { Glibc.read(p.fd, $0.baseAddress, $0.count) }
            if got > 0 {
                if p.fd == outPipe[0] { out += buffer[..<got] } else { err += buffer[..<got] }
            } else if got == 0 || (errno != EINTR && errno != EAGAIN) {
                open[p.fd] = false
            }
        }
    }
    var status: Int32?
    while status == nil {
        status = reap(pid)
        if status == nil {
            if deadline.timeIntervalSinceNow <= 0 {
                kill(-pid, SIGKILL)
                _ = waitpid(pid, nil, 0)
                throw SpawnError("\(executable) \(args.joined(separator: " ")) timed out after \(timeout) s")
            }
            usleep(2_000)
        }
    }
    return (status ?? -1, String(decoding: out, as: UTF8.self), String(decoding: err, as: UTF8.self))
}


import Foundation
import Logging
import MoonRunnerConfig
import MoonRunnerCore

/// The directory that holds the control socket is what keeps other users
/// out (as chrony does): only the daemon's user and group may enter it. This
/// prepares it before binding and refuses to serve from a directory that
/// others can enter and that the daemon cannot fix.
enum SocketDirectory {
    /// Mode of a directory the daemon creates: rwx for its user, r-x for its group.
    static let mode: mode_t = 0o750

    /// Creates the directory 0750 if missing, tightens one the daemon owns,
    /// refuses a shared one, and clears a stale socket file left by a crash.
    static func prepare(socketPath: String, logger: Logger) throws(ConfigError) {
        let dir = directory(of: socketPath)
        var st = stat()
        if stat(dir, &st) != 0 {
            guard errno == ENOENT else { throw refusal(socketPath, "\(dir) cannot be examined: \(String(cString: strerror(errno)))") }
            let parent = directory(of: dir)
            do {
                try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
            } catch {
                throw refusal(socketPath, "\(parent) cannot be created: \(error.localizedDescription)")
            }
            guard mkdir(dir, mode) == 0 || errno == EEXIST else {
                throw refusal(socketPath, "\(dir) cannot be created: \(String(cString: strerror(errno)))")
            }
            // mkdir applies the umask; set the mode we mean.
            chmod(dir, mode)
            logger.info("control socket: created \(dir) with mode 0750")
            guard stat(dir, &st) == 0 else { throw refusal(socketPath, "\(dir) vanished after it was created") }
        }
        guard st.st_mode & S_IFMT == S_IFDIR else { throw refusal(socketPath, "\(dir) is not a directory") }
        let bits = st.st_mode & 0o7777
        // Others must not enter; the group must not replace the socket with its own.
        if bits & 0o027 != 0 {
            let shared = bits & S_ISVTX != 0
            guard st.st_uid == geteuid(), !shared else {
                throw refusal(socketPath, "\(dir) has mode \(octal(bits)) and belongs to uid \(st.st_uid), so other users "
                    + "can reach the socket; use a directory only the daemon's user and group can enter, "
                    + "such as /run/moonrunner (mode 0750)")
            }
            let tightened = bits & ~mode_t(0o027)
            guard chmod(dir, tightened) == 0 else {
                throw refusal(socketPath, "\(dir) has mode \(octal(bits)) and cannot be tightened: \(String(cString: strerror(errno)))")
            }
            logger.notice("control socket: tightened \(dir) from \(octal(bits)) to \(octal(tightened)) so that only the daemon's user and group can enter")
        }
        try clearStale(socketPath)
    }

    /// Removes a socket file nobody listens on; refuses to take over a live one.
    private static func clearStale(_ path: String) throws(ConfigError) {
        var st = stat()
        guard lstat(path, &st) == 0 else { return }
        guard st.st_mode & S_IFMT == S_IFSOCK else {
            throw refusal(path, "\(path) exists and is not a socket; remove it or choose another socket.path")
        }
        if canConnect(path) {
            throw refusal(path, "another process (another moonrunnerd?) is listening on \(path); stop it or choose another socket.path")
        }
        unlink(path)
    }

    static func canConnect(_ path: String) -> Bool {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var addr = sockaddr_un()
        addr.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        guard bytes.count < MemoryLayout.size(ofValue: addr.sun_path) else { return false }
        withUnsafeMutableBytes(of: &addr.sun_path) { raw in for (i, b) in bytes.enumerated() { raw[i] = b } }
        return withUnsafePointer(to: &addr) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        } == 0
    }

    static func directory(of path: String) -> String {
        let d = (path as NSString).deletingLastPathComponent
        return d.isEmpty ? "." : d
    }

    private static func octal(_ m: mode_t) -> String { "0" + String(m, radix: 8) }

    private static func refusal(_ path: String, _ why: String) -> ConfigError {
        ConfigError(key: "socket.path", value: path, allowed: why)
    }
}

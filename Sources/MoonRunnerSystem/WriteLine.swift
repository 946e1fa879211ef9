import Glibc

/// Writes a whole log line to `fd`, retrying after a signal and after a short write: one
/// write(2) per line as a rule, so lines from different threads do not interleave. A
/// failure is dropped (a log has nowhere to report that it failed).
public func writeLine(_ line: String, to fd: Int32) {
    let bytes = Array(line.utf8)
    var done = 0
    while done < bytes.count {
        let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        if n < 0 && errno == EINTR { continue }
        guard n > 0 else { return }
        done += n
    }
}

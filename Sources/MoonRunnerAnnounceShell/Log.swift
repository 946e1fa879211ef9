import FoundationEssentials
import Glibc

/// Lines on standard error, which systemd puts in the journal.
enum Log {
    static func line(_ text: String) {
        let bytes = Array("moonrunner-announce: \(text)\n".utf8)
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(STDERR_FILENO, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return }   // nowhere to report that the log failed
            done += n
        }
    }
}

import FoundationEssentials
import Glibc
import MoonRunnerCore

/// A file descriptor written in full (short writes and EINTR continued), as
/// Foundation's `FileHandle` does; that lives in the full Foundation, which
/// would link ICU into the command-line tool.
struct OutputFile {
    struct WriteError: Error, CustomStringConvertible {
        var code: Int32
        var description: String { String(cString: strerror(code)) }
    }

    let fd: Int32

    static let standardOutput = OutputFile(fd: STDOUT_FILENO)
    static let standardError = OutputFile(fd: STDERR_FILENO)

    /// Creates (or empties) `path` for writing, mode 0666 less the umask, as `FileManager.createFile` does.
    static func create(path: String) throws(WriteError) -> OutputFile {
        let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0 else { throw WriteError(code: errno) }
        return OutputFile(fd: fd)
    }

    func write(contentsOf data: some DataProtocol) throws(WriteError) {
        for region in data.regions {
            let failed: Int32? = region.withUnsafeBytes { raw -> Int32? in
                guard let base = raw.baseAddress else { return nil }
                var done = 0
                while done < raw.count {
                    let n = Glibc.write(fd, base + done, raw.count - done)
                    if n < 0 {
                        if errno == EINTR { continue }
                        return errno
                    }
                    done += n
                }
                return nil
            }
            if let failed { throw WriteError(code: failed) }
        }
    }

    /// Writes `text`; a failure (a closed pipe) is not reported, as `FileHandle.write(_:)` reported none.
    func write(_ text: String) {
        try? write(contentsOf: Array(text.utf8))
    }

    func close() {
        _ = Glibc.close(fd)
    }
}

/// Local wall-clock text of a UNIX time, as DateFormatter prints it in the
/// process's time zone (`yyyy-MM-dd HH:mm`, `HH:mm:ss`).
enum LocalTime {
    static func dateAndMinute(_ t: Double) -> String {
        let tm = local(t)
        return "\(Int(tm.tm_year) + 1900)-\((tm.tm_mon + 1).zeroPadded(2))-\(tm.tm_mday.zeroPadded(2)) "
            + "\(tm.tm_hour.zeroPadded(2)):\(tm.tm_min.zeroPadded(2))"
    }

    static func clock(_ t: Double) -> String {
        let tm = local(t)
        return "\(tm.tm_hour.zeroPadded(2)):\(tm.tm_min.zeroPadded(2)):\(tm.tm_sec.zeroPadded(2))"
    }

    private static func local(_ t: Double) -> tm {
        var seconds = time_t(t.isFinite ? t.rounded(.down) : 0)
        var out = tm()
        localtime_r(&seconds, &out)
        return out
    }
}

import Glibc
import Logging
import MoonRunnerSystem

/// Log lines with their priority, as systemd's journal reads them.
///
/// Under systemd, standard output and error are a stream to journald and
/// `JOURNAL_STREAM` names it (device:inode). journald stores every line at the unit's default
/// priority (info) unless the line starts with `<N>`, its syslog priority
/// (sd-daemon(3)): a warning would read as info in `journalctl -p warning`. So
/// there each line is `<N>message`, without a time stamp (the journal keeps
/// its own). Anywhere else (a terminal, a test's pipe) the lines are swift-log's
/// `StreamLogHandler`'s, unchanged.
public struct JournalLogHandler: LogHandler {
    public var logLevel: Logger.Level = .info
    public var metadata: Logger.Metadata = [:]
    private let fd: Int32

    public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    /// The daemon's handler: the journal's form when standard error is the journal, else swift-log's.
    public static func standardError(label: String, level: Logger.Level) -> any LogHandler {
        handler(fd: STDERR_FILENO, level: level) { StreamLogHandler.standardError(label: label) }
    }

    /// The web app's: the same on standard output, where its lines have always gone.
    public static func standardOutput(label: String, level: Logger.Level) -> any LogHandler {
        handler(fd: STDOUT_FILENO, level: level) { StreamLogHandler.standardOutput(label: label) }
    }

    private static func handler(fd: Int32, level: Logger.Level,
                                elsewhere: () -> StreamLogHandler) -> any LogHandler {
        if isJournal(fd) {
            var handler = JournalLogHandler(fd: fd)
            handler.logLevel = level
            return handler
        }
        var handler = elsewhere()
        handler.logLevel = level
        return handler
    }

    init(fd: Int32) {
        self.fd = fd
    }

    public func log(event: LogEvent) {
        var text = "<\(Self.priority(event.level))>"
        if !event.source.isEmpty { text += "[\(event.source)] " }
        text += "\(event.message)"
        let all = metadata.merging(event.metadata ?? [:]) { $1 }
        if !all.isEmpty {
            text += " " + all.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
        }
        writeLine(text.replacingNewlines() + "\n", to: fd)
    }

    /// The syslog priority of a level (RFC 5424): what journald files the line under.
    static func priority(_ level: Logger.Level) -> Int {
        switch level {
        case .trace, .debug: return 7
        case .info: return 6
        case .notice: return 5
        case .warning: return 4
        case .error: return 3
        case .critical: return 2
        }
    }

    /// True when `fd` is the stream `JOURNAL_STREAM` names (systemd.exec(5)).
    static func isJournal(_ fd: Int32) -> Bool {
        guard let raw = getenv("JOURNAL_STREAM") else { return false }
        let parts = String(cString: raw).split(separator: ":")
        guard parts.count == 2, let dev = UInt64(parts[0]), let ino = UInt64(parts[1]) else { return false }
        var st = stat()
        guard fstat(fd, &st) == 0 else { return false }
        return UInt64(st.st_dev) == dev && UInt64(st.st_ino) == ino
    }
}

private extension String {
    /// A message of several lines stays one journal entry.
    func replacingNewlines() -> String {
        split(separator: "\n", omittingEmptySubsequences: false).joined(separator: " | ")
    }
}

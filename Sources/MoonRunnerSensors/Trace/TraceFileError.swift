/// A problem with a trace file (IMU or barometer); names the file and, for row errors, the 1-based line.
public struct TraceFileError: Error, CustomStringConvertible, Sendable, Equatable {
    public var path: String
    /// 1-based line number, or 0 when the problem is not tied to a line (open, read).
    public var line: Int
    public var message: String

    public init(path: String, line: Int, message: String) {
        self.path = path
        self.line = line
        self.message = message
    }

    public var description: String {
        line > 0 ? "\(path):\(line): \(message)" : "\(path): \(message)"
    }
}

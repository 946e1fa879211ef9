import Foundation

/// Lines on standard error, which systemd puts in the journal.
enum Log {
    static func line(_ text: String) {
        FileHandle.standardError.write(Data("moonrunner-announce: \(text)\n".utf8))
    }
}

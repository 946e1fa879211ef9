import Glibc
import MoonRunnerSystem

/// Lines on standard error, which systemd puts in the journal.
enum Log {
    static func line(_ text: String) {
        writeLine("moonrunner-announce: \(text)\n", to: STDERR_FILENO)
    }
}

import FoundationEssentials
import Glibc
import MoonRunnerAnnounceCore
import MoonRunnerSystem

/// Where the audio of one announcement goes.
protocol AudioSink {
    /// Opens for 16-bit mono PCM at `rate` Hz.
    mutating func begin(rate: Int) -> Bool
    /// Hands on samples; false when the sink failed and the rest is not wanted.
    mutating func write(_ pcm: [UInt8]) -> Bool
    /// Completes the announcement. False when it failed.
    mutating func finish(text: String) -> Bool
}

/// `--output DIR`: `NNNN.wav` and its text in `NNNN.txt`, each appearing
/// whole (written aside, then renamed).
struct DirectorySink: AudioSink {
    let directory: URL
    let number: Int
    private var fd: Int32 = -1
    private var rate = 22_050
    private var bytes = 0

    init(directory: URL, number: Int) {
        self.directory = directory
        self.number = number
    }

    var name: String { number.zeroPadded(4) }
    private var partial: URL { directory.appendingPathComponent(name + ".wav.part") }

    mutating func begin(rate: Int) -> Bool {
        self.rate = rate
        fd = open(partial.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o666)
        guard fd >= 0, Self.write(fd, WAV.header(rate: rate, dataBytes: 0)) else { return false }
        return true
    }

    mutating func write(_ pcm: [UInt8]) -> Bool {
        guard fd >= 0, Self.write(fd, pcm) else { return false }
        bytes += pcm.count
        return true
    }

    mutating func finish(text: String) -> Bool {
        guard fd >= 0 else { return false }
        defer { fd = -1 }
        let header = WAV.header(rate: rate, dataBytes: bytes)
        let rewritten = header.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) } == header.count
        guard close(fd) == 0, rewritten else { return false }
        do {
            // The sound first: whoever sees NNNN.txt finds NNNN.wav beside it.
            try FileManager.default.moveItem(at: partial, to: directory.appendingPathComponent(name + ".wav"))
            try Data((text + "\n").utf8).write(to: directory.appendingPathComponent(name + ".txt"), options: .atomic)
            return true
        } catch {
            return false
        }
    }

    /// All of `bytes` at the descriptor's position (short writes and EINTR continued).
    private static func write(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var done = 0
        while done < bytes.count {
            let n = bytes[done...].withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            guard n > 0 else { return false }
            done += n
        }
        return true
    }

    /// The number after the highest `NNNN.wav` already in `directory`, so a
    /// restarted announcer carries on the sequence instead of overwriting it.
    static func nextNumber(in directory: URL) -> Int {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        let numbers = names.compactMap { n -> Int? in
            guard n.hasSuffix(".wav") else { return nil }
            return Int(n.dropLast(4))
        }
        return (numbers.max() ?? 0) + 1
    }
}

/// The sound card through `aplay` (ALSA): raw PCM on its standard input.
/// A device that is missing, busy or too slow ends the announcement, never
/// the announcer: writes wait at most the audio's own length plus a margin.
struct ALSASink: AudioSink {
    let device: String
    private var player: Subprocess?
    private var rate = 22_050
    private var deadline = 0.0
    private(set) var failure: String?

    init(device: String) { self.device = device }

    mutating func begin(rate: Int) -> Bool {
        self.rate = rate
        do {
            let p = try Subprocess("aplay", ["-q", "-D", device, "-t", "raw", "-f", "S16_LE", "-r", String(rate), "-c", "1"],
                                   pipeInput: true, pipeOutput: false)
            _ = fcntl(p.input, F_SETFL, fcntl(p.input, F_GETFL) | O_NONBLOCK)
            player = p
            deadline = MonotonicClock.now() + 5
            return true
        } catch {
            failure = error.notInstalled ? "aplay is not installed (Debian package alsa-utils)" : error.description
            return false
        }
    }

    mutating func write(_ pcm: [UInt8]) -> Bool {
        guard let player else { return false }
        // Each piece may take as long as it plays, and a little more.
        deadline += Double(pcm.count / 2) / Double(rate)
        var sent = 0
        while sent < pcm.count {
            guard ready(player.input, write: true, until: deadline) else {
                failure = "the sound device \(device) did not play the audio in time (it took none)"
                return false
            }
            let n = pcm[sent...].withUnsafeBytes { Glibc.write(player.input, $0.baseAddress, $0.count) }
            if n < 0 {
                if errno == EINTR || errno == EAGAIN { continue }
                failure = "aplay stopped (\(String(cString: strerror(errno)))): no sound device \(device)?"
                return false
            }
            sent += n
        }
        return true
    }

    mutating func finish(text: String) -> Bool {
        guard let player else { return false }
        player.closeInput()
        let status = player.wait(timeout: max(1, deadline - MonotonicClock.now()))
        self.player = nil
        if failure == nil {
            if status == nil {
                failure = "the sound device \(device) did not play the audio in time (aplay killed)"
            } else if status != 0 {
                failure = "aplay failed (exit \(status ?? -1)) on \(device): no such sound device?"
            }
        }
        return failure == nil
    }
}

import FoundationEssentials
import Glibc
import MoonRunnerAnnounceCore
import MoonRunnerSystem

/// espeak-ng as a command: text in, a 16-bit mono WAV stream out, handed
/// on in pieces as it is made so that playing can start before the whole
/// sentence is synthesised.
struct Synthesizer {
    let voice: String
    let rateWPM: Int
    let volume: Int
    /// Longest a sentence may take to synthesise before espeak-ng is killed.
    var timeout = 10.0

    enum Failure: Error, CustomStringConvertible {
        case notInstalled
        case failed(String)
        var description: String {
            switch self {
            case .notInstalled: "espeak-ng is not installed (Debian package espeak-ng)"
            case let .failed(why): why
            }
        }
    }

    /// Synthesises `text`; `started` gets the sample rate once the header is
    /// read, `samples` each piece of PCM (little-endian 16-bit) as it comes.
    func speak(_ text: String, started: (Int) -> Void, samples: ([UInt8]) -> Bool) throws(Failure) {
        let child: Subprocess
        do {
            child = try Subprocess("espeak-ng", ["-b", "1", "-v", voice, "-s", String(rateWPM), "-a", String(volume),
                                                 "--stdout", "--", text], pipeInput: false, pipeOutput: true)
        } catch {
            throw error.notInstalled ? .notInstalled : .failed(error.description)
        }
        let deadline = MonotonicClock.now() + timeout
        var header: [UInt8] = []
        var begun = false
        var chunk = [UInt8](repeating: 0, count: 8192)
        var wanted = true
        while wanted {
            guard ready(child.output, write: false, until: deadline) else {
                child.wait(timeout: 0)
                throw .failed("espeak-ng took longer than \(Int(timeout)) s")
            }
            let n = chunk.withUnsafeMutableBytes { read(child.output, $0.baseAddress, $0.count) }
            if n < 0 && errno == EINTR { continue }
            if n <= 0 { break }
            if begun {
                wanted = samples(Array(chunk[..<n]))
                continue
            }
            header += chunk[..<n]
            if let (rate, offset) = WAV.pcmStart(of: header) {
                begun = true
                started(rate)
                if header.count > offset { wanted = samples(Array(header[offset...])) }
                header = []
            } else if header.count > 4096 {
                throw .failed("espeak-ng did not write a WAV stream")
            }
        }
        // The sink gave up (the sound device failed): espeak-ng is killed with the child.
        guard wanted else { return }
        let status = child.wait(timeout: max(0.5, deadline - MonotonicClock.now()))
        guard begun else { throw .failed("espeak-ng produced no audio (exit \(status.map(String.init) ?? "killed"))") }
    }
}

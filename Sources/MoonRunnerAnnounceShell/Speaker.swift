import FoundationEssentials
import Glibc
import MoonRunnerAnnounceCore
import MoonRunnerSystem

/// Says announcements one after another: cue tone, then the voice, to the
/// sound card or to numbered files. Nothing here can stop the announcer:
/// a missing espeak-ng or sound device is logged (once per kind) and the
/// next announcement is tried as usual.
final class Speaker: @unchecked Sendable {
    private let settings: AnnounceSettings
    private let output: URL?
    private var number: Int
    private var complaints: Set<String> = []

    init(settings: AnnounceSettings, output: URL?) {
        self.settings = settings
        self.output = output
        number = output.map(DirectorySink.nextNumber(in:)) ?? 1
    }

    func run(_ shared: Shared) -> Never {
        while true { sayNext(shared) }
    }

    /// One announcement. Out of line on purpose: with all of this inlined
    /// into the endless loop above, the release build's loop-invariant code
    /// motion pass ran for over half an hour on this one file (Swift 6.x).
    @inline(never)
    private func sayNext(_ shared: Shared) {
        let a = shared.next()
        let decided = shared.wallTime(ofDaemon: a.detectedAt)
        if let output {
            var sink = DirectorySink(directory: output, number: number)
            say(a, decided: decided, into: &sink)
        } else {
            var sink = ALSASink(device: settings.alsaDevice)
            say(a, decided: decided, into: &sink)
            if let why = sink.failure { complain(why) }
        }
    }

    /// `decided`: when the daemon decided it, on our wall clock.
    private func say<S: AudioSink>(_ a: Announcement, decided: Double?, into sink: inout S) {
        let synthesizer = Synthesizer(voice: settings.espeakVoice, rateWPM: settings.rateWPM, volume: settings.volume)
        var firstAudio: Double?
        var firstAudioMonotonic = Double.nan
        var opened = false
        var ok = true
        func open(_ rate: Int) -> Bool {
            guard !opened else { return true }
            opened = true
            guard sink.begin(rate: rate) else { return false }
            firstAudio = Date().timeIntervalSince1970
            firstAudioMonotonic = MonotonicClock.now()
            if let cue = a.cue { return sink.write(WAV.bytes(Tone.cue(cue, rate: rate))) }
            return true
        }
        if !a.text.isEmpty {
            do {
                try synthesizer.speak(a.text, started: { ok = open($0) }, samples: { pcm in
                    ok = ok && sink.write(pcm)
                    return ok
                })
            } catch {
                complain("\(error)")
            }
        }
        // Cue only, or the voice failed: the tone (if any) still goes out.
        if !opened { ok = open(22_050) }
        let done = sink.finish(text: a.text) && ok
        let said = number.zeroPadded(4)
        if output != nil { number += 1 }
        // latency_s: the daemon's decision (detected_at, on our clock through the last
        // STATUS) to the first audio sample; meaningful at 1x. own_s: this announcer's
        // part, from the line's arrival.
        let latency = firstAudio.flatMap { first in decided.map { (first - $0).fixed(3) } } ?? "-"
        Log.line("\(done ? "said" : "failed") \(said) \(a.trigger) latency_s=\(latency) "
            + "own_s=\((firstAudioMonotonic - a.receivedAt).fixed(3)) "
            + "total_s=\((MonotonicClock.now() - a.receivedAt).fixed(3)): \(a.text.isEmpty ? "(tone)" : a.text)")
    }

    private func complain(_ why: String) {
        guard complaints.insert(why).inserted else { return }
        Log.line(why + "; carrying on (said once)")
    }
}

import Foundation
import MoonRunnerConfig
import MoonRunnerCore
import MoonRunnerYAML
import Testing
@testable import MoonRunnerAnnounceCore

@Suite("Announcer settings and phrase tables")
struct AnnounceSettingsTests {
    @Test("keys are applied; defaults otherwise")
    func apply() throws {
        let map: [String: Any] = ["language": "cmn", "rate_wpm": 200, "max_delay_s": 3.5, "alsa_device": "plughw:1",
                                  "announce": ["every_minutes": 10, "gps": false], "cues": ["auto_pause": false]]
        let s = try AnnounceConfigReader.read(map)
        #expect(s.language == .chinese && s.espeakVoice == "cmn-latn-pinyin")
        #expect(s.rateWPM == 200 && s.maxDelay == 3.5 && s.alsaDevice == "plughw:1")
        #expect(s.everyMinutes == 10 && !s.gps && !s.autoPauseCue && s.splits)
        #expect(try AnnounceConfigReader.read(nil) == AnnounceSettings())
    }

    @Test("the shipped config/announce.yaml documents every key, and its values are the defaults")
    func shippedFile() throws {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("config/announce.yaml").path
        let text = try String(contentsOfFile: path, encoding: .utf8)
        #expect(try AnnounceConfigReader.read(try YAMLReader.load(text)) == AnnounceSettings())
        let flat = text.split(separator: "\n").filter { !$0.trimmingCharacters(in: .whitespaces).hasPrefix("#") }.joined(separator: "\n")
        for key in AnnounceConfigReader.knownKeys {
            #expect(flat.contains("\(key.split(separator: ".").last ?? ""):"), "config/announce.yaml does not document \(key)")
        }
    }

    @Test("a bad value or an unknown key names the key")
    func bad() {
        let cases: [([String: Any], String, String)] = [
            (["language": "fr"], "language", "one of en, cmn"),
            (["announce": ["splitz": true]], "announce.splitz", "did you mean announce.splits?"),
            (["announce": ["every_minutes": -1]], "announce.every_minutes", "an integer from 0 to 240"),
            (["volume": "loud"], "volume", "an integer"),
            (["cues": ["auto_pause": "yes"]], "cues.auto_pause", "true or false"),
            (["max_delay_s": 0], "max_delay_s", "a number from 0.5 to 60"),
        ]
        for (map, key, allowed) in cases {
            do {
                _ = try AnnounceConfigReader.read(map)
                Issue.record("accepted \(map)")
            } catch {
                #expect(error.key == key)
                #expect(error.allowed.contains(allowed), "\(error)")
            }
        }
        #expect(ConfigError.exitCode == 78)
        #expect(throws: ConfigError.self) { try AnnounceConfigReader.read(["not", "a", "map"]) }
    }

    @Test("each language words every kind of cue: a turn as an instruction (alone and after \"then\"), a place as a noun")
    func cueWords() {
        for language in Language.allCases {
            let words = PhraseTable.of(language).cueWords
            for kind in CueKind.allCases {
                if kind.isTurn {
                    #expect(!(words.turns[kind] ?? "").isEmpty && !(words.thenTurns[kind] ?? "").isEmpty, "\(language) \(kind)")
                } else {
                    #expect(!(words.places[kind] ?? "").isEmpty, "\(language) \(kind)")
                }
            }
        }
    }

    @Test("each language has every phrase, and every slot a phrase uses is one the announcer fills")
    func tables() {
        let slots: Set<String> = ["number", "distance", "time", "pace", "unit", "badge", "direction", "name", "bpm", "zone",
                                  "activity", "speed", "rate", "turn", "then", "place",
                                  // The workout's (WorkoutSpeech).
                                  "step", "end", "target", "round", "rounds", "fast", "slow", "low", "high", "steps", "done", "percent"]
        for language in Language.allCases {
            let table = PhraseTable.of(language)
            #expect(table.language == language)
            for key in PhraseKey.allCases {
                let template = table.templates[key] ?? ""
                #expect(!template.isEmpty, "\(language) \(key)")
                var rest = Substring(template)
                while let open = rest.firstIndex(of: "{"), let close = rest[open...].firstIndex(of: "}") {
                    #expect(slots.contains(String(rest[rest.index(after: open)..<close])), "\(language) \(key)")
                    rest = rest[rest.index(after: close)...]
                }
            }
        }
        // Mandarin is spoken by a pinyin voice: no Latin letters in what it says.
        for (key, template) in PhraseTable.mandarin.templates {
            let stripped = template.replacingOccurrences(of: #"\{[a-z]+\}"#, with: "", options: .regularExpression)
            #expect(!stripped.contains { $0.isASCII && $0.isLetter }, "\(key): \(template)")
        }
        #expect(Set(PhraseTable.mandarin.badgeNames.keys) == Set(BadgeLadder.solarSystem.badges.map(\.name)))
        for (target, name) in PhraseTable.mandarin.targetNames {
            #expect(!name.contains { $0.isASCII && $0.isLetter }, "\(target): \(name)")
        }
    }
}

@Suite("Sound cues and WAV")
struct ToneTests {
    /// Frequency from zero crossings.
    static func frequency(_ s: ArraySlice<Int16>, rate: Int) -> Double {
        var crossings = 0
        var previous = s.first ?? 0
        for v in s.dropFirst() {
            if (previous < 0) != (v < 0) { crossings += 1 }
            previous = v
        }
        return Double(crossings) / 2 / (Double(s.count) / Double(rate))
    }

    @Test("a pause falls and a resume rises; short, loud enough, no click at the ends")
    func cues() {
        let rate = 22_050
        for cue in Announcement.Cue.allCases {
            let s = Tone.cue(cue, rate: rate)
            #expect(Double(s.count) / Double(rate) > 0.15 && Double(s.count) / Double(rate) < 0.4)
            let half = Int(0.09 * Double(rate))
            let first = Self.frequency(s[0..<half], rate: rate), second = Self.frequency(s[half..<(2 * half)], rate: rate)
            #expect(cue == .pause ? first > second * 1.3 : second > first * 1.3, "\(cue): \(first) → \(second) Hz")
            #expect(s.map { abs(Int($0)) }.max() ?? 0 > 10_000)
            #expect(abs(Int(s[0])) < 500 && abs(Int(s[2 * half - 1])) < 500)
        }
    }

    @Test("the WAV header written is read back; espeak-ng's streamed header (unknown sizes) is read")
    func wav() throws {
        let pcm = WAV.bytes(Tone.sine(440, seconds: 0.1, rate: 16_000, volume: 0.3))
        let file = WAV.header(rate: 16_000, dataBytes: pcm.count) + pcm
        let start = try #require(WAV.pcmStart(of: file))
        #expect(start.rate == 16_000 && start.offset == 44)
        // espeak-ng --stdout: RIFF and data sizes 0x7ffff000, the samples follow at once.
        var stream = WAV.header(rate: 22_050, dataBytes: 0)
        stream.replaceSubrange(4..<8, with: [0x24, 0xF0, 0xFF, 0x7F])
        stream.replaceSubrange(40..<44, with: [0x00, 0xF0, 0xFF, 0x7F])
        #expect(WAV.pcmStart(of: stream)?.rate == 22_050 && WAV.pcmStart(of: stream)?.offset == 44)
        #expect(WAV.pcmStart(of: Array(stream.prefix(30))) == nil, "not yet all there")
        #expect(WAV.pcmStart(of: Array("not a wav file at all, no".utf8)) == nil)
        #expect(WAV.bytes([1, -2]) == [1, 0, 0xFE, 0xFF])
    }
}

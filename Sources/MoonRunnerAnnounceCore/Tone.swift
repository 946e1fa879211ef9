import FoundationEssentials
import Glibc

/// The sound cues: short sine tones, made here rather than shipped as files.
public enum Tone {
    /// 16-bit mono samples of a cue at `rate` Hz: falling for a pause,
    /// rising for a resume, 2 × 90 ms with 8 ms fades against clicks.
    public static func cue(_ cue: Announcement.Cue, rate: Int, volume: Double = 0.5) -> [Int16] {
        let (a, b) = cue == .pause ? (880.0, 587.33) : (587.33, 880.0)
        return sine(a, seconds: 0.09, rate: rate, volume: volume) + sine(b, seconds: 0.09, rate: rate, volume: volume)
            + [Int16](repeating: 0, count: rate / 20)
    }

    /// One sine tone with linear fades in and out.
    public static func sine(_ frequency: Double, seconds: Double, rate: Int, volume: Double) -> [Int16] {
        let n = Int(seconds * Double(rate))
        let fade = max(1, Int(0.008 * Double(rate)))
        return (0..<n).map { i in
            let envelope = min(1, Double(i) / Double(fade), Double(n - 1 - i) / Double(fade))
            let v = sin(2 * Double.pi * frequency * Double(i) / Double(rate)) * volume * envelope
            return Int16(max(-1, min(1, v)) * 32767)
        }
    }
}

/// The little of RIFF/WAVE the announcer needs: espeak-ng's header read,
/// a header for 16-bit mono PCM written.
public enum WAV {
    /// The sample rate and where the samples start in a 16-bit mono WAV
    /// (espeak-ng's `--stdout` stream, whose sizes are left unknown);
    /// nil until enough of the header is there, or when it is not such a file.
    public static func pcmStart(of bytes: [UInt8]) -> (rate: Int, offset: Int)? {
        guard bytes.count >= 12, bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8) else {
            return nil
        }
        var i = 12
        var rate: Int?
        while i + 8 <= bytes.count {
            let id = String(decoding: bytes[i..<(i + 4)], as: UTF8.self)
            let size = Int(le32(bytes, i + 4))
            if id == "data" { return rate.map { ($0, i + 8) } }
            if id == "fmt " {
                guard i + 16 <= bytes.count else { return nil }
                rate = Int(le32(bytes, i + 12))
            }
            i += 8 + size + (size & 1)
        }
        return nil
    }

    /// A 44-byte header for `dataBytes` bytes of 16-bit mono PCM at `rate` Hz.
    public static func header(rate: Int, dataBytes: Int) -> [UInt8] {
        var h: [UInt8] = Array("RIFF".utf8) + u32(UInt32(36 + dataBytes)) + Array("WAVE".utf8)
        h += Array("fmt ".utf8) + u32(16) + u16(1) + u16(1) + u32(UInt32(rate)) + u32(UInt32(rate * 2)) + u16(2) + u16(16)
        h += Array("data".utf8) + u32(UInt32(dataBytes))
        return h
    }

    /// Little-endian bytes of samples.
    public static func bytes(_ samples: [Int16]) -> [UInt8] {
        var out = [UInt8]()
        out.reserveCapacity(samples.count * 2)
        for s in samples {
            let u = UInt16(bitPattern: s)
            out.append(UInt8(u & 0xFF))
            out.append(UInt8(u >> 8))
        }
        return out
    }

    private static func le32(_ b: [UInt8], _ i: Int) -> UInt32 {
        UInt32(b[i]) | UInt32(b[i + 1]) << 8 | UInt32(b[i + 2]) << 16 | UInt32(b[i + 3]) << 24
    }

    private static func u32(_ v: UInt32) -> [UInt8] { [UInt8(v & 0xFF), UInt8((v >> 8) & 0xFF), UInt8((v >> 16) & 0xFF), UInt8(v >> 24)] }
    private static func u16(_ v: UInt16) -> [UInt8] { [UInt8(v & 0xFF), UInt8(v >> 8)] }
}

import Foundation
import Testing
@testable import MoonRunnerExport

@Suite("Export support: times, numbers, CRC")
struct ExportSupportTests {
    @Test("ISO 8601 UTC matches Foundation's formatter over two centuries")
    func isoTimes() {
        let reference = ISO8601DateFormatter()
        reference.formatOptions = [.withInternetDateTime]
        reference.timeZone = TimeZone(identifier: "UTC")
        var rng = SplitMix(seed: 7)
        for _ in 0..<2000 {
            let t = Double(Int64(rng.uniform() * 7_000_000_000) - 2_000_000_000)  // 1906 … 2191
            #expect(isoTime(t) == reference.string(from: Date(timeIntervalSince1970: t)))
        }
        #expect(isoTime(951_782_400) == "2000-02-29T00:00:00Z")
        #expect(isoTime(1_714_548_600.25) == "2024-05-01T07:30:00.250Z")
        #expect(isoTime(-0.5) == "1969-12-31T23:59:59.500Z")
    }

    @Test("fixed-point numbers are correctly rounded and agree with String(format:) except at ties")
    func numbers() {
        var rng = SplitMix(seed: 3)
        var differ = 0, total = 0
        for _ in 0..<5000 {
            let v = (rng.uniform() - 0.5) * 2 * pow(10, Double(Int(rng.uniform() * 7)))
            for d in [0, 1, 2, 3, 7] {
                var b = OutputBuffer(capacity: 32)
                b.write(v, decimals: d)
                let mine = String(decoding: b.bytes, as: UTF8.self)
                let parsed = Double(mine) ?? .nan
                // Within half a unit of the last digit (plus float slack), and exactly d decimals.
                #expect(abs(parsed - v) <= 0.5 * pow(10, -Double(d)) + 1e-9 * max(1, abs(v)), "\(v) → \(mine)")
                #expect(mine.split(separator: ".").dropFirst().first?.count ?? 0 == d)
                total += 1
                var printf = String(format: "%.\(d)f", v)
                if printf.hasPrefix("-") && printf.dropFirst().allSatisfy({ $0 == "0" || $0 == "." }) {
                    printf.removeFirst()   // printf writes "-0.00"; the writers never do
                }
                if mine != printf { differ += 1 }
            }
        }
        // printf rounds the exact binary value half-to-even; only near-ties may differ.
        #expect(differ * 1000 < total, "\(differ) of \(total) differ from printf")
        var b = OutputBuffer(capacity: 16)
        b.write(-0.00001, decimals: 2)
        b.write(",")
        b.write(int: -42)
        b.write(",")
        b.write(1.5, decimals: 0)
        #expect(String(decoding: b.bytes, as: UTF8.self) == "0.00,-42,2")
    }

    @Test("escaping for XML and JSON")
    func escaping() {
        var b = OutputBuffer(capacity: 64)
        b.write(xmlEscaped: "Tom & Jerry's <run> \"1\"")
        #expect(String(decoding: b.bytes, as: UTF8.self) == "Tom &amp; Jerry&apos;s &lt;run&gt; &quot;1&quot;")
        var j = OutputBuffer(capacity: 64)
        j.write(jsonEscaped: "a\"b\\c\nd\u{1}é")
        #expect(String(decoding: j.bytes, as: UTF8.self) == "a\\\"b\\\\c\\nd\\u0001é")
    }

    @Test("FIT CRC is CRC-16/ARC (check value of \"123456789\" is 0xBB3D)")
    func crc() {
        #expect(FITCRC.checksum(Array("123456789".utf8)) == 0xBB3D)
        #expect(FITCRC.checksum([UInt8]()) == 0)
        // Appending a CRC (little endian) to the data makes the CRC of the whole zero: how readers check.
        let data = Array("MoonRunner".utf8)
        let c = FITCRC.checksum(data)
        #expect(FITCRC.checksum(data + [UInt8(c & 0xFF), UInt8(c >> 8)]) == 0)
    }

    @Test("FIT scaling: semicircles, FIT epoch, invalid markers")
    func fitScaling() {
        #expect(FITProfile.semicircles(180) == 2_147_483_646)   // clamped below the invalid value
        #expect(FITProfile.semicircles(-90) == -1_073_741_824)
        #expect(FITProfile.semicircles(.nan) == FITEncoder.invalidSInt32)
        #expect(FITProfile.timestamp(631_065_600) == 0)
        #expect(FITProfile.timestamp(1_714_548_600.9) == 1_083_483_000)
        #expect(FITProfile.scaled16(30, 5, offset: 500) == 2650)
        #expect(FITProfile.scaled16(.nan, 5, offset: 500) == FITEncoder.invalidUInt16)
        #expect(FITProfile.scaled32(-1, 100) == FITEncoder.invalidUInt32)
    }

    @Test("cadence per point: the latest per-second sample within 2 s, else 0")
    func pointCadence() {
        let session = ExportFixture.session()
        let track = ExportTrack(session)
        #expect(track.hasCadence)
        let moving = track.cadence.filter { $0 > 0 }
        #expect(moving.count > session.points.count * 9 / 10)
        #expect(moving.allSatisfy { $0 > 150 && $0 < 170 })
        #expect(ExportTrack.strideCadence(171) == 86 && ExportTrack.strideCadence(0) == 0
                && ExportTrack.strideCadence(900) == 254)
    }
}

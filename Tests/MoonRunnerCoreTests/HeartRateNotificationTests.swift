import Testing
@testable import MoonRunnerCore
import MoonRunnerTestSupport

@Suite("Heart Rate Measurement (GATT 0x2A37)")
struct HeartRateNotificationTests {
    typealias M = HeartRateNotification

    @Test("an 8-bit value with contact detected and no options: flags 0x06, 72 bpm")
    func eightBit() throws {
        let m = try M.parse([0x06, 72])
        #expect(m == M(bpm: 72, contact: .detected))
    }

    @Test("a 16-bit value is little-endian: flags 0x01, 0x2C 0x01 is 300 bpm")
    func sixteenBit() throws {
        #expect(try M.parse([0x01, 0x2C, 0x01]).bpm == 300)
    }

    @Test("energy expended comes before the RR intervals, each little-endian; RR in 1/1024 s")
    func energyAndRR() throws {
        // flags: uint8 value, contact supported+detected, energy, RR.
        let m = try M.parse([0x1E, 150, 0x10, 0x27, 0x00, 0x04, 0x33, 0x03])
        #expect(m.bpm == 150 && m.contact == .detected)
        #expect(m.energyExpended == 10_000)
        #expect(m.rrIntervals == [1024, 819])
        #expect(m.rrMilliseconds == [1000, 819 * 1000 / 1024.0])
    }

    @Test("contact bits: 0b00 and 0b01 not supported, 0b10 supported but not detected, 0b11 detected")
    func contact() throws {
        #expect(try M.parse([0x00, 60]).contact == .notSupported)
        #expect(try M.parse([0x02, 60]).contact == .notSupported)
        #expect(try M.parse([0x04, 60]).contact == .notDetected)
        #expect(try M.parse([0x06, 60]).contact == .detected)
    }

    @Test("several RR intervals in one notification are all read, oldest first")
    func backlog() throws {
        let rr: [UInt16] = [800, 810, 790, 805, 795, 801, 799, 802, 798]
        let bytes = M(bpm: 75, rrIntervals: rr).encoded()
        #expect(bytes.count == 2 + 18)
        #expect(try M.parse(bytes).rrIntervals == rr)
    }

    @Test("every combination of the five flag bits reads back what was written, with and without reserved bits",
          arguments: 0..<64)
    func everyFlagCombination(_ combination: Int) throws {
        let flags = UInt8(combination & 0x1F) | (combination >= 32 ? 0xE0 : 0)  // reserved bits 5–7 set in half of them
        var bytes: [UInt8] = [flags]
        let wide = flags & M.Flag.uint16Value != 0
        let bpm = wide ? 183 : 142
        bytes += wide ? [UInt8(bpm), 0] : [UInt8(bpm)]
        if flags & M.Flag.energyExpended != 0 { bytes += [0x39, 0x05] }     // 1337 kJ
        if flags & M.Flag.rrIntervals != 0 { bytes += [0x9A, 0x01, 0xA0, 0x01] }  // 410, 416
        let m = try M.parse(bytes)
        #expect(m.bpm == bpm)
        let contact: M.SensorContact = flags & 0x04 == 0 ? .notSupported : (flags & 0x02 != 0 ? .detected : .notDetected)
        #expect(m.contact == contact)
        #expect(m.energyExpended == (flags & M.Flag.energyExpended != 0 ? 1337 : nil))
        #expect(m.rrIntervals == (flags & M.Flag.rrIntervals != 0 ? [410, 416] : []))
        // And the encoder writes what it read (reserved bits aside).
        #expect(try M.parse(m.encoded(wide: wide)) == m)
        // Reserved bits are not written back, nor "detected" without "supported" (it means nothing).
        let written = flags & 0x1F & (flags & 0x04 == 0 ? ~UInt8(0x02) : 0xFF)
        #expect(m.encoded(wide: wide) == [written] + bytes.dropFirst())
    }

    @Test("an empty notification is refused")
    func empty() {
        #expect(throws: HeartRateParseError.empty) { try M.parse([UInt8]()) }
    }

    @Test("a notification shorter than its flags claim is refused: 16-bit value with one byte, energy cut off")
    func short() {
        #expect(throws: HeartRateParseError.tooShort(flags: 0x01, needed: 3, got: 2)) { try M.parse([0x01, 0x50]) }
        #expect(throws: HeartRateParseError.tooShort(flags: 0x08, needed: 4, got: 3)) { try M.parse([0x08, 0x50, 0x01]) }
        #expect(throws: HeartRateParseError.tooShort(flags: 0x00, needed: 2, got: 1)) { try M.parse([0x00]) }
    }

    @Test("an RR list that runs past the payload (an odd byte left) is refused whole")
    func rrPastPayload() {
        #expect(throws: HeartRateParseError.rrPastPayload(bytesLeft: 3)) { try M.parse([0x10, 70, 0x00, 0x04, 0x33]) }
        #expect(throws: HeartRateParseError.rrPastPayload(bytesLeft: 1)) { try M.parse([0x18, 70, 1, 0, 0x33]) }
    }

    @Test("an RR flag with no intervals after it reads as none (a strap between beats)")
    func rrFlagWithoutIntervals() throws {
        #expect(try M.parse([0x10, 70]).rrIntervals == [])
    }

    @Test("200,000 seeded random notifications of 0–24 bytes never crash the parser: each reads or is refused")
    func fuzz() {
        var random = GPSTestRandom(seed: 22)
        var read = 0, refused = 0
        for _ in 0..<200_000 {
            let n = Int.random(in: 0...24, using: &random)
            let bytes = (0..<n).map { _ in UInt8.random(in: 0...255, using: &random) }
            do {
                let m = try M.parse(bytes)
                read += 1
                // What reads must be consistent with its flags.
                if bytes[0] & M.Flag.rrIntervals == 0 { #expect(m.rrIntervals.isEmpty) }
                #expect(m.bpm >= 0 && m.bpm <= 0xFFFF)
            } catch {
                refused += 1
            }
        }
        #expect(read + refused == 200_000)
        #expect(read > 50_000 && refused > 50_000, "read \(read), refused \(refused)")
    }
}

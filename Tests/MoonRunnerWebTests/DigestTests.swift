import Testing
@testable import MoonRunnerWeb

@Suite("Web: SHA-256 and HMAC-SHA256 through libgcrypt")
struct DigestTests {
    @Test("SHA-256 gives FIPS 180-2's answers for \"abc\" and the empty message")
    func sha256() {
        #expect(Digest.hex(Digest.sha256(Array("abc".utf8))) == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(Digest.hex(Digest.sha256([UInt8]())) == "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855")
    }

    @Test("HMAC-SHA256 gives RFC 4231's answers (test cases 1 and 2)")
    func hmac() {
        let case1 = Digest.hmacSHA256(key: [UInt8](repeating: 0x0b, count: 20), message: Array("Hi There".utf8))
        #expect(Digest.hex(case1) == "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7")
        let case2 = Digest.hmacSHA256(key: Array("Jefe".utf8), message: Array("what do ya want for nothing?".utf8))
        #expect(Digest.hex(case2) == "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
    }

    @Test("random keys are 32 bytes and differ")
    func random() {
        let a = Digest.randomBytes(32), b = Digest.randomBytes(32)
        #expect(a.count == 32 && b.count == 32 && a != b)
    }
}

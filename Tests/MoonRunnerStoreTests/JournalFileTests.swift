import Foundation
import Testing
@testable import MoonRunnerStore

/// The journal file itself: records written in aligned blocks (or buffered where
/// direct I/O is refused) read back whole, a torn write loses only itself, and a
/// preallocated journal that was emptied never gives back what it held before.
@Suite("Journal file")
struct JournalFileTests {
    static func path() throws -> String {
        (try tempStoreDir() as NSString).appendingPathComponent("j")
    }

    /// `count` bytes that differ from record to record.
    static func payload(_ count: Int, _ salt: Int) -> Data {
        Data((0..<count).map { i in UInt8(truncatingIfNeeded: i &* 31 &+ salt &* 7) })
    }

    static func contents(_ path: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
    }

    /// What another process opening the file reads.
    static func reread(_ path: String) throws -> [Data] {
        try JournalFile(path: path, lock: false).readAll()
    }

    static func write(_ bytes: [UInt8], to path: String) throws {
        try Data(bytes).write(to: URL(fileURLWithPath: path))
    }

    @Test("records across 512-byte and 4 KiB boundaries read back", arguments: [true, false])
    func boundaries(direct: Bool) throws {
        let path = try Self.path()
        let file = try JournalFile(path: path, lock: true, direct: direct)
        try file.reset()
        let sizes: [Int] = [100, 600, 3500, 5000, 20, 9000, 488, 4072]
        var written: [Data] = []
        for (k, size) in sizes.enumerated() {
            let p = Self.payload(size, k)
            try file.append(p, seq: UInt64(k + 1))
            written.append(p)
            #expect(try Self.reread(path) == written, "after record \(k + 1) of \(size) bytes")
        }
        let offsets: [Int] = [file.validLength]
        #expect(offsets[0] > 4096 * 5, "the records span several pages")
        if !direct { #expect(file.writeMode.contains("buffered")) }
    }

    @Test("a torn last write loses that record only; the records before it are kept")
    func tornTail() throws {
        let path = try Self.path()
        let file = try JournalFile(path: path, lock: true)
        try file.reset()
        let first = Self.payload(300, 1), second = Self.payload(400, 2), third = Self.payload(1500, 3)
        try file.append(first, seq: 1)
        try file.append(second, seq: 2)
        let before = try Self.contents(path)
        let start = file.validLength / 512 * 512
        try file.append(third, seq: 3)
        let after = try Self.contents(path)
        let end = (file.validLength + 511) / 512 * 512
        #expect(end - start >= 3 * 512, "the third record's write spans blocks")
        #expect(start % JournalFormat.recordAlign == 0, "a record starts on a block of its own")
        // A power cut in the middle of it: none of it, only its first block or only its last reached the disk.
        var headNew = before
        headNew.replaceSubrange(start..<(start + 512), with: after[start..<(start + 512)])
        var tailNew = before
        tailNew.replaceSubrange((end - 512)..<end, with: after[(end - 512)..<end])
        for torn in [before, headNew, tailNew] {
            let copy = path + ".torn"
            try Self.write(torn, to: copy)
            #expect(try Self.reread(copy) == [first, second])
        }
        #expect(try Self.reread(path) == [first, second, third])
    }

    @Test("records from before an emptying are never read again", arguments: [true, false])
    func staleRecords(direct: Bool) throws {
        let path = try Self.path()
        let file = try JournalFile(path: path, lock: true, direct: direct)
        try file.reset()
        let old = (1...5).map { Self.payload(200 + 50 * $0, $0) }
        for (k, p) in old.enumerated() { try file.append(p, seq: UInt64(k + 1)) }
        let fullSize = try Self.contents(path).count
        try file.reset()
        #expect(try Self.reread(path).isEmpty, "emptied: nothing, though the old records are still on disk")
        #expect(try Self.contents(path).count == fullSize, "the file keeps its preallocated size")
        let fresh = Self.payload(120, 9)
        try file.append(fresh, seq: 6)
        #expect(try Self.reread(path) == [fresh], "the old records after the new one are not taken")

        // A record of this generation whose number does not follow, and one that follows but of
        // the last generation, where the next record would go: neither is read.
        let bytes = try Self.contents(path)
        let generation = JournalFormat.u32(bytes, 4)
        let forged: [[UInt8]] = [
            JournalFormat.record(Self.payload(50, 1), seq: 8, generation: generation),
            JournalFormat.record(Self.payload(50, 1), seq: 7, generation: generation &- 1),
        ]
        for record in forged {
            var copy = bytes
            copy.replaceSubrange(file.validLength..<(file.validLength + record.count), with: record)
            try Self.write(copy, to: path + ".forged")
            #expect(try Self.reread(path + ".forged") == [fresh])
        }
        let following = JournalFormat.record(Self.payload(50, 1), seq: 7, generation: generation)
        var copy = bytes
        copy.replaceSubrange(file.validLength..<(file.validLength + following.count), with: following)
        try Self.write(copy, to: path + ".forged")
        #expect(try Self.reread(path + ".forged").count == 2, "the check itself: a following record is read")
    }

    @Test("emptying leaves a commit appended since the records taken in")
    func resetThrough() throws {
        let path = try Self.path()
        let file = try JournalFile(path: path, lock: true)
        try file.reset()
        try file.append(Self.payload(100, 1), seq: 1)
        try file.append(Self.payload(100, 2), seq: 2)
        try file.reset(through: 1)
        #expect(try Self.reread(path).count == 2)
        try file.reset(through: 2)
        #expect(try Self.reread(path).isEmpty)
    }

    @Test("a writer opened on records already there appends after them", arguments: [true, false])
    func reopen(direct: Bool) throws {
        let path = try Self.path()
        let a = Self.payload(700, 1), b = Self.payload(90, 2), c = Self.payload(333, 3)
        try Self.appendAndClose(path, direct: direct, [(a, 1), (b, 2)], reset: true)
        try Self.appendAndClose(path, direct: direct, [(c, 3)], reset: false)
        #expect(try Self.reread(path) == [a, b, c])
    }

    /// A writer's life: opens the journal, appends, lets it go.
    @inline(never)
    static func appendAndClose(_ path: String, direct: Bool, _ records: [(Data, UInt64)], reset: Bool) throws {
        let file = try JournalFile(path: path, lock: true, direct: direct)
        #expect(file.isWriter)
        _ = file.readAll()
        if reset { try file.reset() }
        for (p, seq) in records { try file.append(p, seq: seq) }
    }

    @Test("a journal outgrowing its preallocation grows and reads back whole")
    func growth() throws {
        let path = try Self.path()
        let file = try JournalFile(path: path, lock: true)
        try file.reset()
        let count = JournalFile.initialCapacity / 4000 + 20
        for k in 0..<count { try file.append(Self.payload(4000, k), seq: UInt64(k + 1)) }
        let read = try Self.reread(path)
        #expect(read.count == count)
        #expect(read.last == Self.payload(4000, count - 1))
        #expect(try Self.contents(path).count > JournalFile.initialCapacity)
    }

    @Test("a journal an older daemon left (format 1) is taken in, then rewritten in format 2")
    func formatOne() async throws {
        let dir = try tempStoreDir()
        let id = try await Self.sessionOnly(dir)
        var bytes: [UInt8] = []
        for k in 0..<3 {
            let entry = JournalEntry(seq: UInt64(k + 1), batch: JournalTests.batch(id, from: 3 * k))
            bytes += JournalFormat.v1Record(try entry.encoded())
        }
        bytes += [0x4D, 0x52, 0x4A]  // a torn fourth record
        let journal = (dir as NSString).appendingPathComponent(SessionStore.journalName)
        try Self.write(bytes, to: journal)
        #expect(try Self.reread(journal).count == 3)
        let store = try SessionStore(directory: dir)
        #expect(try await store.points(session: id).count == 9)
        #expect(try Self.reread(journal).isEmpty)
        #expect(JournalFormat.u32(try Self.contents(journal), 0) == JournalFormat.fileMagic)
        try await store.commit(JournalTests.batch(id, from: 9))
        #expect(try Self.reread(journal).count == 1)
    }

    /// A store with one session and nothing journaled; closed again.
    @inline(never)
    static func sessionOnly(_ dir: String) async throws -> Int64 {
        let store = try SessionStore(directory: dir)
        return try await store.createSession(activity: .run, snapshot: snapshot())
    }

    @Test("a record deflated against the one before reads only against it, and takes less room")
    func chainedCodec() throws {
        let first = JournalEntry(seq: 1, batch: JournalTests.batch(7, from: 0))
        let second = JournalEntry(seq: 2, batch: JournalTests.batch(7, from: 3))
        let previous = try first.json()
        let alone = try JournalCodec.deflate(second.json())
        let chained = try JournalCodec.deflate(second.json(), dictionary: previous)
        #expect(chained.count < alone.count)
        #expect(try JournalCodec.inflate(chained, dictionary: previous) == second.json())
        #expect(throws: JournalCodec.Failure.self) { try JournalCodec.inflate(chained) }
        #expect(throws: JournalCodec.Failure.self) { try JournalCodec.inflate(chained, dictionary: alone) }
        let decoded = try JournalEntry.decodeAll([first.encoded(), chained])
        #expect(decoded.map(\.seq) == [1, 2])
        #expect(decoded.last?.points.count == 3)
        // A record deflated alone reads whatever came before it.
        #expect(JournalEntry.decodeAll([chained, alone]).map(\.seq) == [2])
    }

    @Test("each commit starts a 512-byte block of its own, and a chain of them reads back", arguments: [true, false])
    func oneBlockPerCommit(direct: Bool) throws {
        let path = try Self.path()
        let file = try JournalFile(path: path, lock: true, direct: direct)
        try file.reset()
        for k in 0..<20 {
            let raw = try JournalEntry(seq: UInt64(k + 1), batch: JournalTests.batch(1, from: 2 * k, count: 2)).json()
            let payload = try JournalCodec.deflate(raw, dictionary: file.chain)
            let before = file.validLength
            try file.append(payload, seq: UInt64(k + 1), raw: raw)
            let used: Int = file.validLength - before
            #expect(used == JournalFormat.recordAlign, "record \(k + 1): \(payload.count) bytes")
        }
        let entries = JournalEntry.decodeAll(try Self.reread(path))
        #expect(entries.map(\.seq) == (1...20).map(UInt64.init))
    }
}

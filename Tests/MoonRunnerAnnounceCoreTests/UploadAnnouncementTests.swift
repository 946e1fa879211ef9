import MoonRunnerProtocol
import Testing
@testable import MoonRunnerAnnounceCore

/// Lines of the upload service's `?WATCH`, written with its own encoder.
enum UploadLines {
    /// Through the wire form, as the shell decodes it.
    static func uploaded(_ target: String, session: Int64, activity: String = "run", state: String = "done") throws -> UploadedReply {
        let line = ReplyEncoder.line(UploadedReply(target: target, session: session, activity: activity, state: state,
                                                   url: nil, time: 1_800_000_000))
        return try ReplyEncoder.decode(UploadedReply.self, from: line)
    }
}

@Suite("Announcer: uploads")
struct UploadAnnouncementTests {
    @Test("a finished upload is said with the activity and the target, in English and in Mandarin")
    func said() throws {
        var en = Announcer(settings: AnnounceSettings())
        #expect(try en.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 1).map(\.text) == ["Run uploaded to Strava."])
        #expect(try en.receive(uploaded: UploadLines.uploaded("webdav", session: 12), at: 2).map(\.text)
            == ["Run uploaded to the WebDAV folder."])
        #expect(try en.receive(uploaded: UploadLines.uploaded("intervals", session: 13, activity: "ride"), at: 3).map(\.text)
            == ["Ride uploaded to intervals.icu."])
        var zh = Announcer(settings: { var s = AnnounceSettings(); s.language = .chinese; return s }())
        #expect(try zh.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 1).map(\.text) == ["跑步已上传到斯特拉瓦。"])
        #expect(try zh.receive(uploaded: UploadLines.uploaded("webdav", session: 12, activity: "walk"), at: 2).map(\.text)
            == ["步行已上传到网络文件夹。"])
        #expect(try zh.receive(uploaded: UploadLines.uploaded("fittrackee", session: 14, activity: "hike"), at: 3).map(\.text)
            == ["徒步已上传到你的运动记录服务器。"])
    }

    @Test("once per session and target: an upload again, or a notice repeated, is not said a second time")
    func once() throws {
        var a = Announcer(settings: AnnounceSettings())
        #expect(try a.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 1).count == 1)
        #expect(try a.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 2).isEmpty)
        // A reconnection to the daemon starts the session state afresh, not what was said of uploads.
        a.connected()
        #expect(try a.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 3).isEmpty)
        #expect(try a.receive(uploaded: UploadLines.uploaded("intervals", session: 12), at: 4).count == 1, "another target")
        #expect(try a.receive(uploaded: UploadLines.uploaded("strava", session: 13), at: 5).count == 1, "another session")
    }

    @Test("only done is said: failed, held, deleted and empty jobs are for the phone and the CLI")
    func onlyDone() throws {
        var a = Announcer(settings: AnnounceSettings())
        for state in ["failed", "held", "deleted", "empty"] {
            #expect(try a.receive(uploaded: UploadLines.uploaded("strava", session: 12, state: state), at: 1).isEmpty, "\(state)")
        }
        #expect(try a.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 2).map(\.text) == ["Run uploaded to Strava."],
                "a held job said nothing, so its later done is said")
    }

    @Test("announce.uploads: false and the daemon's quiet keep it unsaid")
    func silenced() throws {
        var off = AnnounceSettings()
        off.uploads = false
        var a = Announcer(settings: off)
        #expect(try a.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 1).isEmpty)
        var f = Feed()
        _ = try f.line(Lines.status(time: 10, quiet: true))
        #expect(try f.announcer.receive(uploaded: UploadLines.uploaded("strava", session: 12), at: 11).isEmpty)
    }
}

import MoonRunnerProtocol

/// The uploads page's template model: each target with its state and the
/// fields it takes (a stored secret shows as "stored", never its value), and
/// each session's upload to each target with its link and buttons.
struct UploadsPage {
    struct Field {
        let name: String
        let label: String
        let secret: Bool
        let stored: Bool
    }

    struct Target {
        let key: String
        let title: String
        let state: String
        let stateText: String
        let message: String?
        let privacy: String?
        let fields: [Field]
        /// The fields' form starts open while nothing is stored.
        let open: Bool
        /// "Connect Strava" (OAuth targets once their client is entered), or nil.
        let connect: String?
    }

    struct Job {
        let session: String
        let target: String
        let targetTitle: String
        let state: String
        let stateText: String
        let url: String?
        let detail: String?
        let retry: Bool
        let again: Bool
    }

    let layout: Layout
    let p: [String: String]
    let targets: [Target]
    let jobs: [Job]
    let networkWaits: Bool
    let csrf: String

    static let fieldsOf: [String: [(String, Phrase, Bool)]] = [
        "strava": [("client_id", .uploadClientID, false), ("client_secret", .uploadClientSecret, true)],
        "fittrackee": [("client_id", .uploadClientID, false), ("client_secret", .uploadClientSecret, true)],
        "intervals": [("athlete_id", .uploadAthleteID, false), ("api_key", .uploadAPIKey, true)],
        "webdav": [("user", .uploadUser, false), ("password", .uploadPassword, true)],
    ]

    init(layout: Layout, phrases p: Phrases, targets: TargetsReply, jobs: [UploadJobInfo], csrf: String) {
        self.layout = layout
        self.p = p.named([.uploadsIntro, .uploadRetry, .uploadAgain, .uploadOpen, .uploadNone, .save, .uploadSetupHint,
                          .uploadNetworkWaits])
        self.csrf = csrf
        networkWaits = !targets.networkAllows
        let titles = Dictionary(targets.targets.map { ($0.target, $0.title) }, uniquingKeysWith: { a, _ in a })
        self.targets = targets.targets.map { t in
            let stateText = switch t.state {
            case "connected": p[.uploadConnected] + (t.account.map { " · \($0)" } ?? "")
            case "reconnect": p.format(.uploadReconnect, ["target": t.title])
            case "disabled": p[.uploadDisabled]
            default: p[.uploadNotConnected]
            }
            let fields = (Self.fieldsOf[t.target] ?? []).map {
                Field(name: $0.0, label: p[$0.1], secret: $0.2, stored: t.fieldsSet.contains($0.0))
            }
            let oauth = t.target == "strava" || t.target == "fittrackee"
            let connect = oauth && t.fieldsSet.contains("client_id") && t.state != "connected" && t.state != "disabled"
                ? p.format(t.state == "reconnect" ? .uploadReconnect : .uploadConnect, ["target": t.title]) : nil
            return Target(key: t.target, title: t.title, state: t.state, stateText: stateText, message: t.message,
                          privacy: t.privacyZones ? p[.uploadPrivacyOn] : nil, fields: fields,
                          open: t.fieldsSet.isEmpty, connect: connect)
        }
        self.jobs = jobs.map { j in
            Job(session: String(j.session), target: j.target, targetTitle: titles[j.target] ?? j.target, state: j.state,
                stateText: Self.stateText(j.state, p), url: j.url, detail: j.state == "done" ? nil : j.lastError,
                retry: ["queued", "sending", "failed", "held"].contains(j.state),
                again: j.state == "done")
        }
    }

    static func stateText(_ state: String, _ p: Phrases) -> String {
        switch state {
        case "queued": p[.uploadQueued]
        case "sending": p[.uploadSending]
        case "processing": p[.uploadProcessing]
        case "done": p[.uploadDone]
        case "failed": p[.uploadFailed]
        case "deleted": p[.uploadDeleted]
        case "empty": p[.uploadEmpty]
        case "held": p[.uploadHeld]
        default: state
        }
    }
}

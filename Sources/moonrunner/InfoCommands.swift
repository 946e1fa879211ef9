import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerProtocol

// Read-only views of the daemon: ?BADGES, ?CONFIG, ?VERSION.

struct Badges: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Show the distance badges, who earned them, and the next one for a live session (?BADGES).")
    @OptionGroup var options: ClientOptions

    func run() throws {
        let client = try options.connect()
        let reply = try options.call(.badges, on: client)
        if options.json { out(reply); return }
        let r = try options.decode(BadgesReply.self, reply)
        out(Display.badges(r, units: options.units(client: client)))
    }
}

struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's effective configuration (?CONFIG).")
    @OptionGroup var options: ClientOptions

    func run() throws {
        let reply = try options.call(.config)
        if options.json { out(reply); return }
        let r = try options.decode(ConfigReply.self, reply)
        out(Display.config(r.config))
    }
}

struct Version: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Show the daemon's release and protocol version (?VERSION).")
    @OptionGroup var options: ClientOptions

    func run() throws {
        let reply = try options.call(.version)
        if options.json { out(reply); return }
        let r = try options.decode(VersionReply.self, reply)
        out("moonrunnerd \(r.release), protocol \(r.protoMajor).\(r.protoMinor) "
            + "(this moonrunner speaks \(ProtocolVersion.major).\(ProtocolVersion.minor))")
    }
}

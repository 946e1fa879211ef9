import ArgumentParser
import FoundationEssentials
import Glibc
import MoonRunnerAnnounceShell
import MoonRunnerProtocol

@main
enum Entry {
    /// `moonrunner --socket PATH status` is accepted as well as
    /// `moonrunner status --socket PATH`: options given before the subcommand
    /// are moved after it, where the parser expects them.
    ///
    /// Called as `moonrunner-announce` (the package's link to this binary) it
    /// is the announcer: the two share one copy of the Swift runtime and
    /// FoundationEssentials (17 MB less on a Pi's SD card).
    static func main() {
        if CommandLine.arguments.first?.split(separator: "/").last == "moonrunner-announce" {
            AnnounceCommand.main()
        }
        Moonrunner.main(GlobalOptions.reorder(Array(CommandLine.arguments.dropFirst())))
    }
}

/// The options of `ClientOptions` that may come before the subcommand.
enum GlobalOptions {
    static let withValue: Set<String> = ["--socket", "--timeout"]
    static let flags: Set<String> = ["--json", "--imperial", "--metric"]

    /// Moves leading global options after the first word that names a
    /// subcommand. Anything else (`--help`, `--generate-completion-script`,
    /// the completion callback `---completion`, `help`, a typo) is left as it
    /// is, so that argument-parser handles it and reports errors itself.
    static func reorder(_ args: [String]) -> [String] {
        var leading: [String] = []
        var i = 0
        while i < args.count {
            let a = args[i]
            let name = a.split(separator: "=", maxSplits: 1).first.map(String.init) ?? a
            if withValue.contains(name) {
                leading.append(a)
                if !a.contains("="), i + 1 < args.count {
                    leading.append(args[i + 1])
                    i += 1
                }
            } else if flags.contains(a) {
                leading.append(a)
            } else {
                break
            }
            i += 1
        }
        guard !leading.isEmpty, i < args.count, Moonrunner.subcommandNames.contains(args[i]) else { return args }
        return [args[i]] + leading + Array(args[(i + 1)...])
    }
}

struct Moonrunner: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "moonrunner",
        abstract: "Control and inspect moonrunnerd, the running and walking computer.",
        discussion: """
            Every subcommand that talks to the daemon takes --socket PATH, --json, --imperial/--metric \
            and --timeout SECONDS, before or after the subcommand's name. Output is human-readable \
            (3.42 km, 00:25:13, 7:22 min/km) in the daemon's configured units unless --imperial or \
            --metric says otherwise; --json prints the daemon's replies as they are.

            \(ExitCodes.summary)

            Shell completion: moonrunner --generate-completion-script bash|zsh|fish.
            """,
        version: "moonrunner \(MoonRunnerRelease.version)",
        subcommands: [Status.self, Watch.self, Start.self, Pause.self, Resume.self, Lap.self, Stop.self, Announce.self,
                      Sessions.self, Show.self, Export.self, Badges.self, Delete.self, CourseCommand.self,
                      WorkoutCommand.self, Config.self, Version.self, WebAdminCommand.self, UploadAdminCommand.self,
                      Analyze.self, DEMCommand.self, StepSweep.self]
    )

    /// Declared here too so that help and shell completion know them before
    /// the subcommand; `GlobalOptions.reorder` hands them to the subcommand.
    @OptionGroup(title: "Options of every subcommand that talks to the daemon (also accepted after it)")
    var options: ClientOptions

    /// Names the parser accepts as the first word.
    static var subcommandNames: Set<String> {
        Set(configuration.subcommands.compactMap { $0.configuration.commandName ?? defaultName($0) })
    }

    private static func defaultName(_ type: any ParsableCommand.Type) -> String {
        String(describing: type).lowercased()
    }
}

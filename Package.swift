// swift-tools-version:6.1
import PackageDescription

let package = Package(
    name: "MoonRunner",
    platforms: [.macOS(.v14)],
    products: [
        .executable(name: "moonrunnerd", targets: ["moonrunnerd"]),
        .executable(name: "moonrunner", targets: ["moonrunner"]),
        .executable(name: "moonrunner-bench", targets: ["moonrunner-bench"]),
        .executable(name: "moonrunner-announce", targets: ["moonrunner-announce"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/jpsim/Yams.git", from: "6.2.2"),
        // The web app: no swift-configuration (the settings are moonrunner.yaml's `web:`).
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1", traits: []),
        .package(url: "https://github.com/hummingbird-project/swift-mustache.git", from: "2.1.1"),
        // The upload service's HTTP (TLS through swift-nio-ssl's BoringSSL: no OpenSSL to depend on).
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
    ],
    targets: [
        // System libraries: thin module maps over the C APIs.
        .systemLibrary(name: "CGPS", pkgConfig: "libgps", providers: [.apt(["libgps-dev"])]),
        .systemLibrary(name: "CI2C", providers: [.apt(["libi2c-dev"])]),
        .systemLibrary(name: "CSystemd", pkgConfig: "libsystemd", providers: [.apt(["libsystemd-dev"])]),
        .systemLibrary(name: "CCrypto", pkgConfig: "libgcrypt", providers: [.apt(["libgcrypt20-dev"])]),
        .systemLibrary(name: "CZlib", pkgConfig: "zlib", providers: [.apt(["zlib1g-dev"])]),
        .systemLibrary(name: "CProcessFD"),
        .systemLibrary(name: "CThreadName"),
        .systemLibrary(name: "CMalloc"),
        .systemLibrary(name: "CDirectIO"),
        .systemLibrary(name: "CYAML", pkgConfig: "yaml-0.1", providers: [.apt(["libyaml-dev"])]),
        .systemLibrary(name: "CTIFF", pkgConfig: "libtiff-4", providers: [.apt(["libtiff-dev"])]),

        // Pure algorithms and models: no I/O, no clocks.
        .target(name: "MoonRunnerCore"),
        // What the C library tells every module that reads files or waits: an error in its words
        // (strerror) and the monotonic clock. No Foundation beyond FoundationEssentials' error types.
        .target(name: "MoonRunnerSystem"),
        // Named detached threads and a condition variable without Foundation (sensor loops, the announcer).
        .target(name: "MoonRunnerThreads", dependencies: ["CThreadName", "MoonRunnerSystem"]),
        // A YAML reader over Debian's libyaml that resolves values as Yams does, without Foundation
        // (the daemon's and the announcer's config files; Yams bundles its own libyaml and needs Foundation).
        .target(name: "MoonRunnerYAML", dependencies: ["CYAML"]),
        // Settings as users and evaluations give them, knowing nothing of Core: the config files read
        // and checked key by key (ConfigChecks, ConfigError and its exit code 78), and KEY=VALUE tuning.
        .target(name: "MoonRunnerConfig", dependencies: ["MoonRunnerYAML", "MoonRunnerSystem"]),
        // Input adapters: gpsd client, I2C bus, IMU drivers, emulator, trace readers, BlueZ (sd-bus).
        .target(name: "MoonRunnerSensors", dependencies: [
            "MoonRunnerCore", "MoonRunnerThreads", "MoonRunnerSystem", "CGPS", "CI2C", "CZlib", "CSystemd",
        ]),
        // Terrain tiles on disk: SRTM .hgt (zipped or not) and GeoTIFF (libtiff), read by the few
        // bytes or the block a lookup needs; the terrain model the core asks under the track.
        .target(name: "MoonRunnerTerrain", dependencies: [
            "MoonRunnerCore", "MoonRunnerThreads", "MoonRunnerSystem", "CTIFF", "CZlib", "CMalloc",
        ]),
        // SQLite (WAL) store.
        .target(name: "MoonRunnerStore", dependencies: [
            "MoonRunnerCore", "MoonRunnerSystem", "CZlib", "CMalloc", "CDirectIO",
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        // File writers (GPX, TCX, FIT, GeoJSON, CSV, SVG).
        .target(name: "MoonRunnerExport", dependencies: ["MoonRunnerCore"]),
        // Socket protocol request/response types shared by daemon and CLI.
        .target(name: "MoonRunnerProtocol", dependencies: ["MoonRunnerCore"]),
        // A blocking client of the control socket (the CLI, the announcer), and
        // where every client finds the socket (--socket, $MOONRUNNER_SOCKET, the default).
        .target(name: "MoonRunnerClient", dependencies: ["MoonRunnerProtocol"]),
        // Unix-socket pieces over SwiftNIO that more than one program needs: the
        // line framing (the daemon's server, the web app's daemon link and admin
        // socket) and the peer credentials policy (who may change state).
        .target(name: "MoonRunnerSocket", dependencies: [.product(name: "NIOCore", package: "swift-nio")]),
        // The announcer's core: what it says and when (phrase tables per language,
        // number wording, staleness); pure, no sockets, no sound.
        .target(name: "MoonRunnerAnnounceCore", dependencies: ["MoonRunnerCore", "MoonRunnerProtocol", "MoonRunnerConfig"]),
        // Daemon shell: config, wiring, control server, lifecycle.
        .target(name: "MoonRunnerDaemon", dependencies: [
            "MoonRunnerCore", "MoonRunnerSensors", "MoonRunnerStore", "MoonRunnerExport",
            "MoonRunnerProtocol", "MoonRunnerSocket", "MoonRunnerTerrain", "CSystemd", "CMalloc",
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            "MoonRunnerYAML", "MoonRunnerConfig", "MoonRunnerSystem",
        ]),
        // The upload service: a client of the control socket (and of the web app's link to it) that
        // sends finished sessions to Strava, intervals.icu, FitTrackee and WebDAV, its queue and ledger
        // in its own state directory; the only part of MoonRunner that reaches beyond loopback.
        .target(name: "MoonRunnerUpload", dependencies: [
            "MoonRunnerCore", "MoonRunnerProtocol", "MoonRunnerSocket", "MoonRunnerConfig", "MoonRunnerWeb", "CSystemd",
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The daemon; called as moonrunner-web or moonrunner-upload (links in the package) those services.
        .executableTarget(name: "moonrunnerd", dependencies: [
            "MoonRunnerDaemon", "MoonRunnerCore", "MoonRunnerWeb", "MoonRunnerUpload", "MoonRunnerConfig",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "moonrunner", dependencies: [
            "MoonRunnerCore", "MoonRunnerSensors", "MoonRunnerProtocol", "MoonRunnerExport", "MoonRunnerClient",
            "MoonRunnerAnnounceShell", "MoonRunnerTerrain", "MoonRunnerConfig", "MoonRunnerSystem",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        // The announcer's shell: a watcher of the control socket that speaks through espeak-ng and
        // ALSA. A library so that `moonrunner` can run it too (the package's moonrunner-announce is a link).
        .target(name: "MoonRunnerAnnounceShell", dependencies: [
            "MoonRunnerAnnounceCore", "MoonRunnerClient", "MoonRunnerProtocol", "MoonRunnerCore", "MoonRunnerThreads",
            "MoonRunnerConfig", "MoonRunnerSystem", "CProcessFD",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ]),
        .executableTarget(name: "moonrunner-announce", dependencies: ["MoonRunnerAnnounceShell"]),
        // The phone web app: a client of the control socket (one watcher fanned
        // out to every phone), its pages, pairing and tokens. Templates and
        // static files are compiled into the binary (no bundle at run time).
        .target(name: "MoonRunnerWeb", dependencies: [
            "MoonRunnerCore", "MoonRunnerProtocol", "MoonRunnerClient", "MoonRunnerExport", "MoonRunnerAnnounceCore", "MoonRunnerSocket",
            "CZlib", "CCrypto", "CMalloc",
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "Mustache", package: "swift-mustache"),
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            "MoonRunnerConfig",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], resources: [.embedInCode("Templates"), .embedInCode("Public")]),
        .executableTarget(name: "moonrunner-bench", dependencies: [
            "MoonRunnerCore", "MoonRunnerSensors", "MoonRunnerStore", "MoonRunnerTerrain", "MoonRunnerTestSupport",
            "MoonRunnerSystem",
        ]),

        // Test support: starting helper processes safely from parallel tests; a
        // simulated GPS receiver and the course scenarios (pure).
        .target(name: "MoonRunnerTestSupport", dependencies: ["MoonRunnerCore", "CZlib"], path: "Tests/Support"),
        // Scores the course matcher and the cues on those scenarios, or writes them out (eval_rejoin.py, eval_cues.py).
        .executableTarget(name: "course-scenarios", dependencies: [
            "MoonRunnerCore", "MoonRunnerExport", "MoonRunnerTestSupport", "MoonRunnerConfig",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Tests/Tools/course-scenarios"),
        // Replays a recorded session through the engine and a workout through WorkoutRunner (eval_workout.py).
        .executableTarget(name: "workout-replay", dependencies: [
            "MoonRunnerCore", "MoonRunnerSensors", "MoonRunnerExport",
            .product(name: "ArgumentParser", package: "swift-argument-parser"),
        ], path: "Tests/Tools/workout-replay"),
        .testTarget(name: "MoonRunnerCoreTests", dependencies: ["MoonRunnerCore", "MoonRunnerTestSupport"]),
        .testTarget(name: "MoonRunnerSensorsTests", dependencies: ["MoonRunnerSensors", "MoonRunnerTestSupport"]),
        .testTarget(name: "MoonRunnerStoreTests", dependencies: ["MoonRunnerStore"]),
        .testTarget(name: "MoonRunnerTerrainTests", dependencies: ["MoonRunnerTerrain", "MoonRunnerTestSupport"]),
        .testTarget(name: "MoonRunnerExportTests", dependencies: ["MoonRunnerExport", "MoonRunnerTestSupport"]),
        .testTarget(name: "MoonRunnerProtocolTests", dependencies: ["MoonRunnerProtocol"]),
        .testTarget(name: "MoonRunnerDaemonTests", dependencies: ["MoonRunnerDaemon", "MoonRunnerConfig"]),
        .testTarget(name: "MoonRunnerAnnounceCoreTests", dependencies: [
            "MoonRunnerAnnounceCore", "MoonRunnerYAML", "MoonRunnerConfig", "MoonRunnerTestSupport",
        ]),
        // The libyaml reader against Yams, document by document.
        .testTarget(name: "MoonRunnerYAMLTests", dependencies: [
            "MoonRunnerYAML", .product(name: "Yams", package: "Yams"),
        ]),
        .testTarget(name: "MoonRunnerConfigTests", dependencies: ["MoonRunnerConfig", "MoonRunnerCore"]),
        .testTarget(name: "MoonRunnerWebTests", dependencies: [
            "MoonRunnerWeb", "MoonRunnerConfig", "MoonRunnerTestSupport", "MoonRunnerUpload",
            .product(name: "HummingbirdTesting", package: "hummingbird"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
            .product(name: "Logging", package: "swift-log"),
            .product(name: "GRDB", package: "GRDB.swift"),
        ]),
        .testTarget(name: "MoonRunnerUploadTests", dependencies: [
            "MoonRunnerUpload", "MoonRunnerProtocol", "MoonRunnerExport", "MoonRunnerCore", "MoonRunnerWeb",
            "MoonRunnerConfig", "MoonRunnerTestSupport",
            .product(name: "GRDB", package: "GRDB.swift"),
            .product(name: "AsyncHTTPClient", package: "async-http-client"),
        ]),
        .testTarget(name: "EndToEndTests", dependencies: ["MoonRunnerCore", "MoonRunnerProtocol", "MoonRunnerStore", "MoonRunnerSensors",
                                                         "MoonRunnerExport", "MoonRunnerTestSupport"]),
    ],
    swiftLanguageModes: [.v6]
)

// `make test-arm64` cross-builds only the pure modules' tests (MOONRUNNER_TEST_TARGETS, a comma-separated
// list): the web app's, the daemon's, the sensors' and the end-to-end suites need what runs on the build
// machine only (a browser, gpsd, BlueZ's stand-in, processes talking over sockets) and are `make test`'s.
if let only = Context.environment["MOONRUNNER_TEST_TARGETS"], !only.isEmpty {
    let keep = Set(only.split(separator: ",").map(String.init))
    package.targets.removeAll { $0.type == .test && !keep.contains($0.name) }
}

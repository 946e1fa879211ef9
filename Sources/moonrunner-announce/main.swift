import MoonRunnerAnnounceShell

// The announcer on its own, for development and the tests; the package runs
// the same code as /usr/bin/moonrunner-announce, a link to moonrunner.
AnnounceCommand.main()

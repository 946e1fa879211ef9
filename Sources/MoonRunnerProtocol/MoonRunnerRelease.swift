/// MoonRunner's release: what every program's `--version` prints and the
/// daemon's `VERSION` reply carries. Kept equal to debian/changelog's upstream
/// version (the part before the Debian revision) by a test.
public enum MoonRunnerRelease {
    public static let version = "0.1.0"
}

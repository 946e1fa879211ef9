import FoundationEssentials
import MoonRunnerSystem
import MoonRunnerYAML

/// `moonrunner.yaml` and `announce.yaml` as the daemon, the web app and the
/// announcer read them: the same three errors (unreadable, not YAML, not a
/// mapping), named the same way whoever reads the file.
public enum ConfigFile {
    /// The top-level mapping of the file at `path`; nil for an empty file.
    public static func mapping(at path: String) throws(ConfigError) -> [String: Any]? {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError(key: "--config", value: path, allowed: "a readable YAML file (\(fileErrorText(error)))")
        }
        return try mapping(text, source: path)
    }

    /// The top-level mapping of `text`; `source` names it in errors.
    public static func mapping(_ text: String, source: String) throws(ConfigError) -> [String: Any]? {
        let root: Any?
        do {
            root = try YAMLReader.load(text)
        } catch {
            throw ConfigError(key: "(file)", value: source, allowed: "valid YAML: \(error)")
        }
        guard let root else { return nil }
        guard let map = root as? [String: Any] else {
            throw ConfigError(key: "(file)", value: source, allowed: "a mapping of keys to values at the top level")
        }
        return map
    }
}

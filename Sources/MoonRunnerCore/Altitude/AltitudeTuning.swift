/// The terrain settings of the altitude fusion by name (`analyze
/// --terrain-option KEY=VALUE`), so that the evaluation can cross-validate
/// them without rebuilding (`Tests/Tools/eval_terrain.py --cv`).
public enum AltitudeTuning {
    public struct Invalid: Error {}

    private static let setters: [String: @Sendable (inout AltitudeFusionConfig, Double) -> Void] = [
        "band_m": { $0.terrainBand = $1 },
        "sigma_m": { $0.terrainSigma = $1 },
        "correlation_m": { $0.terrainCorrelation = $1 },
        "ease_m": { $0.terrainEase = $1 },
    ]

    public static var keys: [String] { setters.keys.sorted() }

    public static func apply(_ option: String, to config: AltitudeFusionConfig) throws(Invalid) -> AltitudeFusionConfig {
        let parts = option.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, let set = setters[parts[0]], let value = Double(parts[1]), value.isFinite, value >= 0 else {
            throw Invalid()
        }
        var c = config
        set(&c, value)
        return c
    }
}

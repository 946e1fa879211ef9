/// How much the terrain under the track rose and fell over the last stretch
/// run: the highest minus the lowest of the terrain altitudes sampled every
/// `step` metres over the last `window` metres.
///
/// A terrain model whose relief over a kilometre stays within its own error
/// (a running track, a flat park) cannot say whether the ground there rises
/// or falls: each lap of a track over a DEM error of a few metres would count
/// that error again. There only climbs beyond that error count
/// (`AltitudeFusionConfig.terrainFlatRelief`).
///
/// A fixed ring of samples, no allocation after the first; O(ring) per fix.
struct TerrainRelief: Sendable, Equatable {
    private var heights: [Double]
    private var distances: [Double]
    private var next = 0
    private var count = 0

    init(config: AltitudeFusionConfig) {
        let n = max(2, Int((config.terrainReliefWindow / config.terrainReliefStep).rounded(.up)) + 1)
        heights = [Double](repeating: .nan, count: n)
        distances = heights
    }

    /// Takes the terrain altitude `h` at `travelled` metres; the relief over the window now.
    mutating func add(_ h: Double, travelled: Double, config: AltitudeFusionConfig) -> Double {
        guard h.isFinite else { return relief(including: .nan, at: travelled, config: config) }
        let last = count > 0 ? distances[(next + heights.count - 1) % heights.count] : -Double.infinity
        if travelled - last >= config.terrainReliefStep {
            heights[next] = h
            distances[next] = travelled
            next = (next + 1) % heights.count
            count = min(count + 1, heights.count)
        }
        return relief(including: h, at: travelled, config: config)
    }

    private func relief(including h: Double, at travelled: Double, config: AltitudeFusionConfig) -> Double {
        var lo = h.isFinite ? h : Double.infinity, hi = h.isFinite ? h : -Double.infinity
        for i in 0..<count where travelled - distances[i] <= config.terrainReliefWindow {
            lo = min(lo, heights[i])
            hi = max(hi, heights[i])
        }
        return hi >= lo ? hi - lo : 0
    }
}

import Glibc

/// A uniform grid over a course's plane listing, per cell, the segments
/// whose bounding box touches it (compressed rows: one array of cell starts,
/// one of segment indices, each cell's list in course order). Finding the
/// segments near a position costs the cells around it, not the course.
struct SegmentGrid: Sendable {
    let originEast: Double
    let originNorth: Double
    let cell: Double
    let columns: Int
    let rows: Int
    private let starts: [Int32]
    private let items: [Int32]

    /// Cell edge, metres: about the distances matching asks about (the
    /// off-course threshold), a few segments per cell.
    static let preferredCell = 50.0
    /// The grid never has more cells than this (the cell grows instead).
    static let maxCells = 1 << 18

    init(east: [Double], north: [Double]) {
        let minE = east.min() ?? 0, maxE = east.max() ?? 0
        let minN = north.min() ?? 0, maxN = north.max() ?? 0
        var cell = Self.preferredCell
        while ((maxE - minE) / cell + 1) * ((maxN - minN) / cell + 1) > Double(Self.maxCells) { cell *= 2 }
        self.cell = cell
        originEast = minE
        originNorth = minN
        let columns = Int((maxE - minE) / cell) + 1
        let rows = Int((maxN - minN) / cell) + 1
        self.columns = columns
        self.rows = rows
        var counts = [Int32](repeating: 0, count: columns * rows + 1)
        func cells(_ i: Int, _ body: (Int) -> Void) {
            let c0 = Int((min(east[i], east[i + 1]) - minE) / cell), c1 = Int((max(east[i], east[i + 1]) - minE) / cell)
            let r0 = Int((min(north[i], north[i + 1]) - minN) / cell), r1 = Int((max(north[i], north[i + 1]) - minN) / cell)
            for r in max(0, r0)...min(rows - 1, max(r0, r1)) {
                for c in max(0, c0)...min(columns - 1, max(c0, c1)) { body(r * columns + c) }
            }
        }
        let segments = max(0, east.count - 1)
        for i in 0..<segments { cells(i) { counts[$0 + 1] += 1 } }
        for k in 1..<counts.count { counts[k] += counts[k - 1] }
        var fill = counts
        var items = [Int32](repeating: 0, count: Int(counts[counts.count - 1]))
        for i in 0..<segments {
            cells(i) { k in
                items[Int(fill[k])] = Int32(i)
                fill[k] += 1
            }
        }
        starts = counts
        self.items = items
    }

    private func column(_ x: Double) -> Int { Int(((x - originEast) / cell).rounded(.down)) }
    private func row(_ y: Double) -> Int { Int(((y - originNorth) / cell).rounded(.down)) }

    /// The nearest projection among the segments in `range`, searched ring by
    /// ring of cells around (x, y) until no closer segment can remain; nil
    /// when the range has no segment in the grid (cannot happen for a range
    /// of the course's own segments).
    func nearest(_ x: Double, _ y: Double, range: ClosedRange<Int>,
                 project: (Int) -> CourseProjection) -> CourseProjection? {
        let cx = column(x), cy = row(y)
        let maxRing = max(abs(cx), abs(cx - (columns - 1)), abs(cy), abs(cy - (rows - 1)))
        var best = CourseProjection(segment: -1, progress: 0, distance: .infinity, east: 0, north: 0)
        for k in 0...maxRing {
            let r0 = cy - k, r1 = cy + k, c0 = cx - k, c1 = cx + k
            // The ring's top and bottom rows, then its two side columns.
            let cLo = max(0, c0), cHi = min(columns - 1, c1)
            if cLo <= cHi {
                if r0 >= 0 && r0 < rows { for c in cLo...cHi { scan(c, r0, range, project, &best) } }
                if k > 0 && r1 >= 0 && r1 < rows { for c in cLo...cHi { scan(c, r1, range, project, &best) } }
            }
            let rLo = max(0, r0 + 1), rHi = min(rows - 1, r1 - 1)
            if k > 0 && rLo <= rHi {
                if c0 >= 0 && c0 < columns { for r in rLo...rHi { scan(c0, r, range, project, &best) } }
                if c1 >= 0 && c1 < columns { for r in rLo...rHi { scan(c1, r, range, project, &best) } }
            }
            // Anything in a further ring is at least k cells away.
            if best.distance <= Double(k) * cell { break }
        }
        return best.segment >= 0 ? best : nil
    }

    @inline(__always)
    private func scan(_ c: Int, _ r: Int, _ range: ClosedRange<Int>, _ project: (Int) -> CourseProjection,
                      _ best: inout CourseProjection) {
        let k = r * columns + c
        for j in Int(starts[k])..<Int(starts[k + 1]) {
            let i = Int(items[j])
            guard range.contains(i) else { continue }
            let p = project(i)
            if p.distance < best.distance { best = p }
        }
    }

    /// Appends the segments in `range` listed in the cells that the square of
    /// half-side `radius` around (x, y) touches (a segment may repeat).
    func collect(_ x: Double, _ y: Double, radius: Double, range: ClosedRange<Int>, into out: inout [Int32]) {
        let c0 = max(0, column(x - radius)), c1 = min(columns - 1, column(x + radius))
        let r0 = max(0, row(y - radius)), r1 = min(rows - 1, row(y + radius))
        guard c0 <= c1, r0 <= r1 else { return }
        for r in r0...r1 {
            for c in c0...c1 {
                let k = r * columns + c
                for j in Int(starts[k])..<Int(starts[k + 1]) where range.contains(Int(items[j])) { out.append(items[j]) }
            }
        }
    }
}

import Foundation
import Testing
@testable import MoonRunnerCore

/// A course file's own points, placed on the course in course order.
@Suite("Course cues: a file's points on its course")
struct CourseCuesTests {
    static func mark(_ kind: CueKind, _ east: Double, _ north: Double, name: String? = nil,
                     distance: Double? = nil) -> CourseMark {
        let ll = CourseSketch.plane.unproject(east: east, north: north)
        return CourseMark(latitude: ll.lat, longitude: ll.lon, kind: kind, name: name, distance: distance)
    }

    @Test("three laps with a point at the same corner each lap: each point at its own lap, in the file's order")
    func laps() throws {
        let lap = [(0.0, 0.0), (300.0, 0.0), (300.0, 150.0), (0.0, 150.0)]
        let g = try CourseSketch.geometry(lap + lap + lap + [(0, 0)])
        let marks = (0..<3).map { Self.mark(.left, 301, 2, name: "Lap \($0 + 1)") }
        let cues = CourseCues.make(marks: marks, geometry: g)
        #expect(cues.map(\.name) == ["Lap 1", "Lap 2", "Lap 3"])
        #expect(zip(cues.map(\.courseM), [300.0, 1200, 2100]).allSatisfy { abs($0 - $1) < 3 }, "\(cues.map(\.courseM))")
        // A file naming turns is not cued from its shape as well.
        #expect(cues.count == 3 && cues.allSatisfy { !$0.found })
    }

    @Test("an out-and-back's two legs 8 m apart: the way out's point on the way out, the way back's on the way back")
    func outAndBack() throws {
        let g = try CourseSketch.geometry([(0, 0), (1000, 0), (1000, -8), (0, -8)])
        let marks = [Self.mark(.right, 400, 1, name: "out"), Self.mark(.left, 400, -9, name: "back")]
        let cues = CourseCues.make(marks: marks, geometry: g)
        #expect(cues.map(\.name) == ["out", "back"])
        // Along the course as `CourseGeometry` measures it (great circles: 0.3 % shorter east-west
        // than the sketch's WGS-84 plane at 47°), within 2 m.
        #expect(abs(cues[0].courseM - 400 * 0.997) < 2 && abs(cues[1].courseM - 1608 * 0.997) < 2, "\(cues.map(\.courseM))")
    }

    @Test("a FIT point's own distance picks its pass; a point farther than 50 m from the course is kept as an off-course point of interest")
    func distanceAndOffCourse() throws {
        let lap = [(0.0, 0.0), (300.0, 0.0), (300.0, 150.0), (0.0, 150.0)]
        let g = try CourseSketch.geometry(lap + lap + [(0, 0)])
        let marks = [Self.mark(.water, 150, 1, distance: 1050), Self.mark(.food, 150, 90, name: "Café")]
        let cues = CourseCues.place(marks, on: g)
        #expect(abs(cues[0].courseM - 1050) < 3 && !cues[0].offCourse)
        #expect(cues[1].offCourse && abs(cues[1].offsetM - 60) < 1 && cues[1].name == "Café")
        // Kept in the list, never said.
        #expect(CueGuide(cues: cues).cues.count == 1)
    }

    @Test("a file with points of interest only is cued from its shape as well")
    func shapeToo() throws {
        let g = try CourseSketch.geometry([(0, 0), (300, 0), (300, 300)])
        let cues = CourseCues.make(marks: [Self.mark(.water, 100, 0)], geometry: g)
        #expect(cues.map(\.kind) == [.water, .left])
    }
}

import Foundation
import MoonRunnerCore
import Testing

@Suite("GPS error model")
struct GPSErrorModelTests {
    static func fix(eph: Double = .nan, epv: Double = .nan, stdLat: Double = .nan, stdLon: Double = .nan,
                    stdAlt: Double = .nan) -> GPSFix {
        GPSFix(time: 1_700_000_000, mode: 3, latitude: 47, longitude: 8, altitude: 400, eph: eph, epv: epv,
               stdLat: stdLat, stdLon: stdLon, stdAlt: stdAlt)
    }

    @Test("95 % of a circular normal error lies within √(−2 ln 0.05) σ (gpsd's 2.45), of a one-dimensional one within 1.96 σ")
    func constants() {
        let k = GPSErrorModel.sigmasIn95PercentRadius
        // gpsd's rounding of √(−2 ln 0.05) = 2.4477: within 0.1 %, and 95.03 % inside it.
        #expect(abs(k / (-2 * log(0.05)).squareRoot() - 1) < 1e-3)
        #expect(abs((1 - exp(-k * k / 2)) - 0.95) < 1e-3)
        let z = GPSErrorModel.sigmasIn95PercentInterval
        // Φ(z) − Φ(−z) = erf(z / √2).
        #expect(abs(erf(z / 2.0.squareRoot()) - 0.95) < 1e-12)
    }

    @Test("gpsd's eph is brought to an honest 95 % radius by the pessimism, then to 1σ per axis")
    func fromEph() throws {
        let k = GPSErrorModel.sigmasIn95PercentRadius
        let e = try #require(GPSErrorModel(ephPessimism: 2.5).horizontal(of: Self.fix(eph: 2.5 * 4 * k)))
        #expect(abs(e.radius95 - 4 * k) < 1e-12)
        #expect(abs(e.sigma - 4) < 1e-12)
        #expect(e.east == e.sigma && e.north == e.sigma && !e.fromReceiver)
        let honest = try #require(GPSErrorModel(ephPessimism: 1).horizontal(of: Self.fix(eph: 10)))
        #expect(honest.radius95 == 10)
    }

    @Test("a receiver's GST is taken as it is: each axis, their root mean square, and the radius from that")
    func fromGST() throws {
        let e = try #require(GPSErrorModel().horizontal(of: Self.fix(eph: 50, stdLat: 3, stdLon: 4)))
        #expect(e.north == 3 && e.east == 4 && e.fromReceiver)
        #expect(abs(e.sigma - (12.5).squareRoot()) < 1e-12)
        #expect(abs(e.radius95 - GPSErrorModel.sigmasIn95PercentRadius * (12.5).squareRoot()) < 1e-12)
    }

    @Test("a fix that says nothing of its error has none")
    func unknown() {
        #expect(GPSErrorModel().horizontal(of: Self.fix()) == nil)
        #expect(GPSErrorModel().verticalSigma(of: Self.fix()).isNaN)
    }

    @Test("vertically: GST's 1σ as it is, else epv, a 95 % interval as pessimistic as eph")
    func vertical() {
        #expect(GPSErrorModel().verticalSigma(of: Self.fix(epv: 30, stdAlt: 2)) == 2)
        let sigma = GPSErrorModel(ephPessimism: 2.5).verticalSigma(of: Self.fix(epv: 2.5 * 1.959_963_984_540_054 * 3))
        #expect(abs(sigma - 3) < 1e-12)
    }

    @Test("the filter's accuracy gate and signal grade read the model's 95 % radius")
    func filterReadsTheModel() {
        let model = GPSFilterConfig().errorModel
        #expect(model == GPSErrorModel(ephPessimism: GPSFilterConfig().ephPessimism))
        // 74 m of eph is 29.6 m of 95 % radius, under the 30 m gate; 76 m is 30.4 m, over it.
        var filter = GPSFilter()
        var t = 1_700_000_000.0
        var last: GPSFilterOutput?
        for eph in [74.0, 74, 74, 76] {
            last = filter.process(GPSFix(time: t, mode: 3, latitude: 47, longitude: 8, eph: eph), at: t)
            if eph == 74 { #expect(filter.signal == .better) }
            t += 1
        }
        #expect(last?.rejection == .poorAccuracy)
    }
}

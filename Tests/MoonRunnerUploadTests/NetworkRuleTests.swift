import Testing
@testable import MoonRunnerUpload

@Suite("Upload: the home-network rule over what NetworkManager reports")
struct NetworkRuleTests {
    static let home = NetworkView(up: true, names: ["home-5G", "Home profile"])
    static let hotspot = NetworkView(up: true, names: ["Pixel 8", "phone"])
    static let down = NetworkView(up: false, names: [])

    @Test("with no networks listed any connected network allows uploads, and none while down")
    func anyNetwork() {
        let rule = NetworkRule(networks: [])
        #expect(rule.allows(Self.home) && rule.allows(Self.hotspot))
        #expect(!rule.allows(Self.down))
        // Connected (NM state >= 50) with no primary connection's name: a wired link, allowed.
        #expect(rule.allows(NetworkView(up: true, names: [])))
    }

    @Test("with networks listed only those allow uploads: the phone's hotspot mid-run does not")
    func listed() {
        let rule = NetworkRule(networks: ["home-5G"])
        #expect(rule.allows(Self.home))
        #expect(!rule.allows(Self.hotspot))
        #expect(!rule.allows(NetworkView(up: true, names: [])), "an unnamed network is not a listed one")
        #expect(!rule.allows(NetworkView(up: false, names: ["home-5G"])), "a name without a connection is not enough")
    }

    @Test("a listed name matches the SSID or the profile's name, exactly (SSIDs are case-sensitive)")
    func names() {
        #expect(NetworkRule(networks: ["Home profile"]).allows(Self.home))
        #expect(!NetworkRule(networks: ["home-5g"]).allows(Self.home))
    }

    @Test("the network returns when a view allows uploads after one that did not, not on every report")
    func returned() {
        let rule = NetworkRule(networks: ["home-5G"])
        #expect(rule.returned(to: Self.home, allowedBefore: false))
        #expect(!rule.returned(to: Self.home, allowedBefore: true))
        #expect(!rule.returned(to: Self.hotspot, allowedBefore: false))
    }
}

extension PhraseTable {
    /// Mandarin (espeak-ng `cmn`). "GPS" is 卫星信号: the pinyin voice
    /// cannot read Latin letters as English.
    public static let mandarin = PhraseTable(
        language: .cmn,
        templates: [
            .startRun: "跑步开始。",
            .startWalk: "步行开始。",
            .pause: "已暂停。",
            .resume: "继续。",
            .autopause: "自动暂停。",
            .autoresume: "自动继续。",
            .lap: "第{number}圈。",
            .split: "{distance}。本段用时{time}。配速每{unit}{pace}。",
            .interval: "用时{time}。{distance}。平均配速每{unit}{pace}。",
            .summaryRun: "跑步结束。{distance}，用时{time}。平均配速每{unit}{pace}。",
            .summaryWalk: "步行结束。{distance}，用时{time}。平均配速每{unit}{pace}。",
            .summaryShort: "结束，用时{time}。",
            .badgeEarned: "获得{badge}徽章。",
            .badgePassed: "已超过{badge}徽章距离。",
            .badgeSilver: "获得{badge}银徽章。",
            .badgeGold: "获得{badge}金徽章。",
            .offCourse: "偏离路线。",
            .offCourseDirection: "偏离路线。路线在{direction}方。",
            .offCourseDirectionDistance: "偏离路线。路线在{direction}方{distance}。",
            .onCourse: "回到路线。",
            .courseToGo: "还剩{distance}。",
            .courseFinished: "路线完成。",
            .arrived: "已到达目的地。",
            .arrivedAt: "已到达{name}。",
            .gpsLost: "卫星信号丢失。",
            .gpsRegained: "卫星信号恢复。",
            .heartRateConnected: "心率已连接。",
            .heartRateLost: "心率信号丢失。",
            .heartRateZone: "心率{bpm}，{zone}区。",
            .heartRateZoneOnly: "{zone}区。",
        ],
        badgeNames: [
            "Moon": "月球", "Mercury": "水星", "Venus": "金星", "Mars": "火星", "Ceres": "谷神星",
            "Jupiter": "木星", "Saturn": "土星", "Uranus": "天王星", "Neptune": "海王星", "Pluto": "冥王星",
        ],
        wording: MandarinWording())
}

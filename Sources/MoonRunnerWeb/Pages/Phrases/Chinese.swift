import MoonRunnerAnnounceCore
import MoonRunnerExport

extension Phrases {
    /// 简体中文, in the announcer's wording (配速, 圈, 路线, 卫星信号); badge names are the announcer's.
    public static let chinese = Phrases(
        language: .chinese,
        table: [
            .navLive: "跑步", .navHistory: "记录", .navCourses: "路线", .navWorkouts: "训练", .navBadges: "徽章", .navSettings: "设置",
            .appName: "MoonRunner",
            .stateIdle: "就绪", .stateRecording: "记录中", .statePaused: "已暂停", .stateAutoPaused: "自动暂停",
            .stateStopped: "已结束",
            .liveTitle: "跑步", .distance: "距离", .elapsed: "用时", .moving: "运动时间", .pace: "配速",
            .averagePace: "平均配速", .speed: "速度", .averageSpeed: "平均速度", .climbRate: "爬升速度",
            .splitSpeed: "速度（{unit}）", .steps: "步数", .cadence: "步频", .climb: "爬升", .descent: "下降",
            .gps: "卫星信号", .calories: "热量",
            .gradeBest: "极好", .gradeBetter: "良好", .gradeAverage: "一般", .gradeBad: "差", .gradeNone: "无定位",
            .linkLost: "与树莓派的连接已断开，正在重连…", .daemonDown: "树莓派上的 MoonRunner 未运行，正在等待…",
            .live: "实时",
            .course: "路线", .progress: "已完成", .toGo: "还剩", .eta: "预计到达", .offCourse: "偏离路线",
            .offCourseBack: "路线在{direction}方{distance}（{bearing}°）", .onCourse: "在路线上",
            .courseFinished: "路线完成", .notOnCourseYet: "尚未到达路线",
            .home: "回起点", .destination: "目的地", .arrived: "已到达", .nextBadge: "下一枚徽章",
            .battery: "电量", .batteryCharging: "充电中",
            .workout: "训练", .target: "目标", .now: "当前", .stepLeft: "剩余", .inTarget: "达标", .roundOf: "第{n}/{of}组",
            .speedUp: "加快", .easeOff: "放慢", .tooLow: "偏低", .tooHigh: "偏高", .onTarget: "在目标内",
            .runWorkout: "训练计划", .noWorkout: "不用训练计划",
            .workoutsTitle: "训练计划", .noWorkouts: "还没有训练计划：在下面输入一个，或添加FIT训练文件。",
            .workoutText: "文字格式", .workoutTextHint: "15m easy; 6x(800m @3:50-4:00/km, 90s rest); 10m easy",
            .workoutAdded: "已添加{name}。", .workoutDeleted: "训练计划已删除。", .notAWorkout: "未保存：{reason}",
            .intensityWarmup: "热身", .intensityActive: "跑步", .intensityInterval: "间歇", .intensityRest: "休息",
            .intensityRecovery: "恢复", .intensityCooldown: "放松",
            .nextCue: "下一个", .cues: "转弯与地点", .cuesFound: "从路线形状找出的转弯",
            .cuesFromFile: "文件自带的点", .noCues: "没有转弯：路线是直的或缓弯。", .cueOffCourse: "离路线{distance}：只列出，不播报",
            .toGoShort: "还剩{distance}",
            .heartRate: "心率", .hrZone: "区间", .hrSearching: "正在寻找心率带…", .hrLost: "心率带断开",
            .hrConnected: "心率带已连接", .hrAverage: "平均心率", .hrMaximum: "最高心率", .hrZoneTime: "各心率区间时间",
            .trainingLoad: "训练负荷",
            .start: "开始", .activity: "运动", .run: "跑步", .walk: "步行", .trailRun: "越野跑", .hike: "徒步",
            .ride: "骑行", .followCourse: "跟随路线",
            .noCourse: "不跟随路线", .headFor: "前往（可选）", .headForHint: "纬度, 经度",
            .pause: "暂停", .resume: "继续", .lap: "计圈", .stop: "结束…", .stopConfirm: "结束并保存本次运动？",
            .stopReally: "确定结束", .cancel: "继续运动",
            .voice: "语音", .voiceOn: "打开语音", .voiceOff: "关闭语音", .voiceMuted: "已静音", .laps: "圈数",
            .historyTitle: "记录", .noSessions: "还没有记录。在“跑步”页开始一次运动。", .date: "日期",
            .moved: "运动时间", .badge: "徽章", .older: "更早", .newer: "最新",
            .weeklyTotals: "每周合计", .monthlyTotals: "每月合计", .week: "周（起始）", .month: "月份",
            .sessionsCount: "次数", .weeksStart: "每周从星期一开始。", .timeZoneNote: "日期按您的时区（{zone}）显示。",
            .interrupted: "中断", .recordingNow: "正在记录",
            .sessionTitle: "运动记录", .map: "轨迹", .charts: "随距离变化", .splits: "分段",
            .splitPace: "配速（{unit}）", .splitTime: "用时", .splitNumber: "段", .elevationChange: "爬升",
            .lapNumber: "圈", .lapTime: "用时", .maxSpeed: "最高速度", .bestPace: "最快一公里",
            .elevationSource: "海拔来源", .barometric: "气压计", .terrainModel: "地形数据", .gpsAltitude: "卫星定位",
            .badgesEarned: "获得的徽章", .courseFollowed: "跟随的路线", .finished: "已完成", .notFinished: "未完成",
            .downloads: "下载", .delete: "删除…", .deleteConfirm: "永久删除这次运动及其轨迹？", .deleteReally: "确定删除",
            .points: "轨迹点",
            .mapLegend: "S 起点 · F 终点 · ‖ 暂停 · ! 卫星信号丢失 · 颜色：红慢绿快",
            .tilesUnavailable: "地图底图无法加载，仅显示轨迹。",
            .coursesTitle: "路线", .coursePoints: "个点", .noCourses: "还没有路线。请在下方上传 GPX、TCX 或 FIT 文件。",
            .length: "长度", .added: "添加于", .upload: "上传路线",
            .uploadHint: "GPX（轨迹或航线）、TCX 或 FIT 路线文件，最大 {size}。", .file: "文件",
            .name: "名称（可选）", .follow: "跟随", .courseDeleted: "路线已删除。", .courseAdded: "已添加路线：{name}。",
            .uploadTooLarge: "文件超过 {size}，未保存任何内容。", .notACourse: "该文件不是路线：{reason}。未保存任何内容。",
            .brokenUpload: "上传的数据不完整或已损坏，未保存任何内容，请重试。", .noFile: "请先选择文件。",
            .badgesTitle: "徽章", .tier: "等级", .tierEarned: "已获得", .tierSilver: "银", .tierGold: "金",
            .notEarned: "未获得", .earnedBy: "获得于", .best: "最佳", .silverNeeds: "银徽章需",
            .goldNeeds: "金徽章需",
            .settingsTitle: "设置", .language: "语言", .units: "单位", .metric: "公里", .imperial: "英里", .save: "保存",
            .thisPhone: "本手机", .paired: "配对于", .saved: "已保存。",
            .pairTitle: "配对本手机", .pairIntro: "在树莓派上运行“moonrunner web pair”，然后打开它显示的地址（或扫描二维码），或在此输入配对码。",
            .pairCode: "配对码", .pairName: "为本手机命名", .pairButton: "配对",
            .pairWrong: "配对码错误或已过期。请重新运行“moonrunner web pair”获取新的配对码。",
            .pairWait: "此地址输错次数过多，请 {seconds} 秒后再试。",
            .pairDone: "配对成功。", .pairAlready: "本手机已配对，名称为 {name}。", .pairNeeded: "本手机尚未与树莓派配对。",
            .errorTitle: "出错了", .notFound: "未找到。", .notFoundSession: "没有编号为 {id} 的记录，可能已被删除。",
            .daemonDownTitle: "MoonRunner 未运行",
            .daemonDownBody: "网页服务正常，但树莓派上的 MoonRunner 没有响应（{reason}）。它恢复后本页即可使用。",
            .retry: "重试", .forbidden: "不允许。", .forbiddenCSRF: "此表单已过期或来自其他网站。请返回、刷新页面后重试。",
            .refused: "MoonRunner 提示：{message}", .tooManyRequests: "正忙，请稍后再试。", .back: "返回",
            .badRequest: "无法读取该请求。",
            .uploadsTitle: "上传",
            .uploadsIntro: "结束的记录会在树莓派回到允许上传的网络后自动上传到每个已连接的服务，每个只上传一次。",
            .uploadConnected: "已连接",
            .uploadNotConnected: "未连接",
            .uploadReconnect: "重新连接 {target}",
            .uploadDisabled: "已在 moonrunner.yaml 中关闭",
            .uploadConnect: "连接 {target}",
            .uploadClientID: "客户端 ID",
            .uploadClientSecret: "客户端密钥",
            .uploadAthleteID: "运动员 ID",
            .uploadAPIKey: "API 密钥",
            .uploadUser: "用户名",
            .uploadPassword: "应用密码",
            .uploadSecretSet: "已保存（不显示）",
            .uploadRetry: "重试",
            .uploadAgain: "再次上传",
            .uploadOpen: "打开",
            .uploadNone: "尚未上传任何记录。",
            .uploadServiceDown: "上传服务未运行：{reason}",
            .uploadNetworkWaits: "正在等待允许上传的网络。",
            .uploadQueued: "等待中",
            .uploadSending: "发送中",
            .uploadProcessing: "处理中",
            .uploadDone: "已上传",
            .uploadFailed: "失败",
            .uploadDeleted: "发送前已删除",
            .uploadEmpty: "隐私区域外没有轨迹",
            .uploadHeld: "等待重新连接",
            .uploadPrivacyOn: "隐私区域已开启",
            .uploadGrantFailed: "{target} 未授予访问权限：{message}",
            .uploadSetupHint: "只需输入一次；保存在树莓派上，不会再显示。",
            .uploadsLink: "上传：Strava、intervals.icu、FitTrackee、WebDAV",
        ],
        badgeNames: PhraseTable.mandarin.badgeNames,
        charts: chineseCharts)

    static let chineseCharts: ChartLabels = {
        var c = ChartLabels()
        c.pace = "配速"
        c.paceHint = "越高越快"
        c.paceAxis = "配速"
        c.elevation = "海拔"
        c.elevationAxis = "海拔"
        c.climb = "爬升"
        c.descent = "下降"
        c.cadence = "步频"
        c.cadenceAxis = "步频"
        c.stepsPerMinute = "步/分"
        c.distanceAxis = "距离"
        c.average = "平均"
        c.slow = "慢"
        c.fast = "快"
        c.noDistance = "没有记录到距离"
        c.noElevation = "没有海拔数据"
        c.noCadence = "没有记录到步数"
        c.noTrack = "没有记录到卫星轨迹"
        c.gpsLost = "卫星信号丢失"
        c.partialSplit = "最后"
        return c
    }()
}

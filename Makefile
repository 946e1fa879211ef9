# MoonRunner — the two commands of the README are `make run` and `make test`.
# Both install the Debian packages they need first (apt-get, as root or via sudo).

SWIFT      ?= swift
DATA       ?= ../shared/data
PREFIX     ?= /usr/local
SPEED      ?= 10
DEB_PKGS   := libgps-dev libi2c-dev libsystemd-dev libgcrypt20-dev zlib1g-dev libtiff-dev pkg-config gpsd gpsd-clients python3 \
              python3-pip gpsbabel librsvg2-bin systemd util-linux faketime \
              espeak-ng sox alsa-utils libyaml-dev dbus-daemon libxml2-utils \
              chromium chromium-driver fonts-noto-cjk qrencode libjs-leaflet \
              postgresql-15 postgresql-15-postgis-3 avahi-daemon avahi-utils python3-venv
## What `make deb` and `make deb-check` need besides: Debian's packaging tools,
## a clean Debian 12 root (debootstrap) and systemd-analyze's unit checks; for ARCH=arm64
## the roots' makers (mmdebstrap) and arm64 programs run by qemu-user-static through binfmt_misc.
DEB_TOOLS  := debhelper dpkg-dev fakeroot lintian debootstrap systemd \
              $(if $(filter-out $(HOST_ARCH),$(ARCH)),mmdebstrap qemu-user-static binfmt-support arch-test)
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBUG_BIN   = .build/debug
## The package's architecture: this machine's, or arm64 cross-built (`make deb ARCH=arm64`,
## see cross/cross.py) for Debian 13 / Raspberry Pi OS 13 64-bit.
HOST_ARCH  := $(shell dpkg --print-architecture 2>/dev/null || echo amd64)
ARCH       ?= $(HOST_ARCH)
## The cross build's roots (a sid build root with Debian's Swift, a trixie arm64 sysroot, a
## clean trixie arm64 root: about 4 GB) live outside the clone, so that a new clone finds them.
CROSS_CACHE ?= $(HOME)/.cache/moonrunner-cross
CROSS_SDK  := moonrunner-trixie-arm64
## SWIFT_SDK is set by `make deb ARCH=arm64` for the builds it runs in the cross build root:
## the one release build, with the Swift SDK named and its own scratch folder.
ifneq ($(SWIFT_SDK),)
SCRATCH    := .build/$(SWIFT_SDK)
SDK_FLAGS  := --swift-sdks-path /sdks --swift-sdk $(SWIFT_SDK) --scratch-path $(SCRATCH) --disable-automatic-resolution
RELEASE_BIN = $(SCRATCH)/release
DEPS       :=
else
RELEASE_BIN = .build/release
DEPS       := deps
endif
## The one release build (make run, the accuracy checks, make install, make bench,
## make deb): the Swift runtime and Foundation linked in, so the binaries need
## only Debian's libraries; no $ORIGIN run path (nothing is loaded from beside them);
## symbols bound at start (-z now: the GOT is read-only after relocation, as Debian's hardening asks);
## no dynamic symbol table of every Swift symbol (the static runtime's -export-dynamic is for
## plugins loaded with dlopen, which nothing here does: 2.2 MB of the daemon's size);
## linked by lld with packed relative relocations (DT_RELR, glibc 2.36 = bookworm): the
## 2.4 MB of relocation records the loader read at every start become 19 KB.
## Each Swift function in a section of its own, the functions the daemon runs first in
## the code (link/moonrunnerd.order, `make text-order`) and the ones without a name
## before them (link/unnamed-text.ld): the kernel maps code 64 KB at a time around what
## runs, so scattered, they kept 16 MB of it resident (Pss 28.1 -> 18.2 MB).
## The order is asked for only where its files are: a stale list (functions renamed or gone)
## is ignored name by name (--no-warn-symbol-ordering) and a missing one leaves the linker's
## own order; either costs resident memory on the Pi, never a failed build.
ORDER_FLAGS := $(if $(wildcard link/moonrunnerd.order),-Xlinker --symbol-ordering-file=$(CURDIR)/link/moonrunnerd.order \
                 -Xlinker --no-warn-symbol-ordering) \
               $(if $(wildcard link/unnamed-text.ld),-Xlinker -T -Xlinker $(CURDIR)/link/unnamed-text.ld)
RELEASE_FLAGS := -c release --static-swift-stdlib --disable-local-rpath -Xlinker -z -Xlinker now \
                 -Xlinker --no-export-dynamic -Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs \
                 -Xswiftc -Xfrontend -Xswiftc -function-sections $(ORDER_FLAGS) $(SDK_FLAGS)
## What is shipped: user commands (bin) and the services (sbin: the daemon and
## the web app, which systemd runs). The benchmark is not.
## LINKS are commands that are links to moonrunner (it runs them when called by
## their name): one copy of the Swift runtime for all the clients.
COMMANDS   := moonrunner
LINKS      := moonrunner-announce
DAEMONS    := moonrunnerd
## DAEMON_LINKS are services that are links to moonrunnerd (the web app): one
## copy of the runtime, Foundation and ICU's data for the two that need them.
DAEMON_LINKS := moonrunner-web moonrunner-upload
UNITS      := moonrunnerd.service moonrunnerd.socket moonrunner-announce.service moonrunner-web.service \
              moonrunner-upload.service
SBINDIR    ?= $(PREFIX)/sbin
UNITDIR    ?= /etc/systemd/system

.PHONY: all deps deb-deps apt-install build release man run test unit-test package-check accuracy bench soak text-order print-build-files test-arm64 \
        announce-latency fuzz-hr web-browser web-screens install install-files uninstall deb deb-check vm-check clean

all: build

PY_PKGS    := garmin-fit-sdk gpxpy dbus-fast selenium fit-tool
## The upload tests' real servers (WebDAV, FitTrackee) in a virtualenv of their own:
## FitTrackee pins Flask and SQLAlchemy versions the other tools need not share.
UPLOAD_VENV := $(HOME)/.cache/moonrunner-upload/venv
UPLOAD_PY  := wsgidav cheroot fittrackee

## Installs the missing Debian packages, the Python readers the export
## tests check against, fit-tool (a second FIT encoder: the workout files the
## workout reader is tested on), the BlueZ stand-in's D-Bus library and Selenium for
## the web app's browser tests (nothing when all are present). xmllint validates the
## GPX and TCX exports against the schemas pytrainer's package ships
## (Topografix GPX 1.1, Garmin TCX v2): the package is only downloaded and
## unpacked into $(SCHEMAS), not installed (it would pull in GTK and matplotlib).
SCHEMAS    := $(CURDIR)/.build/schemas
deps:
	@$(MAKE) --no-print-directory apt-install PKGS="$(DEB_PKGS)"
	@python3 -c "import garmin_fit_sdk, gpxpy, dbus_fast, selenium, fit_tool" 2>/dev/null || { \
	  echo "installing Python packages: $(PY_PKGS)"; \
	  python3 -m pip install -q $(PY_PKGS) 2>/dev/null || \
	  python3 -m pip install -q --break-system-packages $(PY_PKGS); }
	@$(UPLOAD_VENV)/bin/python3 -c "import wsgidav, cheroot, fittrackee" 2>/dev/null || { \
	  echo "installing the upload tests' servers into $(UPLOAD_VENV): $(UPLOAD_PY)"; \
	  python3 -m venv $(UPLOAD_VENV) && $(UPLOAD_VENV)/bin/pip install -q $(UPLOAD_PY); }

deb-deps: deps
	@$(MAKE) --no-print-directory apt-install PKGS="$(DEB_TOOLS)"

## apt-get install of those of PKGS that are missing (waits for another apt-get's lock).
apt-install:
	@missing=""; for p in $(PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get -o DPkg::Lock::Timeout=600 update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $$missing; \
	fi
	@[ -f $(SCHEMAS)/GarminTrainingCenterDatabase_v2.xsd ] || { \
	  echo "fetching the GPX 1.1 and TCX v2 schemas (pytrainer's package, unpacked only)"; \
	  tmp=$$(mktemp -d) && cd $$tmp && \
	  { apt-get download pytrainer >/dev/null 2>&1 || { $(SUDO) apt-get -o DPkg::Lock::Timeout=600 update -qq && apt-get download pytrainer; }; } && \
	  dpkg-deb -x pytrainer_*.deb x && mkdir -p $(SCHEMAS) && cp x/usr/share/pytrainer/schemas/*.xsd $(SCHEMAS)/ && \
	  cd / && rm -rf $$tmp; }

## The web app is moonrunnerd called by another name (as the package installs
## it): each build folder gets the link the tools and tests run.
build: deps
	$(SWIFT) build
	ln -sf moonrunnerd $(DEBUG_BIN)/moonrunner-web

release: $(DEPS)
	@# The link's order file is not an input SwiftPM knows: a newer one relinks the daemon.
	@if [ -f link/moonrunnerd.order ] && [ $(RELEASE_BIN)/moonrunnerd -ot link/moonrunnerd.order ]; then rm -f $(RELEASE_BIN)/moonrunnerd; fi
	$(SWIFT) build $(RELEASE_FLAGS)
	ln -sf moonrunnerd $(RELEASE_BIN)/moonrunner-web

## Man pages into .build/man: each command's from its own argument parser
## (swift-argument-parser's generate-manual, the tool behind its plugin), dated
## SOURCE_DATE_EPOCH (debian/changelog's date under dpkg-buildpackage, else the
## last commit's) so that they are reproducible; moonrunner.yaml(5) and moonrunner-protocol(7)
## are written by hand (and kept in step by tests).
## generate-manual runs on the build machine (in the cross build root: built by its Swift);
## it runs the commands themselves (arm64 ones through qemu-aarch64).
MAN_SCRATCH := .build/argument-parser-tools$(if $(SWIFT_SDK),-$(SWIFT_SDK))
MAN_TOOL  := $(MAN_SCRATCH)/release/generate-manual
MAN_EPOCH  = $${SOURCE_DATE_EPOCH:-$$(git log -1 --format=%ct 2>/dev/null || echo 0)}
man: release
	@[ -x $(MAN_TOOL) ] || $(SWIFT) build --package-path $(or $(SCRATCH),.build)/checkouts/swift-argument-parser -c release \
	  --product generate-manual --scratch-path $(MAN_SCRATCH)
	rm -rf .build/man && mkdir -p .build/man
	mkdir -p .build/man/bin && for l in $(LINKS); do ln -sf $(CURDIR)/$(RELEASE_BIN)/moonrunner .build/man/bin/$$l; done
	for l in $(DAEMON_LINKS); do ln -sf $(CURDIR)/$(RELEASE_BIN)/moonrunnerd .build/man/bin/$$l; done
	date=$$(date -u -d @$(MAN_EPOCH) +%Y-%m-%d); \
	for c in $(COMMANDS); do $(MAN_TOOL) $(RELEASE_BIN)/$$c --section 1 --date $$date -o .build/man || exit 1; done; \
	for c in $(LINKS); do $(MAN_TOOL) .build/man/bin/$$c --section 1 --date $$date -o .build/man || exit 1; done; \
	for c in $(DAEMONS); do $(MAN_TOOL) $(RELEASE_BIN)/$$c --section 8 --date $$date -o .build/man || exit 1; done; \
	for c in $(DAEMON_LINKS); do $(MAN_TOOL) .build/man/bin/$$c --section 8 --date $$date -o .build/man || exit 1; done
	cp man/moonrunner.yaml.5 man/moonrunner-protocol.7 .build/man/
	rm -r .build/man/bin
	@# A blank line between the discussion's paragraphs is a paragraph break in mdoc (groff warns otherwise).
	sed -i 's/^$$/.Pp/' .build/man/*.1 .build/man/*.8

## Replays the bundled demo walk through gpsd (gpsfake) and moonrunnerd, shows `moonrunner watch`.
run: release
	SPEED=$(SPEED) BIN=$(RELEASE_BIN) Tests/Tools/demo.sh

## The whole suite: unit and end-to-end tests, then the accuracy checks on the labelled data.
## Unit tests run in parallel; the end-to-end tests (daemons, gpsd, sockets)
## one at a time, so that none of them is starved of the machine's cores.
## The accuracy checks run the release build: the one `make run` and
## `make install` ship (the optimiser has its own failures: a release-only
## compiler hang must turn this red), and the faster one.
## A test that cannot run here is skipped by the runner with its reason, never passed
## (root for a tmpfs, the shared data); each `swift test` writes its results as xUnit
## into TEST_LOGS and the Python tools note their skips there (MOONRUNNER_SKIP_LOG), and
## the run ends by saying how many were skipped and why (Tests/Tools/skips.py). CI sets
## MOONRUNNER_NO_SKIPS=1 (.ci/run): everything is there, so a skip fails the run.
## The announcer's 7-minute latency test is `make announce-latency`'s, left out here.
TEST_LOGS  := .build/test-logs
test: export MOONRUNNER_SKIP_LOG = $(CURDIR)/$(TEST_LOGS)/tools.log
test: export MOONRUNNER_UPLOAD_VENV = $(UPLOAD_VENV)
test: deps
	rm -rf $(TEST_LOGS) && mkdir -p $(TEST_LOGS)
	$(SWIFT) build --build-tests
	ln -sf moonrunnerd $(DEBUG_BIN)/moonrunner-web
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) MOONRUNNER_SCHEMAS=$(SCHEMAS) $(SWIFT) test --skip-build --skip EndToEndTests \
	  --xunit-output $(TEST_LOGS)/unit.xml
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) $(SWIFT) test --skip-build --filter EndToEndTests --skip AnnounceLatencyTests \
	  --no-parallel --xunit-output $(TEST_LOGS)/end-to-end.xml
	python3 Tests/Tools/hr_e2e.py --bin $(DEBUG_BIN) --data $(DATA)
	python3 Tests/Tools/upload_e2e.py --bin $(DEBUG_BIN)
	python3 Tests/Tools/battery_e2e.py --bin $(DEBUG_BIN)
	python3 Tests/Tools/avahi_check.py
	$(MAKE) --no-print-directory web-browser BIN=$(DEBUG_BIN)
	$(SWIFT) build $(RELEASE_FLAGS)
	ln -sf moonrunnerd $(RELEASE_BIN)/moonrunner-web
	$(MAKE) --no-print-directory package-check
	$(MAKE) --no-print-directory accuracy BIN=$(RELEASE_BIN)
	python3 Tests/Tools/skips.py $(TEST_LOGS)

## The packaging's fast checks (seconds; `make deb-check` is the slow one): no
## file in Sources/ over 500 lines and no function over 60, every shipped
## binary needs only Debian's libraries, and the commands that need no ICU carry none.
## (That moonrunner.yaml(5) and moonrunner-protocol(7) document every key is for the unit
## tests: ConfigLoaderTests and ProtocolManPageTests.)
package-check:
	python3 Tests/Tools/layout_check.py
	python3 Tests/Tools/package_check.py --bin $(RELEASE_BIN) --daemons "$(DAEMONS)" --commands "$(COMMANDS)" \
	  --links "$(LINKS)" --daemon-links "$(DAEMON_LINKS)"

BIN ?= $(RELEASE_BIN)
## First, what a user sees byte for byte against its stored digest (analyze in
## every mode on every shared trace, the daemon's replies and the CLI's text over a recorded
## session; a change meant to alter them runs output_digest.py --update and says so).
## Then the accuracy figures (GPS, elevation, terrain, courses, cues, auto-pause, steps,
## live uploads, heart rate, activities) on the labelled data (and, for the rejoin, on
## synthetic detours), each at its targets: step counting with
## the default parameters on all data (and its rate independence), then
## cross-validated by person (tuned on one half of the people, scored on the
## other); the rejoin after a detour on all data and each geometry family left
## out of the choice of settings; heart rate against the traces; each activity
## (the real runs against the watch, simulated hikes and rides against their truth,
## GPS only and with an IMU, and each scenario left out of the choice of settings);
## structured workouts (simulated interval sessions through real gpsd: where each step
## ends, the pace and heart-rate alerts; GPS only and with an IMU; the alert settings
## chosen on two thirds, scored on the third held out).
accuracy:
	python3 Tests/Tools/output_digest.py --bin $(BIN) --data $(DATA)
	python3 Tests/Tools/eval_gps.py --bin $(BIN) --data $(DATA) --check
	python3 Tests/Tools/eval_elevation.py --bin $(BIN) --data $(DATA) --check
	python3 Tests/Tools/eval_terrain.py --bin $(BIN) --data $(DATA) --cv --check
	python3 Tests/Tools/eval_course.py --bin $(BIN) --data $(DATA) --check
	python3 Tests/Tools/eval_rejoin.py --bin $(BIN) --cv --check
	python3 Tests/Tools/eval_cues.py --bin $(BIN) --data $(DATA) --check
	python3 Tests/Tools/eval_autopause.py --bin $(BIN) --data $(DATA) --check
	python3 Tests/Tools/eval_steps.py --bin $(BIN) --data $(DATA) --check
	python3 Tests/Tools/eval_steps.py --bin $(BIN) --data $(DATA) --cv --check
	python3 Tests/Tools/eval_live.py --bin $(BIN) --data $(DATA) --speed 40 --check
	python3 Tests/Tools/eval_hr.py --bin $(BIN) --data $(DATA) --check
	python3 Tests/Tools/eval_activities.py --bin $(BIN) --data $(DATA) --cv --check
	python3 Tests/Tools/eval_workout.py --bin $(BIN) --data $(DATA) --cv --check
	python3 Tests/Tools/eval_workout.py --bin $(BIN) --data $(DATA) --engine --imu --check

## The web app in a real browser (Chromium at a phone's size) against the
## real daemon replaying the demo walk: pairing, live figures, controls, the
## session page against `moonrunner show`, the GPX download against
## `moonrunner export`, a course upload, 中文 and imperial, revocation, no
## console errors and no request leaving 127.0.0.1 (about a minute).
web-browser:
	python3 Tests/Tools/web_browser.py --bin $(BIN)

## A PNG of every page of the web app, light and dark, English and Chinese,
## in .build/web-screens/: with the uploads pages (moonrunner-upload and its
## stand-ins; wsgidav from `make deps`) and a workout's run screen and table.
web-screens: release
	python3 Tests/Tools/web_screens.py --bin $(RELEASE_BIN) --out .build/web-screens

## The daemon's functions in the order they first run, for the release link
## (link/moonrunnerd.order): a release daemon records 10 minutes with a one-shot
## breakpoint on each of its functions (Tests/Tools/text_order.py, function_trace.py).
text-order: release
	python3 Tests/Tools/text_order.py --bin $(RELEASE_BIN) --out link/moonrunnerd.order

## Speed and footprint figures, release build (footprint.py: sizes, READY=1, Pss, growth
## over a 6-hour session replayed at 30x; the .deb figures when `make deb` has run;
## wakeups.py: wakeups a second recording and idle over 10 minutes each at 1x, 25 minutes).
bench: release
	$(RELEASE_BIN)/moonrunner-bench --bin $(RELEASE_BIN)/moonrunner
	python3 Tests/Tools/socket_load.py --bin $(RELEASE_BIN) --check
	python3 Tests/Tools/store_writes.py --bin $(RELEASE_BIN) --speed 10 --minutes 60 --check
	python3 Tests/Tools/hr_live.py --bin $(RELEASE_BIN) --trace $(DATA)/hr/fenix5_run_rr.hr.csv --seconds 10 --faults --check
	python3 Tests/Tools/hr_live.py --bin $(RELEASE_BIN) --trace $(DATA)/hr/fenix5_run_rr.hr.csv --rate 4 --seconds 20 --check
	python3 Tests/Tools/hr_live.py --bin $(RELEASE_BIN) --trace $(DATA)/hr/fenix2_run.hr.csv --seconds 5 --cycles 1000 --check
	python3 Tests/Tools/hr_cpu.py --bin $(RELEASE_BIN) --data $(DATA) --reps 3 --window 20 --check
	python3 Tests/Tools/footprint.py --bin $(RELEASE_BIN) --deb-dir .build/deb --check
	python3 Tests/Tools/web_bench.py --bin $(RELEASE_BIN) --check
	python3 Tests/Tools/wakeups.py --bin $(RELEASE_BIN) --data $(DATA) --window 600 --check

## Long-running proofs (more trials than `make test`).
soak: deps
	$(SWIFT) build --build-tests
	ln -sf moonrunnerd $(DEBUG_BIN)/moonrunner-web
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) MOONRUNNER_SOAK=1 $(SWIFT) test --skip-build \
	  --filter 'StoreDurabilityTests|SocketFuzzTests' --no-parallel

## The announcer's latency from event to first audio at 1x (about 7 minutes).
announce-latency: deps
	$(SWIFT) build --build-tests
	ln -sf moonrunnerd $(DEBUG_BIN)/moonrunner-web
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) MOONRUNNER_ANNOUNCE_LATENCY=1 $(SWIFT) test --skip-build \
	  --filter AnnounceLatencyTests --no-parallel

SWIFTC       ?= swiftc
FUZZ_SECONDS ?= 120
## The Heart Rate Measurement (0x2A37) parser under libFuzzer and AddressSanitizer:
## the parser's one file compiled alone with its harness, outside the package
## build; any crash, sanitizer report or broken encode/parse round trip stops it.
fuzz-hr:
	mkdir -p .build/fuzz/corpus-hr
	$(SWIFTC) -O -sanitize=fuzzer,address -parse-as-library Sources/MoonRunnerCore/HeartRate/HeartRateNotification.swift \
	  Tests/Fuzz/HeartRateNotificationFuzz.swift -o .build/fuzz/fuzz-hr 2>.build/fuzz/build.log || { cat .build/fuzz/build.log; exit 1; }
	.build/fuzz/fuzz-hr -max_total_time=$(FUZZ_SECONDS) -max_len=64 -print_final_stats=1 .build/fuzz/corpus-hr

## Binaries (unstripped: dh_strip makes the -dbgsym package; `make install` strips),
## config, units and man pages into DESTDIR. The units in systemd/ name the
## package's paths (/usr/sbin, /usr/bin) and are shipped as they are; another
## PREFIX gets them rewritten to its own.
install-files: man
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(SBINDIR) $(DESTDIR)/etc/moonrunner $(DESTDIR)$(UNITDIR) \
	  $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/share/man/man5 $(DESTDIR)$(PREFIX)/share/man/man7 \
	  $(DESTDIR)$(PREFIX)/share/man/man8
	install -m 0755 $(addprefix $(RELEASE_BIN)/,$(COMMANDS)) $(DESTDIR)$(PREFIX)/bin/
	install -m 0755 $(addprefix $(RELEASE_BIN)/,$(DAEMONS)) $(DESTDIR)$(SBINDIR)/
	for l in $(LINKS); do ln -sf moonrunner $(DESTDIR)$(PREFIX)/bin/$$l; done
	for l in $(DAEMON_LINKS); do ln -sf moonrunnerd $(DESTDIR)$(SBINDIR)/$$l; done
	install -d -m 0755 $(DESTDIR)/var/lib/moonrunner/dem
	[ -f $(DESTDIR)/etc/moonrunner/moonrunner.yaml ] || install -m 0644 config/moonrunner.yaml $(DESTDIR)/etc/moonrunner/
	[ -f $(DESTDIR)/etc/moonrunner/announce.yaml ] || install -m 0644 config/announce.yaml $(DESTDIR)/etc/moonrunner/
	install -d $(DESTDIR)/etc/avahi/services
	install -m 0644 avahi/moonrunner-web.service $(DESTDIR)/etc/avahi/services/
	for u in $(UNITS); do \
	  sed -e 's|^ExecStart=/usr/sbin/|ExecStart=$(SBINDIR)/|' -e 's|^ExecStart=/usr/bin/|ExecStart=$(PREFIX)/bin/|' \
	    systemd/$$u > $(DESTDIR)$(UNITDIR)/$$u && chmod 0644 $(DESTDIR)$(UNITDIR)/$$u || exit 1; done
	install -d $(DESTDIR)/usr/share/polkit-1/rules.d
	install -m 0644 polkit/50-moonrunner-poweroff.rules $(DESTDIR)/usr/share/polkit-1/rules.d/
	install -m 0644 .build/man/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/
	install -m 0644 .build/man/*.5 $(DESTDIR)$(PREFIX)/share/man/man5/
	install -m 0644 .build/man/*.7 $(DESTDIR)$(PREFIX)/share/man/man7/
	install -m 0644 .build/man/*.8 $(DESTDIR)$(PREFIX)/share/man/man8/

## Installs binaries (stripped), config, units, man pages and the service users (needs root).
## The Debian package (`make deb`) is the better way on a Pi; this is for a machine without dpkg.
install: SBINDIR = $(PREFIX)/bin
install: install-files
	strip $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(COMMANDS) $(DAEMONS))
	install -d $(DESTDIR)$(PREFIX)/share/doc/moonrunner
	install -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/moonrunner/
	getent group i2c >/dev/null || groupadd --system i2c
	getent group bluetooth >/dev/null || groupadd --system bluetooth
	getent group moonrunner >/dev/null || groupadd --system moonrunner
	id moonrunner >/dev/null 2>&1 || useradd --system --gid moonrunner --groups i2c,bluetooth \
	  --home-dir /var/lib/moonrunner --no-create-home --shell /usr/sbin/nologin moonrunner
	getent group audio >/dev/null || groupadd --system audio
	getent group moonrunner-announce >/dev/null || groupadd --system moonrunner-announce
	id moonrunner-announce >/dev/null 2>&1 || useradd --system --gid moonrunner-announce --groups audio,moonrunner \
	  --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin moonrunner-announce
	id moonrunner-web >/dev/null 2>&1 || useradd --system --gid moonrunner \
	  --home-dir /var/lib/moonrunner-web --no-create-home --shell /usr/sbin/nologin moonrunner-web
	id moonrunner-upload >/dev/null 2>&1 || useradd --system --gid moonrunner \
	  --home-dir /var/lib/moonrunner-upload --no-create-home --shell /usr/sbin/nologin moonrunner-upload
	-systemctl daemon-reload 2>/dev/null
	@echo "installed; enable with: systemctl enable --now moonrunnerd.socket moonrunnerd.service"
	@echo "voice announcements: systemctl enable --now moonrunner-announce.service"
	@echo "the phone's screen: systemctl enable --now moonrunner-web.service, then moonrunner web pair"
	@echo "uploads: systemctl enable --now moonrunner-upload.service, then connect the targets on the phone"

uninstall:
	-systemctl disable --now moonrunner-upload.service moonrunner-web.service moonrunner-announce.service moonrunnerd.service moonrunnerd.socket 2>/dev/null
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/bin/,$(DAEMONS) $(DAEMON_LINKS) $(COMMANDS) $(LINKS)) \
	  $(addprefix $(DESTDIR)/etc/systemd/system/,$(UNITS)) \
	  $(addprefix $(DESTDIR)$(PREFIX)/share/man/man1/,$(addsuffix .1,$(COMMANDS) $(LINKS))) \
	  $(addprefix $(DESTDIR)$(PREFIX)/share/man/man8/,$(addsuffix .8,$(DAEMONS) $(DAEMON_LINKS))) \
	  $(DESTDIR)$(PREFIX)/share/man/man5/moonrunner.yaml.5 $(DESTDIR)$(PREFIX)/share/man/man7/moonrunner-protocol.7 \
	  $(DESTDIR)/etc/avahi/services/moonrunner-web.service \
	  $(DESTDIR)/usr/share/polkit-1/rules.d/50-moonrunner-poweroff.rules

## The Debian package, in .build/deb/. Of this machine's architecture (needs the Swift
## toolchain on PATH; see debian/rules), or with ARCH=arm64 cross-built for Debian 13
## "trixie" / Raspberry Pi OS 13 64-bit in the roots cross/cross.py makes (as root; no
## arm64 hardware, no toolchain of the machine's own: Debian's Swift in a sid root).
## Rules-Requires-Root: no, so no fakeroot. dpkg-buildpackage always writes beside the
## source tree: the files are moved from there at once.
deb: deb-deps
	rm -rf .build/deb && mkdir -p .build/deb
ifeq ($(ARCH),$(HOST_ARCH))
	dpkg-buildpackage -b -us -uc
	mv ../moonrunner_$(DEB_VERSION)_* ../moonrunner-dbgsym_$(DEB_VERSION)_* .build/deb/
else
	@[ "$(ARCH)" = arm64 ] || { echo "make deb: ARCH=$(ARCH): only this machine's architecture ($(HOST_ARCH)) and arm64 are built" >&2; exit 2; }
	$(SWIFT) package resolve --scratch-path .build/$(CROSS_SDK)
	python3 cross/cross.py shell --cache $(CROSS_CACHE) -- sh -c 'SWIFT_SDK=$(CROSS_SDK) dpkg-buildpackage -a$(ARCH) -d -b -us -uc \
	  && mv ../moonrunner_$(DEB_VERSION)_* ../moonrunner-dbgsym_$(DEB_VERSION)_* .build/deb/'
endif
	ls -l .build/deb
DEB_VERSION = $(shell dpkg-parsechangelog -S Version)

## What the build and the packaging read besides Sources/ and Package.swift: deb_check.py
## lays these over an older source to build the previous version, so a file the build
## comes to need is carried with the Makefile that needs it.
BUILD_FILES := Makefile debian man systemd link cross avahi polkit
print-build-files:
	@echo $(BUILD_FILES)

## lintian, then install/upgrade/remove/purge in a clean Debian 12 root, and the units checked
## by systemd-analyze (Tests/Tools/deb_check.py; root, minutes). ARCH=arm64: the pure modules'
## tests under qemu (test-arm64), then a clean Debian 13 arm64 root under qemu-user-static,
## `apt install ./…_arm64.deb`, the bundled walk recorded there through trixie's gpsd and analyze
## run on every shared trace, both compared with this machine's release build.
## The lower version each check upgrades from: for amd64 the source before the packaging; for
## arm64 the first source that builds with Debian's Swift 6.2.3 against trixie's gpsd 3.25
## (3896459: no arm64 package could be made before it; 112397f does not compile there).
PREVIOUS_$(HOST_ARCH) ?= 112397f
PREVIOUS_arm64 ?= 3896459
PREVIOUS ?= $(PREVIOUS_$(ARCH))
deb-check: deb $(if $(filter-out $(HOST_ARCH),$(ARCH)),release test-arm64)
	lintian --fail-on error,warning --info .build/deb/moonrunner_*_$(ARCH).changes
	python3 Tests/Tools/deb_check.py --arch $(ARCH) --deb-dir .build/deb --previous $(PREVIOUS) \
	  --cache .build/deb-check$(if $(filter-out $(HOST_ARCH),$(ARCH)),-$(ARCH)) --cross-cache $(CROSS_CACHE)

## The package on a booted system (Tests/Tools/vm_check.py; as root, about an hour for arm64):
## a Debian 13 arm64 image (ARCH=amd64: Debian 12 amd64) made by cross/vm_image.py and kept in
## VM_CACHE (outside the clone), booted under qemu-system with software emulation, 2 CPUs and
## 512 MB; `apt install ./moonrunner_*.deb` in it, then systemd as PID 1 starts MoonRunner:
## socket activation, the sandbox (what it allows and what it forbids), the watchdog, ten power
## cuts, a clean power-off, the web app and the announcer, an hour in 512 MB, boot to READY=1,
## the upload service sending a session.
## `make test` does not run it (CI has no image cache: it would add half an hour); run it by hand
## before a release and whenever systemd/ or debian/ change.
VM_CACHE  ?= $(HOME)/.cache/moonrunner-vm
VM_TOOLS  := mmdebstrap e2fsprogs openssh-client $(if $(filter arm64,$(ARCH)),qemu-system-arm qemu-user-static binfmt-support,qemu-system-x86)
vm-check: deb release
	@$(MAKE) --no-print-directory apt-install PKGS="$(VM_TOOLS)"
	python3 Tests/Tools/vm_check.py --arch $(ARCH) --deb-dir .build/deb --cache $(VM_CACHE) --bin $(RELEASE_BIN) \
	  --schemas $(SCHEMAS) $(VM_CHECK_FLAGS)

## The pure modules' unit tests cross-built for arm64 (debug, as `make test` builds them) and
## run under qemu-aarch64 in the cross build root: Core, Export, Protocol, Store, YAML
## and the announcer's core, one test at a time (run in parallel under qemu, 834 Core tests
## started and none had finished after 15 minutes; one at a time they finish as they go). The others need what runs on the build machine only (a browser,
## gpsd, BlueZ's stand-in, processes over sockets) and are `make test`'s. As root.
## Debian's swiftlang ships the interface of swift-testing's Foundation overlay
## (_Testing_Foundation: attachments of Data and URLs, which no test here makes) but not its
## library, so a test file importing both would ask the linker for a library that is not
## there: the overlay is not imported (-disable-cross-import-overlays).
ARM64_TESTS := MoonRunnerCoreTests,MoonRunnerExportTests,MoonRunnerProtocolTests,MoonRunnerStoreTests,MoonRunnerYAMLTests,MoonRunnerConfigTests,MoonRunnerAnnounceCoreTests
ARM64_TEST_SCRATCH := .build/$(CROSS_SDK)-tests
test-arm64:
	@$(MAKE) --no-print-directory deb-deps ARCH=arm64
	$(SWIFT) package resolve --scratch-path $(ARM64_TEST_SCRATCH)
	@# The test modules are compiled afresh each time: an incremental cross build once kept the
	@# Store tests compiled against an older Core (a crash under qemu, not a failed test).
	rm -rf $(ARM64_TEST_SCRATCH)/*/debug/MoonRunner*Tests.build $(ARM64_TEST_SCRATCH)/*/debug/MoonRunnerTestSupport.build \
	  $(ARM64_TEST_SCRATCH)/*/debug/Modules/MoonRunner*Tests.* $(ARM64_TEST_SCRATCH)/*/debug/Modules/MoonRunnerTestSupport.*
	python3 cross/cross.py shell --cache $(CROSS_CACHE) --bind $(abspath $(DATA)) -- sh -c '\
	  MOONRUNNER_TEST_TARGETS=$(ARM64_TESTS) swift build --build-tests --swift-sdks-path /sdks --swift-sdk $(CROSS_SDK) \
	    --scratch-path $(ARM64_TEST_SCRATCH) --disable-automatic-resolution \
	    -Xswiftc -Xfrontend -Xswiftc -disable-cross-import-overlays \
	  && file $(ARM64_TEST_SCRATCH)/debug/MoonRunnerPackageTests.xctest \
	  && MOONRUNNER_DATA=$(abspath $(DATA)) MOONRUNNER_SCHEMAS=$(SCHEMAS) \
	    $(ARM64_TEST_SCRATCH)/debug/MoonRunnerPackageTests.xctest --testing-library swift-testing --no-parallel'

clean:
	rm -rf .build

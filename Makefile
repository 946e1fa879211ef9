# MoonRunner — the two commands of the README are `make run` and `make test`.
# Both install the Debian packages they need first (apt-get, as root or via sudo).

SWIFT      ?= swift
DATA       ?= ../shared/data
PREFIX     ?= /usr/local
SPEED      ?= 10
DEB_PKGS   := libgps-dev libi2c-dev libsystemd-dev zlib1g-dev pkg-config gpsd gpsd-clients python3 \
              python3-pip gpsbabel librsvg2-bin systemd util-linux faketime \
              espeak-ng sox alsa-utils \
              chromium chromium-driver fonts-noto-cjk qrencode libjs-leaflet
SUDO       := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
DEBUG_BIN   = .build/debug
RELEASE_BIN = .build/release

.PHONY: all deps build release run test unit-test accuracy bench soak announce-latency web-browser web-screens install uninstall clean

all: build

PY_PKGS    := garmin-fit-sdk gpxpy selenium

## Installs the missing Debian packages, the Python readers the export
## tests check against and Selenium for the web app's browser tests
## (nothing when all are present).
deps:
	@missing=""; for p in $(DEB_PKGS); do \
	  dpkg-query -W -f='$${Status}' $$p 2>/dev/null | grep -q "install ok installed" || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "installing Debian packages:$$missing"; \
	  $(SUDO) apt-get -o DPkg::Lock::Timeout=600 update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $$missing; \
	fi
	@python3 -c "import garmin_fit_sdk, gpxpy, selenium" 2>/dev/null || { \
	  echo "installing Python packages: $(PY_PKGS)"; \
	  python3 -m pip install -q $(PY_PKGS) 2>/dev/null || \
	  python3 -m pip install -q --break-system-packages $(PY_PKGS); }

build: deps
	$(SWIFT) build

release: deps
	$(SWIFT) build -c release

## Replays the bundled demo walk through gpsd (gpsfake) and moonrunnerd, shows `moonrunner watch`.
run: release
	SPEED=$(SPEED) BIN=$(RELEASE_BIN) Tests/Tools/demo.sh

## The whole suite: unit and end-to-end tests, then the accuracy checks on the labelled data.
## Unit tests run in parallel; the end-to-end tests (daemons, gpsd, sockets)
## one at a time, so that none of them is starved of the machine's cores.
## The accuracy checks run the release build: the one `make run` and
## `make install` ship (the optimiser has its own failures: a release-only
## compiler hang must turn this red), and the faster one.
test: deps
	$(SWIFT) build --build-tests
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) $(SWIFT) test --skip-build --skip EndToEndTests
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) $(SWIFT) test --skip-build --filter EndToEndTests --no-parallel
	$(MAKE) --no-print-directory web-browser BIN=$(DEBUG_BIN)
	$(SWIFT) build -c release
	$(MAKE) --no-print-directory accuracy BIN=$(RELEASE_BIN)

BIN ?= $(RELEASE_BIN)
## The figures of issues 3, 4, 5, 11, 12, 13 and 15 on the labelled data, each at its
## targets: step counting with the default parameters on all data (and its
## rate independence), then cross-validated by person (tuned on one half of
## the people, scored on the other).
accuracy:
	python3 Tests/Tools/eval_gps.py --bin $(BIN)/moonrunner --data $(DATA) --check
	python3 Tests/Tools/eval_elevation.py --bin $(BIN)/moonrunner --data $(DATA) --check
	python3 Tests/Tools/eval_course.py --bin $(BIN)/moonrunner --data $(DATA) --check
	python3 Tests/Tools/eval_autopause.py --bin $(BIN)/moonrunner --data $(DATA) --check
	python3 Tests/Tools/eval_steps.py --bin $(BIN)/moonrunner --data $(DATA) --check
	python3 Tests/Tools/eval_steps.py --bin $(BIN)/moonrunner --data $(DATA) --cv --check
	python3 Tests/Tools/eval_live.py --bin $(BIN) --data $(DATA) --speed 40 --check

## The web app in a real browser (Chromium at a phone's size) against the
## real daemon replaying the demo walk: pairing, live figures, controls, the
## session page against `moonrunner show`, the GPX download against
## `moonrunner export`, a course upload, 中文 and imperial, revocation, no
## console errors and no request leaving 127.0.0.1 (about a minute).
web-browser:
	python3 Tests/Tools/web_browser.py --bin $(BIN)

## A PNG of every page of the web app, light and dark, English and Chinese,
## in .build/web-screens/.
web-screens: release
	python3 Tests/Tools/web_screens.py --bin $(RELEASE_BIN) --out .build/web-screens

## Speed figures, release build.
bench: release
	$(RELEASE_BIN)/moonrunner-bench --bin $(RELEASE_BIN)/moonrunner
	python3 Tests/Tools/socket_load.py --bin $(RELEASE_BIN) --check
	python3 Tests/Tools/store_writes.py --bin $(RELEASE_BIN) --speed 10 --minutes 10 --check 10
	python3 Tests/Tools/web_bench.py --bin $(RELEASE_BIN) --check

## Long-running proofs (more trials than `make test`).
soak: deps
	$(SWIFT) build --build-tests
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) MOONRUNNER_SOAK=1 $(SWIFT) test --skip-build \
	  --filter 'StoreDurabilityTests|SocketFuzzTests' --no-parallel

## The announcer's latency from event to first audio at 1x (about 7 minutes).
announce-latency: deps
	$(SWIFT) build --build-tests
	MOONRUNNER_BIN=$(DEBUG_BIN) MOONRUNNER_DATA=$(DATA) MOONRUNNER_ANNOUNCE_LATENCY=1 $(SWIFT) test --skip-build \
	  --filter AnnounceLatencyTests --no-parallel

## Installs binaries (stripped), config, units and the service users (needs root).
install: release
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)/etc/moonrunner $(DESTDIR)/etc/systemd/system \
	  $(DESTDIR)$(PREFIX)/share/doc/moonrunner
	install -s -m 0755 $(RELEASE_BIN)/moonrunnerd $(RELEASE_BIN)/moonrunner $(RELEASE_BIN)/moonrunner-announce \
	  $(RELEASE_BIN)/moonrunner-web $(DESTDIR)$(PREFIX)/bin/
	[ -f $(DESTDIR)/etc/moonrunner/moonrunner.yaml ] || install -m 0644 config/moonrunner.yaml $(DESTDIR)/etc/moonrunner/
	[ -f $(DESTDIR)/etc/moonrunner/announce.yaml ] || install -m 0644 config/announce.yaml $(DESTDIR)/etc/moonrunner/
	install -m 0644 systemd/moonrunnerd.service systemd/moonrunnerd.socket systemd/moonrunner-announce.service \
	  systemd/moonrunner-web.service $(DESTDIR)/etc/systemd/system/
	install -m 0644 README.md $(DESTDIR)$(PREFIX)/share/doc/moonrunner/
	getent group i2c >/dev/null || groupadd --system i2c
	getent group moonrunner >/dev/null || groupadd --system moonrunner
	id moonrunner >/dev/null 2>&1 || useradd --system --gid moonrunner --groups i2c \
	  --home-dir /var/lib/moonrunner --no-create-home --shell /usr/sbin/nologin moonrunner
	getent group audio >/dev/null || groupadd --system audio
	getent group moonrunner-announce >/dev/null || groupadd --system moonrunner-announce
	id moonrunner-announce >/dev/null 2>&1 || useradd --system --gid moonrunner-announce --groups audio,moonrunner \
	  --home-dir /nonexistent --no-create-home --shell /usr/sbin/nologin moonrunner-announce
	id moonrunner-web >/dev/null 2>&1 || useradd --system --gid moonrunner \
	  --home-dir /var/lib/moonrunner-web --no-create-home --shell /usr/sbin/nologin moonrunner-web
	-systemctl daemon-reload 2>/dev/null
	@echo "installed; enable with: systemctl enable --now moonrunnerd.socket moonrunnerd.service"
	@echo "voice announcements: systemctl enable --now moonrunner-announce.service"
	@echo "the phone's screen: systemctl enable --now moonrunner-web.service, then moonrunner web pair"

uninstall:
	-systemctl disable --now moonrunner-web.service moonrunner-announce.service moonrunnerd.service moonrunnerd.socket 2>/dev/null
	rm -f $(DESTDIR)$(PREFIX)/bin/moonrunnerd $(DESTDIR)$(PREFIX)/bin/moonrunner $(DESTDIR)$(PREFIX)/bin/moonrunner-announce \
	  $(DESTDIR)$(PREFIX)/bin/moonrunner-web \
	  $(DESTDIR)/etc/systemd/system/moonrunnerd.service $(DESTDIR)/etc/systemd/system/moonrunnerd.socket \
	  $(DESTDIR)/etc/systemd/system/moonrunner-announce.service $(DESTDIR)/etc/systemd/system/moonrunner-web.service

clean:
	rm -rf .build

// MoonRunner pages: dates in the phone's time zone, the live run screen
// (Server-Sent Events from /live), and the upload size check. Every page
// works without this file except the live refresh.
"use strict";
(function () {
  var lang = document.documentElement.lang || "en";

  // Dates: the server writes UTC; the phone shows its own time zone.
  document.querySelectorAll("time[datetime]").forEach(function (el) {
    var d = new Date(el.getAttribute("datetime"));
    if (isNaN(d)) return;
    el.title = el.textContent;
    el.textContent = d.toLocaleString(lang, { dateStyle: "medium", timeStyle: "short" });
  });
  // The history's weeks and months follow the phone's offset from UTC.
  var offset = String(-new Date().getTimezoneOffset());
  if (document.cookie.split("; ").indexOf("tzo=" + offset) < 0) {
    document.cookie = "tzo=" + offset + "; path=/; max-age=34560000; samesite=strict";
  }

  // Pairing: suggest a name for this phone.
  var nameField = document.querySelector("[data-suggest-name]");
  if (nameField && !nameField.value) {
    var ua = navigator.userAgent;
    nameField.value = /iPhone/.test(ua) ? "iPhone" : /Android/.test(ua) ? "Android phone" : "Browser";
  }

  // A course file larger than the daemon takes is refused here, before it is sent.
  document.querySelectorAll("form[data-max-bytes]").forEach(function (form) {
    form.addEventListener("submit", function (ev) {
      var input = form.querySelector("input[type=file]");
      var max = Number(form.dataset.maxBytes);
      var file = input && input.files && input.files[0];
      if (file && max && file.size > max) {
        ev.preventDefault();
        var box = form.querySelector("[data-upload-error]");
        if (box) { box.textContent = form.dataset.tooLarge; box.hidden = false; }
      }
    });
  });

  var live = document.querySelector("[data-live]");
  if (!live || !window.EventSource) return;
  var words = document.querySelector("template[data-words]").dataset;
  var banner = live.querySelector("[data-banner]");
  var toast = live.querySelector("[data-toast]");
  var toastTimer = 0;

  function show(text) {
    banner.textContent = text;
    banner.hidden = !text;
  }

  // The state pill and the controls that fit the state.
  function applyState(state, text) {
    live.dataset.state = state;
    var pill = live.querySelector('[data-field="state"]');
    pill.className = "pill state-" + state;
    pill.dataset.value = state;
    if (text && pill.textContent !== text) pill.textContent = text;
    live.querySelectorAll("[data-states]").forEach(function (el) {
      el.hidden = el.dataset.states.split(" ").indexOf(state) < 0;
    });
  }

  function apply(u) {
    // Another activity has begun: its figures differ (a ride's speed, a hike's climb rate).
    if (u.activity && u.activity !== live.dataset.activity) { location.reload(); return; }
    Object.keys(u.figures).forEach(function (key) {
      var text = u.figures[key][0], value = u.figures[key][1];
      live.querySelectorAll('[data-field="' + key + '"]').forEach(function (el) {
        if (el.dataset.value !== value) el.dataset.value = value;
        if (el.textContent === text) return;
        // A figure's number and its unit (drawn smaller), split as the server splits them.
        var n = el.querySelector(".n"), u = el.querySelector(".u");
        if (!n || !u) { el.textContent = text; return; }
        var m = /^([-+\u2212\d][^ ]*) (.+)$/.exec(text);
        n.textContent = m ? m[1] : text;
        u.textContent = m ? m[2] : "";
      });
    });
    // The workout's marker: the band is the bar's middle 60 %, 0 at its left end, 1 at its right.
    live.querySelectorAll("[data-band-marker]").forEach(function (el) {
      var v = parseFloat(el.dataset.value);
      el.hidden = isNaN(v);
      if (!isNaN(v)) el.style.left = (20 + 60 * v) + "%";
    });
    applyState(u.state);
    live.querySelectorAll("[data-if]").forEach(function (el) {
      el.hidden = !u.flags[el.dataset.if];
    });
    var next = live.querySelector("[data-quiet-next]");
    var button = live.querySelector('[data-action="quiet"]');
    next.value = u.flags.quiet ? "off" : "on";
    button.textContent = u.flags.quiet ? button.dataset.onText : button.dataset.offText;
  }

  var source;
  function connect() {
    source = new EventSource(live.dataset.live);
    source.addEventListener("status", function (ev) { apply(JSON.parse(ev.data)); });
    source.addEventListener("link", function (ev) {
      var link = JSON.parse(ev.data);
      show(link.up ? "" : link.text);
    });
    source.addEventListener("event", function (ev) {
      var e = JSON.parse(ev.data);
      applyState(e.state, e.stateText);
      toast.textContent = e.text;
      toast.hidden = false;
      clearTimeout(toastTimer);
      toastTimer = setTimeout(function () { toast.hidden = true; }, 6000);
    });
    source.addEventListener("error", function () {
      show(words.linkLost);
      // A revoked phone is out: its stream ended and it may no longer reconnect.
      fetch("/ping", { headers: { Accept: "text/plain" }, cache: "no-store" }).then(function (r) {
        if (r.status === 401) { source.close(); location.href = "/pair"; }
      }, function () {});
    });
  }
  connect();
})();

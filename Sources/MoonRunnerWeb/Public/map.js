// With tiles configured: the route over a tiled map (Leaflet, served by the
// Pi). The speed-coloured SVG stays below it; without tiles, or when they do
// not load, the SVG alone is the map.
"use strict";
(function () {
  var box = document.querySelector("[data-tiles]");
  if (!box || !window.L) return;
  box.hidden = false;
  var map = L.map(box, { attributionControl: true });
  var tiles = L.tileLayer(box.dataset.tiles, { maxZoom: 19, attribution: box.dataset.attribution || "" }).addTo(map);
  var failed = 0;
  tiles.on("tileerror", function () {
    if (++failed === 3) {
      var note = document.createElement("p");
      note.className = "muted";
      note.textContent = box.dataset.unavailable;
      box.parentNode.insertBefore(note, box.nextSibling);
    }
  });
  fetch(box.dataset.route, { cache: "no-store" }).then(function (r) { return r.json(); }).then(function (geo) {
    var layer = L.geoJSON(geo, { style: { color: "#e4002b", weight: 5, opacity: 0.9 },
      filter: function (f) { return f.geometry && f.geometry.type !== "Point"; } }).addTo(map);
    var bounds = layer.getBounds();
    if (bounds.isValid()) map.fitBounds(bounds, { padding: [16, 16] });
  }).catch(function () { box.hidden = true; });
})();

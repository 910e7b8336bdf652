(function () {
  'use strict';
  var COLORS = { c: '#F0E442', r: '#CC79A7', a: '#1DB38A', d: '#E8671A', v: '#E69F00', m: '#56B4E9', u: '#8A94A6' };
  var marksByCard = {};

  function goto(id) {
    var el = document.getElementById(id);
    if (!el) return;
    var group = el.closest('details');
    if (group) group.open = true;
    el.hidden = false;
    el.scrollIntoView({ behavior: 'smooth', block: 'center' });
    el.classList.remove('hl');
    void el.offsetWidth;
    el.classList.add('hl');
  }

  function setupMap(map) {
    var svg = map.querySelector('svg');
    var vb = svg.viewBox.baseVal;
    var tip = map.querySelector('.tip');
    var marks = map.querySelectorAll('.mk');
    marks.forEach(function (m) { if (m.dataset.card) marksByCard[m.dataset.card] = m; });
    var canvas = map.querySelector('canvas');
    var script = map.querySelector('.map-data');
    var data = null, buckets = null, CELL = 12;
    if (canvas && script) {
      data = JSON.parse(script.textContent);
      buckets = new Map();
      for (var i = 0; i < data.x.length; i++) {
        var k = Math.floor(data.x[i] / 10 / CELL) * 65536 + Math.floor(data.y[i] / 10 / CELL);
        var b = buckets.get(k);
        if (b) b.push(i); else buckets.set(k, [i]);
      }
      var draw = function () {
        var w = map.clientWidth, h = map.clientHeight, dpr = window.devicePixelRatio || 1;
        canvas.width = Math.max(1, Math.round(w * dpr));
        canvas.height = Math.max(1, Math.round(h * dpr));
        var ctx = canvas.getContext('2d');
        var s = Math.min(w / vb.width, h / vb.height);
        var ox = (w - vb.width * s) / 2, oy = (h - vb.height * s) / 2;
        ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
        var n = data.x.length, drawn = 0, j;
        ctx.fillStyle = COLORS.u;
        ctx.globalAlpha = 0.5;
        for (j = 0; j < n; j++) {
          if (data.f[j] !== 'u') continue;
          ctx.fillRect(ox + data.x[j] / 10 * s - 1, oy + data.y[j] / 10 * s - 1, 2, 2);
          drawn++;
        }
        ctx.globalAlpha = 1;
        for (j = 0; j < n; j++) {
          var f = data.f[j];
          if (f === 'u') continue;
          ctx.fillStyle = COLORS[f] || COLORS.u;
          ctx.fillRect(ox + data.x[j] / 10 * s - 2.5, oy + data.y[j] / 10 * s - 2.5, 5, 5);
          drawn++;
        }
        map.dataset.drawn = String(drawn + marks.length);
      };
      draw();
      window.addEventListener('resize', draw);
    } else {
      map.dataset.drawn = String(marks.length);
    }

    function show(text, e) {
      var r = map.getBoundingClientRect();
      tip.textContent = text;
      tip.hidden = false;
      var x = e.clientX - r.left + 14, y = e.clientY - r.top + 14;
      if (x + tip.offsetWidth > r.width - 4) x = e.clientX - r.left - tip.offsetWidth - 10;
      if (y + tip.offsetHeight > r.height - 4) y = e.clientY - r.top - tip.offsetHeight - 10;
      tip.style.left = x + 'px';
      tip.style.top = y + 'px';
    }

    function nearest(e) {
      var ctm = svg.getScreenCTM();
      if (!ctm || !data) return -1;
      var p = new DOMPoint(e.clientX, e.clientY).matrixTransform(ctm.inverse());
      var cx = Math.floor(p.x / CELL), cy = Math.floor(p.y / CELL), best = -1, bestD = 36;
      for (var dx = -1; dx <= 1; dx++) for (var dy = -1; dy <= 1; dy++) {
        var b = buckets.get((cx + dx) * 65536 + (cy + dy));
        if (!b) continue;
        for (var q = 0; q < b.length; q++) {
          var i = b[q], ex = data.x[i] / 10 - p.x, ey = data.y[i] / 10 - p.y, d = ex * ex + ey * ey;
          if (d < bestD) { bestD = d; best = i; }
        }
      }
      return best;
    }

    map.addEventListener('mousemove', function (e) {
      var m = e.target.closest ? e.target.closest('.mk') : null;
      if (m) return show(m.dataset.t, e);
      var i = nearest(e);
      if (i >= 0) return show(data.t[i], e);
      tip.hidden = true;
    });
    map.addEventListener('mouseleave', function () { tip.hidden = true; });
    map.addEventListener('click', function (e) {
      var m = e.target.closest ? e.target.closest('.mk') : null;
      if (m && m.dataset.card) goto(m.dataset.card);
    });
  }

  document.querySelectorAll('.map').forEach(setupMap);

  document.querySelectorAll('.card').forEach(function (card) {
    card.addEventListener('mouseenter', function () {
      var m = marksByCard[card.id];
      if (m) m.classList.add('hot');
    });
    card.addEventListener('mouseleave', function () {
      var m = marksByCard[card.id];
      if (m) m.classList.remove('hot');
    });
  });

  // Paging: each group shows its first cards; "Show more" reveals the next page.
  var PAGE = 50;
  function page(group) {
    var limit = Number(group.dataset.shown || PAGE), cards = group.querySelectorAll('.card'), i;
    for (i = 0; i < cards.length; i++) cards[i].hidden = i >= limit;
    var more = group.querySelector('button.more');
    if (more) {
      var left = Math.max(0, cards.length - limit);
      more.hidden = left === 0;
      more.querySelector('span').textContent = String(left);
    }
  }
  document.querySelectorAll('button.more').forEach(function (b) {
    b.addEventListener('click', function () {
      var group = b.closest('details');
      group.dataset.shown = String(Number(group.dataset.shown || PAGE) + PAGE);
      page(group);
    });
  });

  var filter = document.querySelector('.filter');
  if (filter) filter.addEventListener('input', function () {
    var q = filter.value.trim().toLowerCase();
    document.querySelectorAll('details.group').forEach(function (group) {
      var more = group.querySelector('button.more');
      if (q === '') { page(group); return; }
      group.open = true;
      if (more) more.hidden = true;
      group.querySelectorAll('.card').forEach(function (c) {
        c.hidden = c.textContent.toLowerCase().indexOf(q) < 0;
      });
    });
  });
})();

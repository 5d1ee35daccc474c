"""The part of report.html's script that draws its charts: the histograms and the scatter.

Kept apart from `html_assets` (the page's styles and the rest of its script) so each stays
short; `html_assets.JS` is one script with this part inside it, under the same CSP hash. The same
rules hold: SVG elements from createElementNS, text through textContent, no markup parsed. The
charts read the page's JSON: the histograms their aggregates (`html_hist.script_data`), the
scatter each card's values in the cards' index (`html_data`), drawn once the index is read. A
histogram's bar is a link to its cards (`inBin` picks them from the same values), handled with
the page's other links to cards.
"""

CHARTS_CSS = """
.scatter svg { display: block; width: 100%; max-width: 640px; height: auto; }
.scatter svg text, .bars svg text { font-size: 10px; fill: var(--muted); }
.scatter a circle { fill-opacity: .55; } .scatter a:hover circle, .scatter a:focus circle { fill-opacity: 1; }
.bars > svg { display: block; max-width: 100%; height: auto; } .bars a rect:hover, .hist a:hover rect,
.hist a:focus rect { opacity: .75; }
.key svg { vertical-align: -1px; } .bin-pick button { font: inherit; font-size: 12px; cursor: pointer; }
.bars .key, .scatter-key { margin-left: 10px; white-space: nowrap; }
"""

CHARTS_JS = """
  /* histograms of the chosen kind and metric, one card per parser, shared y scale */
  var BINS = 10, W = 330, H = 150, PAD = 22, GAP = 14, BAR = (W - 2 * PAD - GAP) / (BINS + 1);
  var metricSelect = document.getElementById("hist-metric");
  var histBox = document.getElementById("hists");
  function drawHistograms() {
    var pick = metricSelect.value.split("|"), kind = data.hists[parseInt(pick[0], 10)], metric = pick[1];
    var scale = kind.scale[metric] || 1;
    var all = kind.parsers.map(function (p) {
      var h = kind.hist[p] || {bins: {}, n: {}, sum: {}, total: 0}, n = h.n[metric] || 0;
      return {parser: p, n: n, mean: n ? h.sum[metric] / n : null, missing: h.total - n, c: h.bins[metric] || []};
    });
    var top = 1;
    all.forEach(function (a) { top = Math.max(top, a.missing, Math.max.apply(null, a.c)); });
    while (histBox.firstChild) histBox.removeChild(histBox.firstChild);
    all.forEach(function (a) {
      var card = el("div", "hist");
      card.appendChild(el("h3", "", a.parser));
      card.appendChild(el("div", "sub", a.n + " found, " + a.missing + " without a value" +
        (a.mean === null ? "" : ", mean over found " + a.mean.toFixed(scale === 1 ? 3 : 2))));
      var s = svg("svg", {viewBox: "0 0 " + W + " " + H, role: "img"});
      s.appendChild(svg("title", {}, a.parser + ": " + metric + " histogram"));
      var base = H - PAD;
      s.appendChild(svg("line", {x1: PAD, y1: base, x2: W - PAD, y2: base, stroke: "#8c959f"}));
      var bars = [a.missing].concat(a.c);
      bars.forEach(function (n, i) {
        var h = (base - 14) * n / top;
        var x = PAD + i * BAR + (i > 0 ? GAP : 0) + 1;
        var fill = i === 0 ? "#afb8c1" : "hsl(" + Math.round(120 * (i - 1) / (BINS - 1)) + ",55%,50%)";
        var at = s;
        if (n > 0) {  /* a link to these cards (the page's click handler reads data-bin: 0 none, then 1-BINS) */
          at = svg("a", {"class": "to-cards", href: "#cases-head", "data-parser": a.parser, "data-kind": kind.kind,
                         "data-metric": metric, "data-bin": i});
          at.appendChild(svg("title", {}, a.parser + ": " + n + " " + kind.title + ", " + binName(i, metric, scale)));
          s.appendChild(at);
        }
        at.appendChild(svg("rect", {x: x, y: base - h, width: BAR - 2, height: h, fill: fill}));
        if (n > 0) {
          at.appendChild(svg("text", {x: x + (BAR - 2) / 2, y: base - h - 3, "text-anchor": "middle"}, String(n)));
        }
      });
      s.appendChild(svg("text", {x: PAD + BAR / 2, y: H - 8, "text-anchor": "middle"}, "none"));
      [0, 0.5, 1].forEach(function (f) {
        s.appendChild(svg("text", {x: PAD + GAP + BAR + f * BINS * BAR, y: H - 8, "text-anchor": "middle"},
          String(Math.round(f * scale * 10) / 10)));
      });
      card.appendChild(s);
      histBox.appendChild(card);
    });
  }
  function binName(i, metric, scale) {  /* bin i: 0 the items without a value, then BINS equal bins */
    if (i === 0) return "no " + metric;
    var r = function (f) { return String(Math.round(f * scale / BINS * 100) / 100); };
    return metric + " " + r(i - 1) + "-" + r(i);
  }
  /* a bar's cards: the card's value of its metric (the index's, rounded as the bar counted it) in its bin */
  function inBin(c, pick) {
    if (c.values.kind !== pick.kind) return false;
    var k = (pointNames[pick.kind] || []).indexOf(pick.metric), v = k < 0 ? null : c.points[k];
    if (v === null || v === undefined) return pick.bin === 0;
    return pick.bin === 1 + Math.max(0, Math.min(BINS - 1, Math.floor(v / pick.scale * BINS)));
  }
  if (metricSelect && histBox) {
    data.hists.forEach(function (kind, k) {  /* with several kinds, each metric is named with its kind */
      kind.metrics.forEach(function (m) {
        var o = el("option", "", (data.hists.length > 1 ? kind.title + ": " : "") + m +
          (kind.scale[m] ? " (0-" + kind.scale[m] + ")" : ""));
        o.value = k + "|" + m;
        if (k === 0 && m === kind.primary) o.selected = true;
        metricSelect.appendChild(o);
      });
    });
    metricSelect.addEventListener("change", drawHistograms);
    drawHistograms();
  }

  /* the scatter: a kind's ranking metric (up) against another of its metrics (across), a point
     per found case from the cards' index (its values of `pointNames[kind]`), each point a link to
     its card; drawn when the index is read (`scatterReady`) and when the metric changes */
  var SW = 600, SH = 400, SL = 46, SB = 40, ST = 12, SR = 130;
  var scatterSelect = document.getElementById("scatter-metric"), scatterBox = document.getElementById("scatter");
  var pointNames = {}, pointCards = [];
  function drawScatter() {
    var pick = scatterSelect.value.split("|"), kind = pick[0], across = pick[1], info = data.scatter[kind];
    var names = pointNames[kind] || [], xi = names.indexOf(across), yi = names.indexOf(info.primary);
    var xs = info.scale[across] || 1, ys = info.scale[info.primary] || 1, w = SW - SL - SR, h = SH - ST - SB;
    function px(v) { return SL + w * Math.max(0, Math.min(1, v / xs)); }
    function shown(v, scale) { return v.toFixed(scale === 1 ? 3 : 2); }  /* as the cards show scores */
    function py(v) { return ST + h * (1 - Math.max(0, Math.min(1, v / ys))); }
    var s = svg("svg", {viewBox: "0 0 " + SW + " " + SH, role: "img"});
    s.appendChild(svg("title", {}, info.primary + " against " + across + ", one point per found case"));
    [0, 0.5, 1].forEach(function (f) {
      s.appendChild(svg("line", {x1: SL, y1: py(f * ys), x2: SL + w, y2: py(f * ys), stroke: "#eaeef2"}));
      s.appendChild(svg("line", {x1: px(f * xs), y1: ST, x2: px(f * xs), y2: ST + h, stroke: "#eaeef2"}));
      s.appendChild(svg("text", {x: SL - 4, y: py(f * ys) + 3, "text-anchor": "end"}, String(f * ys)));
      s.appendChild(svg("text", {x: px(f * xs), y: ST + h + 13, "text-anchor": "middle"}, String(f * xs)));
    });
    s.appendChild(svg("text", {x: SL + w / 2, y: SH - 6, "text-anchor": "middle"}, across));
    s.appendChild(svg("text", {x: 12, y: ST + h / 2, "text-anchor": "middle",
                               transform: "rotate(-90 12 " + (ST + h / 2) + ")"}, info.primary));
    var n = 0, parsers = [];
    pointCards.forEach(function (c) {
      var vx = c.points[xi], vy = c.points[yi];
      if (c.values.kind !== kind || vx === null || vx === undefined || vy === null || vy === undefined) return;
      var a = svg("a", {href: "#" + c.anchor, "data-parser": c.values.parser});
      a.appendChild(svg("circle", {cx: px(vx).toFixed(1), cy: py(vy).toFixed(1), r: 3.5,
                                   fill: data.colors[c.values.parser] || "#57606a"}));
      a.appendChild(svg("title", {}, c.text.split(" ")[0] + ": " + info.primary + " " + shown(vy, ys) + ", " +
                                     across + " " + shown(vx, xs)));
      s.appendChild(a);
      if (parsers.indexOf(c.values.parser) < 0) parsers.push(c.values.parser);
      n++;
    });
    parsers.forEach(function (p, i) {  /* the key, right of the plot */
      s.appendChild(svg("circle", {cx: SW - SR + 14, cy: ST + 8 + 16 * i, r: 4, fill: data.colors[p] || "#57606a"}));
      s.appendChild(svg("text", {x: SW - SR + 22, y: ST + 11 + 16 * i}, p));
    });
    scatterBox.replaceChildren(s);
    document.getElementById("scatter-count").textContent = n + " " + info.title + " plotted";
  }
  function scatterReady(cards, names) {
    if (!scatterSelect || !scatterBox) return;
    pointNames = names || {}; pointCards = cards;
    Object.keys(data.scatter).forEach(function (kind) {
      var info = data.scatter[kind], many = Object.keys(data.scatter).length > 1;
      (pointNames[kind] || []).slice(1).forEach(function (m, i) {
        var o = el("option", "", (many ? info.title + ": " : "") + m +
          (info.scale[m] !== 1 ? " (0-" + info.scale[m] + ")" : ""));
        o.value = kind + "|" + m;
        if (scatterSelect.options.length === 0 && i === 0) o.selected = true;
        scatterSelect.appendChild(o);
      });
    });
    scatterSelect.addEventListener("change", drawScatter);
    if (scatterSelect.options.length) drawScatter();
  }
"""

"""The static CSS and JavaScript inlined into report.html (kept apart so html.py reads as markup).

The script builds no markup of its own from strings: it reads the embedded JSON, creates elements
with createElement / createElementNS and sets text with textContent, so data cannot become code.
The one markup it parses is the cards' (escaped when the report was written, `html_data`): in an
inert <template>, with anything that could load or run removed before it joins the page. The
charts' part of the script is `html_charts_js`'s, the enlarging of a card's image
`html_zoom_js`'s, both inside this one.
"""

from tablebench.report.html_charts_js import CHARTS_CSS, CHARTS_JS
from tablebench.report.html_zoom_js import ZOOM_CSS, ZOOM_JS

CSS = """
:root { --fg:#1f2328; --muted:#59636e; --line:#d1d9e0; --bg:#fff; --soft:#f6f8fa; --accent:#0969da; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
       background: var(--bg); margin: 0 auto; padding: 24px 32px 64px; max-width: 1600px; }
h1 { font-size: 24px; margin: 0 0 4px; }
p.incomplete { color: #fff; background: #b00020; font-weight: 700; padding: 8px 12px; border-radius: 4px; }
h2 { font-size: 18px; margin: 32px 0 8px; padding-bottom: 4px; border-bottom: 1px solid var(--line); }
.note { color: var(--muted); font-size: 12.5px; margin: 6px 0; }
dl.meta { display: grid; grid-template-columns: max-content 1fr; gap: 2px 16px; margin: 8px 0 0;
          font-size: 13px; }
dl.meta dt { color: var(--muted); }
dl.meta dd { margin: 0; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; overflow-wrap: anywhere; }
.scroll { overflow-x: auto; }
table.board { border-collapse: collapse; font-variant-numeric: tabular-nums; font-size: 13px; }
table.board th, table.board td { padding: 5px 8px; border-bottom: 1px solid var(--line); text-align: right;
                                 white-space: nowrap; }
table.board th { background: var(--soft); font-weight: 600; position: sticky; top: 0; }
table.board th.sortable { cursor: pointer; user-select: none; }
table.board th.sortable:hover { background: #eaeef2; }
table.board th[aria-sort="descending"]::after { content: " ▼"; font-size: 10px; }
table.board th[aria-sort="ascending"]::after { content: " ▲"; font-size: 10px; }
table.board .name { text-align: left; font-weight: 600; min-width: 10em; max-width: 22em;
                    overflow-wrap: break-word; white-space: normal; }
table.board .primary { font-weight: 700; }
tr[data-show-parser] { cursor: pointer; } tr[data-show-parser]:hover td { background-color: #f3f6fa; }
a.to-cards { color: inherit; } table.causes td.cause { max-width: 60em; }
table.causes .why { color: var(--muted); font-size: 12px; } table.causes ul { margin: 4px 0; padding-left: 18px; }
details.run { margin-top: 24px; } details.run summary { font-size: 14px; }
table.board .excl { display: block; color: var(--muted); font-size: 11px; }
table.board tr.block .excl, table.board .flat .excl { display: inline; }
table.board tr.block td { border-top: 2px solid var(--line); }
td.q0 { background: #fde2e1; } td.q1 { background: #fdebd3; } td.q2 { background: #fef6d5; }
td.q3 { background: #e8f5dc; } td.q4 { background: #d2f0d6; }
.hists { display: grid; grid-template-columns: repeat(auto-fill, minmax(330px, 1fr)); gap: 12px; margin-top: 8px; }
.hist { border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.hist h3 { font-size: 13.5px; margin: 0; overflow-wrap: anywhere; }
.hist .sub { color: var(--muted); font-size: 12px; }
.hist svg { display: block; width: 100%; height: auto; }
.hist svg text { font-size: 10px; fill: var(--muted); }
.controls { display: flex; flex-wrap: wrap; gap: 12px; align-items: center; margin: 8px 0 12px;
            position: sticky; top: 0; background: var(--bg); padding: 8px 0; z-index: 2;
            border-bottom: 1px solid var(--line); }
.controls label { font-size: 13px; color: var(--muted); }
.controls select { font: inherit; padding: 2px 4px; max-width: 280px; }
article.case { border: 1px solid var(--line); border-radius: 6px; margin: 0 0 14px; }
article.case > header { display: flex; flex-wrap: wrap; gap: 8px 14px; align-items: baseline;
                        padding: 8px 12px; background: var(--soft); border-bottom: 1px solid var(--line);
                        border-radius: 6px 6px 0 0; }
article.case .id { font-family: ui-monospace, SFMono-Regular, Menlo, monospace; font-size: 12.5px;
                   overflow-wrap: anywhere; }
.badge { font-size: 11.5px; font-weight: 600; border-radius: 10px; padding: 1px 8px; color: #fff; }
.o-ok { background: #1a7f37; } .o-missing { background: #bf8700; } .o-parse_error { background: #cf222e; }
.o-timeout { background: #8250df; } .o-empty { background: #6e7781; } .o-error { background: #82071e; }
.o-other { background: #57606a; } .o-found { background: #6e7781; }
.cx { font-size: 12px; color: var(--muted); }
.pages { font-size: 12px; font-weight: 600; }
.scores { font-size: 12px; font-variant-numeric: tabular-nums; color: var(--fg); }
.scores b { font-weight: 600; color: var(--muted); }
.errors { margin: 0; padding: 4px 12px; font-size: 12.5px; }
.errors ul { margin: 2px 0; padding-left: 20px; }
.message { margin: 0; padding: 6px 12px; font-size: 12.5px; color: #6e4b00; background: #fff8c5;
           overflow-wrap: anywhere; }
.sides { display: grid; grid-template-columns: 1fr 1fr; gap: 0; }
.side { padding: 8px 12px; min-width: 0; }
.side + .side { border-left: 1px solid var(--line); }
.side h4 { margin: 0 0 6px; font-size: 12px; text-transform: uppercase; letter-spacing: .04em;
           color: var(--muted); }
.rendered { overflow-x: auto; }
.rendered.formula { overflow-y: hidden; padding: 6px 0; } /* a glyph's ink past the line box: no scrollbar */
article.case[data-outcome=ok] > .message { background: #eef6ff; color: var(--fg); } /* found: a note, no warning */
.rendered table { border-collapse: collapse; font-size: 12px; }
.rendered td, .rendered th { border: 1px solid #c5ced8; padding: 2px 6px; vertical-align: top; }
.rendered th { background: var(--soft); }
.none { color: var(--muted); font-style: italic; font-size: 12.5px; }
pre { background: var(--soft); border: 1px solid var(--line); border-radius: 4px; padding: 6px 8px;
      font-size: 11.5px; max-height: 220px; overflow: auto; white-space: pre-wrap; overflow-wrap: anywhere;
      margin: 8px 0 0; }
details summary { cursor: pointer; color: var(--muted); font-size: 12px; margin-top: 8px; }
button.more { font: inherit; padding: 6px 14px; margin: 4px 0; cursor: pointer; }
#regressions h3 { font-size: 14.5px; margin: 14px 0 6px; }
table.gate td:first-child, table.gate td:nth-child(2), table.gate th:first-child, table.gate th:nth-child(2),
table.moved td.name, table.moved th:first-child { text-align: left; }
tr.v-fail td { background: #ffebe9; } tr.v-fail td:last-child { color: #cf222e; font-weight: 700; }
tr.v-up td:last-child, tr.v-improved td:nth-child(5) { color: #1a7f37; font-weight: 700; }
tr.v-regressed td:nth-child(5) { color: #cf222e; font-weight: 700; } tr.v-info td { color: var(--muted); }
.badge.v-regressed { background: #cf222e; } .badge.v-improved { background: #1a7f37; }
.badge.v-unchanged, .badge.v-new { background: #6e7781; }
.badge.verdict-fail { background: #cf222e; } .badge.verdict-known { background: #6e7781; }
div.verdict { margin: 6px 12px; font-size: 13px; } div.verdict ul { margin: 2px 0; padding-left: 20px; }
div.verdict-fail b { color: #cf222e; }
article.case:target { outline: 3px solid var(--accent); }
article.case { scroll-margin-top: var(--bar, 0px); } /* an opened card's header below the sticky bar (JS sets --bar) */
a.id { color: inherit; text-decoration: none; } a.id:hover { text-decoration: underline; }
.controls input[type=search] { font: inherit; padding: 2px 6px; }
details.subs { padding: 0 12px 4px; font-size: 12px; } details.subs summary { margin-top: 4px; }
.evidence { border-top: 1px solid var(--line); padding: 4px 12px 8px; display: flow-root; }
.evidence .diff summary, .evidence .diff .note { font-size: 12px; }
table.celldiff del { color: #82071e; }
table.celldiff ins { color: #1a4f9f; text-decoration: none; font-weight: 600; }
td.d-eq, span.d-equ { background: #dafbe1; } td.d-chg, span.d-cha { background: #fff1c2; }
td.d-miss, span.d-mis { background: #ffd7d5; } td.d-ext, th.d-ext, span.d-ext { background: #ddf4ff; }
.summary span { padding: 0 4px; border-radius: 3px; }
.output button { font: inherit; font-size: 12px; margin-top: 6px; cursor: pointer; }
figure.crop { margin: 6px 0; } figure.crop img { max-width: 100%; border: 1px solid var(--line); }
figure.thumb { float: right; margin: 0 0 6px 12px; } figure.thumb figcaption { text-align: right; }
.output pre { max-height: 320px; } .output mark { background: #ffe066; }
.prose { max-height: 420px; overflow: auto; font-size: 13px; } .prose .bn { color: var(--muted); font-size: 11px; }
.t-missing { background: #ffd7d5; } .t-edited { text-decoration: underline wavy #bf8700; }
.t-order { background: #fff1c2; } .t-invented, .t-dup { background: #ddf4ff; text-decoration: none; }
""" + CHARTS_CSS + ZOOM_CSS

JS = """
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("tb-data").textContent);
  var SVG = "http://www.w3.org/2000/svg";

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined) node.textContent = text;
    return node;
  }
  function svg(tag, attrs, text) {
    var node = document.createElementNS(SVG, tag);
    Object.keys(attrs).forEach(function (k) { node.setAttribute(k, String(attrs[k])); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  /* sortable tables: click (or Enter on) a header; numbers from data-v, empty values last */
  function sortKey(row, col) {
    var cell = row.cells[col];
    var v = cell ? cell.getAttribute("data-v") : null;
    if (v === null) return cell ? cell.textContent.trim().toLowerCase() : "";
    return v === "" ? null : parseFloat(v);
  }
  function makeSortable(table) {
    var heads = Array.prototype.slice.call(table.tHead.rows[0].cells);
    heads.forEach(function (th, col) {
      th.classList.add("sortable");
      th.tabIndex = 0;
      function sort() {
        var text = th.getAttribute("data-type") === "text";
        var now = th.getAttribute("aria-sort");
        var dir = now ? (now === "descending" ? "ascending" : "descending") : (text ? "ascending" : "descending");
        heads.forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", dir);
        var sign = dir === "ascending" ? 1 : -1;
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = sortKey(a, col), y = sortKey(b, col);
          if (x === null || y === null) return (x === null) - (y === null);
          if (x < y) return -sign;
          if (x > y) return sign;
          return parseInt(a.getAttribute("data-rank"), 10) - parseInt(b.getAttribute("data-rank"), 10);
        });
        rows.forEach(function (r) { body.appendChild(r); });
      }
      th.addEventListener("click", sort);
      th.addEventListener("keydown", function (e) {
        if (e.key === "Enter" || e.key === " ") { e.preventDefault(); sort(); }
      });
    });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable-table"), makeSortable);

""" + CHARTS_JS + ZOOM_JS + """

  /* drill-down: the cards are data (html_data.py): an index of every card, and its escaped markup
     in compressed chunks; only the chunks of the cards shown are decoded, only those cards laid out */
  var PAGE = 60, shown = PAGE, DROP = /^(script|style|iframe|frame|object|embed|link|meta|base|form|img|svg)$/i;
  var box = document.getElementById("cases"), cardsData = data.cards;
  var filters = Array.prototype.slice.call(document.querySelectorAll("select[data-filter]"));
  var counter = document.getElementById("case-count"), more = document.getElementById("more");
  var order = document.getElementById("case-order"), search = document.getElementById("case-search");
  var cards = [], ordered = [], byAnchor = new Map(), chunks = [], loads = [], fragText = new Map();
  var pinned = null, renders = 0;
  function unpack(b64) {
    var bin = atob(b64), bytes = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return new Response(new Blob([bytes]).stream().pipeThrough(new DecompressionStream("gzip"))).text();
  }
  function chunkOf(id) {
    var lo = 0, hi = cardsData.starts.length - 1;
    while (lo < hi) { var mid = (lo + hi + 1) >> 1; if (cardsData.starts[mid] <= id) lo = mid; else hi = mid - 1; }
    return lo;
  }
  function load(list) {  /* decode the chunks holding these cards' fragments (each chunk once) */
    var need = new Set();
    list.forEach(function (c) { c.frags.concat(c.needs).forEach(function (id) { need.add(chunkOf(id)); }); });
    return Promise.all(Array.from(need).map(function (n) {
      if (!loads[n]) loads[n] = unpack(cardsData.chunks[n]).then(function (t) {
        chunks[n] = JSON.parse(t);
        box.setAttribute("data-decoded", chunks.filter(Boolean).length + "/" + cardsData.chunks.length);
      });
      return loads[n];
    }));
  }
  function fragment(id) { var n = chunkOf(id); return chunks[n][id - cardsData.starts[n]]; }
  function clean(root) {  /* defence in depth: the markup was escaped when written; drop what could act */
    Array.prototype.forEach.call(root.querySelectorAll("*"), function (node) {
      if (DROP.test(node.localName)) { node.remove(); return; }
      Array.prototype.slice.call(node.attributes).forEach(function (a) {
        var n = a.name.toLowerCase();
        if (n.indexOf("on") === 0 || (n === "href" && a.value.charAt(0) !== "#") || /src|action|xlink|style/.test(n)) {
          node.removeAttribute(a.name);
        }
      });
    });
  }
  function element(card) {  /* parsed in an inert template: nothing in it loads or runs */
    if (card.el) return card.el;
    var t = document.createElement("template");
    t.innerHTML = card.frags.map(fragment).join("");
    clean(t.content);
    card.el = document.importNode(t.content, true).firstElementChild;
    Array.prototype.forEach.call(card.el.querySelectorAll("figure.crop"), showCrop);
    Array.prototype.forEach.call(card.el.querySelectorAll("pre.matched"), function (pre) {
      var text = card.needs.length ? fragment(card.needs[0]) : null;  /* the matched text, in the page's output */
      var span = (pre.getAttribute("data-span") || "").split(",").map(Number);
      if (typeof text === "string") pre.textContent = text.slice(span[0], span[1]);
    });
    return card.el;
  }
  function text(id) {
    if (!fragText.has(id)) {
      fragText.set(id, fragment(id).replace(/<[^>]*>/g, " ").replace(/&lt;/g, "<").replace(/&gt;/g, ">")
        .replace(/&quot;/g, '"').replace(/&#x27;/g, "'").replace(/&amp;/g, "&").toLowerCase());
    }
    return fragText.get(id);
  }
  /* the search box: cards whose id or text holds every word typed (case-insensitive); the text of
     cards not yet decoded is searched once every chunk is (decoded on the first search) */
  var everything = null;
  function searched(card, words) {
    return words.every(function (w) {
      return card.text.indexOf(w) >= 0 || (everything === true && card.frags.some(function (id) {
        return text(id).indexOf(w) >= 0;
      }));
    });
  }
  function apply(then) {
    var words = search ? search.value.toLowerCase().split(/\\s+/).filter(Boolean) : [];
    if (words.length && everything === null) {
      everything = load(cards).then(function () { everything = true; apply(); });
    }
    var matching = ordered.filter(function (c) {
      return filters.every(function (f) {
        return f.value === "" || c.values[f.getAttribute("data-filter")] === f.value;
      }) && (!binPick || inBin(c, binPick)) && searched(c, words);
    });
    var page = matching.slice(0, shown);
    if (pinned && page.indexOf(pinned) < 0) page.unshift(pinned);
    var mine = ++renders;
    return load(page).then(function () {
      if (mine !== renders) return;
      box.replaceChildren.apply(box, page.map(element));
      counter.textContent = Math.min(matching.length, shown) + " of " + matching.length + " matching " +
        (counter.getAttribute("data-unit") || "cases") + " shown";
      more.hidden = matching.length <= shown;
      if (then) then();
      document.documentElement.setAttribute("data-ready", "1");
      document.dispatchEvent(new Event("tb-rendered"));
    });
  }
  function fresh() { pinned = null; shown = PAGE; apply(); }
  filters.forEach(function (f) { f.addEventListener("change", fresh); });
  if (search) search.addEventListener("input", fresh);
  if (more) more.addEventListener("click", function () { pinned = null; shown += PAGE; apply(); });
  /* tables without a score (not found) count as the worst; cases without a change against the
     baseline come after every change; ties keep page order */
  function sortCards() {
    var sign = order.value === "best" ? -1 : 1;
    ordered = cards.slice();
    if (order.value === "delta") ordered.sort(function (a, b) { return a.d - b.d || a.i - b.i; });
    else if (order.value !== "page") ordered.sort(function (a, b) { return sign * (a.v - b.v) || a.i - b.i; });
  }
  if (order) order.addEventListener("change", function () { sortCards(); fresh(); });
  /* a histogram bar's pick of cards (`inBin`), named in the filter bar until cleared or replaced */
  var binPick = null, binNote = el("span", "note bin-pick"), binClear = el("button", "", "show every bin");
  binNote.hidden = true;
  binClear.addEventListener("click", function () { binPick = null; binNote.hidden = true; fresh(); });
  /* a parser's leaderboard row (or its name, its failed count, a bar of its group or score bin):
     its cards, worst first, scrolled to; every other filter is reset, a count's verdict, a bar's
     group or bin set */
  function showCards(parser, verdict, group, pick) {
    binPick = pick || null;
    binNote.hidden = !binPick;
    if (binPick) binNote.replaceChildren(binName(binPick.bin, binPick.metric, binPick.scale) + " ", binClear);
    filters.forEach(function (f) {
      var name = f.getAttribute("data-filter");
      f.value = name === "parser" ? parser : name === "verdict" && verdict ? verdict
        : name === "group" && group ? group : "";
    });
    if (search) search.value = "";
    if (order) { order.value = "worst"; sortCards(); }
    pinned = null; shown = PAGE;
    return apply(function () {
      var head = document.getElementById("cases-head");
      if (head) head.scrollIntoView();
    });
  }
  document.addEventListener("click", function (e) {
    var to = e.target.closest ? e.target.closest("a.to-cards, tr[data-show-parser]") : null;
    if (!to || !box || !cardsData) return;
    e.preventDefault();
    var bin = to.getAttribute("data-bin"), kind = to.getAttribute("data-kind"), metric = to.getAttribute("data-metric");
    var info = data.hists.filter(function (h) { return h.kind === kind; })[0];
    showCards(to.getAttribute("data-parser") || to.getAttribute("data-show-parser"),
              to.getAttribute("data-verdict") || "", to.getAttribute("data-group") || "",
              bin === null || !info ? null : {kind: kind, metric: metric, bin: parseInt(bin, 10),
                                              scale: info.scale[metric] || 1});
  });
  /* a card opened by its anchor scrolls below the sticky filter bar, not under it: cards keep a
     scroll margin of the bar's height (--bar), measured, since the bar wraps with the window's width */
  var bar = document.querySelector(".controls");
  if (bar && counter) bar.insertBefore(binNote, counter);
  function barMargin() {
    if (bar) document.documentElement.style.setProperty("--bar", (bar.offsetHeight + 8) + "px");
  }
  barMargin();
  window.addEventListener("resize", barMargin);
  /* a link to a card (#c-...) shows it, first, even when paging or a filter leaves it out */
  function reveal() {
    var card = location.hash ? byAnchor.get(decodeURIComponent(location.hash.slice(1))) : null;
    if (!card) return null;
    pinned = card;
    return apply(function () { barMargin(); card.el.scrollIntoView(); });
  }
  /* a page's whole output: a fragment decoded with the cards that refer to it */
  function output(node) {
    var id = cardsData.outputs[parseInt(node.getAttribute("data-out"), 10)];
    return id >= 0 ? fragment(id) : null;
  }
  /* a card's page output, drawn on demand: text nodes with the matched spans in <mark> */
  function showOutput(out) {
    var text = output(out);
    if (typeof text !== "string" || out.querySelector("pre")) return;
    var spans = (out.getAttribute("data-spans") || "").split(";").filter(Boolean).map(function (s) {
      return s.split(",").map(function (n) { return parseInt(n, 10); });
    }).sort(function (a, b) { return a[0] - b[0]; });
    var pre = el("pre"), at = 0, first = null;
    spans.forEach(function (s) {
      var a = Math.max(at, Math.min(s[0], text.length)), b = Math.min(s[1], text.length);
      if (b <= a) return;
      pre.appendChild(document.createTextNode(text.slice(at, a)));
      var m = el("mark", "", text.slice(a, b));
      pre.appendChild(m);
      if (!first) first = m;
      at = b;
    });
    pre.appendChild(document.createTextNode(text.slice(at)));
    out.appendChild(pre);
    if (first) pre.scrollTop = Math.max(0, first.offsetTop - pre.offsetTop - 40);
  }
  if (box) box.addEventListener("click", function (e) {
    var b = e.target.closest ? e.target.closest(".output button") : null;
    if (b) showOutput(b.parentNode);
  });
  /* page crops (and text items' page thumbnails): one data URI per table (page) in the data
     block, an <img> per card that shows it, enlarged on a click */
  function showCrop(f) {
    var uri = data.crops[parseInt(f.getAttribute("data-crop"), 10)];
    if (typeof uri !== "string" || uri.indexOf("data:image/webp;base64,") !== 0) return;
    var img = el("img");
    img.alt = f.classList.contains("thumb") ? "page thumbnail" : "page crop"; img.src = uri;
    f.insertBefore(zoomable(img), f.firstChild);
  }
  if (box && cardsData && typeof DecompressionStream === "undefined") {
    counter.textContent = "This browser cannot decode the cases (it needs DecompressionStream: Chrome 80, " +
      "Firefox 113, Safari 16.4 or later); results.json holds every one.";
  } else if (box && cardsData) {
    unpack(cardsData.index).then(function (t) {
      var index = JSON.parse(t), fields = index.fields;
      cards = index.cards.map(function (row, i) {
        var values = {};
        fields.forEach(function (f, k) { values[f] = index.values[f][row[2 + k]]; });
        var score = row[2 + fields.length];
        var delta = row[3 + fields.length];
        var card = {i: i, anchor: row[0], text: row[1], values: values, v: score === null ? -1 : score,
                    d: delta === null ? Infinity : delta,
                    score: score, points: row[4 + fields.length] || [], frags: row[5 + fields.length],
                    needs: row[6 + fields.length], el: null};
        byAnchor.set(card.anchor, card);
        return card;
      });
      ordered = cards.slice();
      window.addEventListener("hashchange", reveal);
      document.addEventListener("click", function (e) {  /* the link to the card the location already names */
        var a = e.target.closest ? e.target.closest("a[href^='#c-']") : null;
        if (a && a.getAttribute("href") === location.hash && !document.getElementById(location.hash.slice(1))) reveal();
      });
      scatterReady(cards, index.metrics);
      return reveal() || apply();
    });
  } else {
    document.documentElement.setAttribute("data-ready", "1");
  }
})();
"""

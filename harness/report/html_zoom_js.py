"""The part of report.html's script that enlarges a card's image: click-to-zoom crops and thumbnails.

Why: a crop is rendered small (`tablebench.report.crops.DPI`) to keep the page small, and shown
at most as wide as its card's column; checking a digit against the extraction needs it larger.
Each image is a button (reached with Tab, opened with Enter or Space, as with a click) that shows
the same image in an overlay, fitted to the window (at most `ZOOM_MAX` times its own size, where
more would only blur); Escape or a click closes it and gives the focus back to the button. No
second, larger copy is stored: the overlay shows the data URI the card already has.

Kept apart from `html_assets` so each stays short; `html_assets.JS` is one script with this part
inside it, under the same CSP hash. The same rules hold: elements from createElement, handlers
from addEventListener (no inline handler, which the CSP would refuse), text through textContent;
the size is set as the image's width and height attributes, not as a style.
"""

ZOOM_CSS = """
button.zoom-in { display: block; border: 0; padding: 0; margin: 0; background: none; cursor: zoom-in;
                 max-width: 100%; }
button.zoom-in:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.zoom { position: fixed; inset: 0; z-index: 10; display: flex; align-items: center; justify-content: center;
        background: rgba(31, 35, 40, .82); cursor: zoom-out; }
.zoom[hidden] { display: none; } .zoom img { background: #fff; max-width: none; }
"""

ZOOM_JS = """
  /* click-to-zoom: an image of a card is a button; the overlay shows it fitted to the window */
  var ZOOM_MAX = 4, zoom = null, zoomImg = null, zoomFrom = null, zoomSrc = null;
  function zoomable(img) {
    var b = el("button", "zoom-in");
    b.type = "button";
    b.setAttribute("aria-label", "enlarge the " + img.alt);
    b.appendChild(img);
    b.addEventListener("click", function () { openZoom(img, b); });
    return b;
  }
  function fitZoom() {  /* the card's image is loaded (it was clicked): its size is known at once */
    var w = zoomSrc.naturalWidth || zoomImg.naturalWidth, h = zoomSrc.naturalHeight || zoomImg.naturalHeight;
    if (!w || !h) return;
    var s = Math.min(ZOOM_MAX, window.innerWidth * 0.94 / w, window.innerHeight * 0.94 / h);
    zoomImg.width = Math.round(w * s); zoomImg.height = Math.round(h * s);
  }
  function openZoom(img, from) {
    if (!zoom) {
      zoom = el("div", "zoom");
      zoom.setAttribute("role", "dialog"); zoom.setAttribute("aria-modal", "true");
      zoom.setAttribute("aria-label", "enlarged image: Escape or a click closes it");
      zoom.tabIndex = -1;
      zoomImg = el("img");
      zoomImg.addEventListener("load", fitZoom);
      zoom.appendChild(zoomImg);
      zoom.addEventListener("click", closeZoom);
      window.addEventListener("resize", function () { if (!zoom.hidden) fitZoom(); });
      document.body.appendChild(zoom);
    }
    zoomFrom = from; zoomSrc = img; zoomImg.alt = img.alt + ", enlarged"; zoomImg.src = img.src;
    zoom.hidden = false; fitZoom(); zoom.focus();
  }
  function closeZoom() {
    if (!zoom || zoom.hidden) return;
    zoom.hidden = true;
    if (zoomFrom && zoomFrom.isConnected) zoomFrom.focus();
  }
  document.addEventListener("keydown", function (e) {  /* Escape closes; Tab stays in the overlay while open */
    if (!zoom || zoom.hidden) return;
    if (e.key === "Escape") { e.preventDefault(); closeZoom(); } else if (e.key === "Tab") { e.preventDefault(); }
  });
"""

// Part of the book, not vendored. The one widget script a page with widgets
// loads (deferred, so text and figures paint first). It loads the rest
// itself, in the order the widget manager needs: the page's widget state
// (the script named in this tag's data-widget-state, written by the book's
// Sphinx extension, _ext/book_site.py), require.js, the settings below, then
// the bundle (embed-amd.js), which draws every widget.
//
// The bundle is 3.5 MB of JavaScript and keeps a phone busy for seconds, and
// the state of a page can be more than a megabyte of precomputed frames, so
// both are loaded when the reader first scrolls, touches, clicks or presses a
// key, not with the page. Until then each widget shows its preview (also
// written by the extension): the controls and the first frame as they will
// look. When a widget has been drawn, its preview goes.
(function () {
  "use strict";
  var script = document.currentScript;
  var here = script.src.replace(/[^/?]*(\?.*)?$/, "");
  var state = script.getAttribute("data-widget-state");
  var root = document.documentElement;

  // 1. Load on the reader's first sign of life.
  var TRIGGERS = ["scroll", "wheel", "pointerdown", "pointermove", "touchstart", "keydown",
                  "focusin"];
  var started = false;

  function load(src, then) {
    var tag = document.createElement("script");
    tag.src = src;
    tag.async = false;
    if (then) {
      tag.addEventListener("load", then);
    }
    tag.addEventListener("error", function () {
      root.classList.remove("widgets-loading");
      root.classList.add("widgets-failed");
    });
    document.head.appendChild(tag);
  }

  function start(event) {
    // A scroll of the page counts; the theme scrolling its sidebar does not.
    if (started || (event && event.type === "scroll" && event.target !== document)) {
      return;
    }
    started = true;
    TRIGGERS.forEach(function (name) {
      window.removeEventListener(name, start, true);
    });
    root.classList.add("widgets-loading");
    // Fetch the bundle meanwhile; it may only run once require.js is set up.
    var early = document.createElement("link");
    early.rel = "preload";
    early.as = "script";
    early.href = here + "embed-amd.js";
    document.head.appendChild(early);
    if (state) {
      load(state);  // runs before require.js: scripts added this way run in order
    }
    load(here + "require.js", function () {
      configure();
      load(here + "embed-amd.js");
    });
  }

  // 2. Each module of the bundle ("@jupyter-widgets/controls", ...) derives
  //    where its icon fonts live from the URL require.js gives that module,
  //    which by default is relative to the page; point every one of them at
  //    the copy served beside this script, so a page fetches nothing from
  //    elsewhere.
  function configure() {
    window.require.config({
      paths: {
        "@jupyter-widgets": here + "html-manager",
        "@jupyter-widgets/html-manager/dist": here + "html-manager",
      },
    });
  }

  // 3. The bundle typesets widget labels with MathJax 2's API
  //    (MathJax.Hub.Queue); the book loads MathJax 3, which has no Hub, so
  //    every widget redraw would throw. Give MathJax 3 that one entry point.
  function addHub() {
    var mathjax = window.MathJax;
    if (mathjax && mathjax.version && !mathjax.Hub) {
      mathjax.Hub = {
        Queue: function (job) {
          var element = job && job[2];
          if (mathjax.typesetPromise) {
            mathjax.typesetPromise(element ? [element] : undefined).catch(function () {});
          }
        },
      };
    }
  }

  // 4. What the bundle leaves out, added as widgets are drawn:
  //    - the sliders' handles (role="slider") carry no accessible name, so a
  //      screen reader announces "slider" and nothing else: name each one
  //      after the label shown beside it;
  //    - a row of toggle buttons says neither what it sets nor which button
  //      is chosen: make the row a named group and give each button
  //      aria-pressed, kept in step with the bundle's "mod-active" class.
  function labelOf(element) {
    var label = element.querySelector(":scope > .widget-label");
    return label ? label.textContent.trim().replace(/:$/, "") : "";
  }

  function describe() {
    document.querySelectorAll(".widget-slider .noUi-handle:not([aria-label])")
      .forEach(function (handle) {
        var text = labelOf(handle.closest(".widget-slider"));
        if (text) {
          handle.setAttribute("aria-label", text);
        }
      });
    document.querySelectorAll(".widget-toggle-buttons").forEach(function (widget) {
      var row = widget.querySelector(":scope > div");
      if (row && !row.hasAttribute("role")) {
        row.setAttribute("role", "group");
        var text = labelOf(widget);
        if (text) {
          row.setAttribute("aria-label", text);
        }
      }
      widget.querySelectorAll("button").forEach(function (button) {
        var pressed = String(button.classList.contains("mod-active"));
        if (button.getAttribute("aria-pressed") !== pressed) {
          button.setAttribute("aria-pressed", pressed);
        }
      });
    });
  }

  // 5. A preview stays until its widget has been drawn and the widget's
  //    images decoded (the style sheet keeps the half-drawn widget out of
  //    sight meanwhile), then the widget takes its place in one step.
  function swapPreviews() {
    document.querySelectorAll(".widget-preview + .widget-subarea").forEach(function (area) {
      if (!area.firstElementChild || area.dataset.swapping) {
        return;
      }
      area.dataset.swapping = "yes";
      var images = Array.prototype.map.call(area.querySelectorAll("img"), function (img) {
        return img.decode ? img.decode().catch(function () {}) : null;
      });
      Promise.all(images).then(function () {
        var preview = area.previousElementSibling;
        if (preview && preview.classList.contains("widget-preview")) {
          preview.remove();
        }
        if (!document.querySelector(".widget-preview")) {
          root.classList.remove("widgets-loading");
          root.classList.add("widgets-live");
        }
      });
    });
  }

  var pending = false;
  new MutationObserver(function () {
    if (!pending) {
      pending = true;
      // Once per frame at most, however many nodes the bundle adds.
      requestAnimationFrame(function () {
        pending = false;
        describe();
        swapPreviews();
      });
    }
  }).observe(root, {childList: true, subtree: true, attributes: true,
                    attributeFilter: ["class"]});

  addHub();
  var mathjax = document.querySelector('script[src*="tex-mml-chtml"]');
  if (mathjax) {
    mathjax.addEventListener("load", addHub);
  }
  window.addEventListener("load", addHub);

  TRIGGERS.forEach(function (name) {
    window.addEventListener(name, start, {capture: true, passive: true});
  });
})();

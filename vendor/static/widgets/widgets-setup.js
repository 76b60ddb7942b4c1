// Part of the book, not vendored: it runs on pages with widgets, after
// require.js and before the widget bundle (embed-amd.js). Three fixes to how
// the bundle behaves on a static, offline page.
(function () {
  // 1. Each module of the bundle ("@jupyter-widgets/controls", ...) derives
  //    where its icon fonts live from the URL require.js gives that module,
  //    which by default is relative to the page; point every one of them at
  //    the copy served beside this script, so a page fetches nothing from
  //    elsewhere.
  var here = document.currentScript.src.replace(/[^/]*$/, "");
  window.require.config({
    paths: {
      "@jupyter-widgets": here + "html-manager",
      "@jupyter-widgets/html-manager/dist": here + "html-manager",
    },
  });

  // 2. The bundle typesets widget labels with MathJax 2's API
  //    (MathJax.Hub.Queue); the book loads MathJax 3, which has no Hub, so
  //    every widget redraw would throw. Give MathJax 3 that one entry point,
  //    as soon as MathJax has loaded.
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
  addHub();

  // 3. The sliders' handles (role="slider") carry no accessible name, so a
  //    screen reader announces "slider" and nothing else. Name each one after
  //    the label shown beside it, as the widgets are rendered.
  function nameSliders() {
    var handles = document.querySelectorAll(".widget-slider .noUi-handle:not([aria-label])");
    handles.forEach(function (handle) {
      var label = handle.closest(".widget-slider").querySelector(".widget-label");
      var text = label ? label.textContent.trim().replace(/:$/, "") : "";
      if (text) {
        handle.setAttribute("aria-label", text);
      }
    });
  }
  new MutationObserver(nameSliders).observe(document.documentElement, {
    childList: true,
    subtree: true,
  });
  var script = document.querySelector('script[src*="tex-mml-chtml"]');
  if (script) {
    script.addEventListener("load", addHub);
  }
  window.addEventListener("load", addHub);
})();

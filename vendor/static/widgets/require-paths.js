// Part of the book, not vendored. Runs after require.js and before the widget
// bundle (embed-amd.js). The bundle derives where its icon fonts live from the
// URL require.js gives its module "@jupyter-widgets/html-manager/dist/...",
// which by default is relative to the page; point it at the copy served
// beside this script instead, so no page fetches anything from elsewhere.
(function () {
  var here = document.currentScript.src.replace(/[^/]*$/, "");
  window.require.config({
    paths: {
      "@jupyter-widgets": here + "html-manager",
      "@jupyter-widgets/html-manager/dist": here + "html-manager",
    },
  });
})();

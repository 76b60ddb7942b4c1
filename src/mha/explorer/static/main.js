// The explorer's start: every explorer element of the page (one holding its
// data, mha.explorer.notebook and mha.explorer.site write it) made an
// Explorer, once, when the page is ready; the page's functions at
// window.mhaExplorer for the tests and benchmarks.

import {compute, tokenize} from "./compute.js";
import {colour} from "./draw.js";
import {Explorer} from "./interface.js";

function mountAll() {
  document.querySelectorAll(".mha-explorer").forEach(function (root) {
    var script = root.querySelector("script.mha-data");
    if (!script || root.mhaExplorer) {
      return;
    }
    root.mhaExplorer = new Explorer(root, JSON.parse(script.textContent));
  });
}

window.mhaExplorer = {tokenize: tokenize, compute: compute, colour: colour, mountAll: mountAll};
if (document.readyState === "loading") {
  document.addEventListener("DOMContentLoaded", mountAll);
} else {
  mountAll();
}

// The explorer's start, on either host. On a page (the book's site, a
// notebook's HTML output): every explorer element (one holding its data,
// mha.explorer.notebook and the site write it) made an Explorer, once, when
// the page is ready. In Jupyter: render, which anywidget calls with the
// widget's model and element (mha.explorer.widget). The page's functions are
// at window.mhaExplorer for the tests, the benchmarks and the widget.

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

// The widget's traits (mha.explorer.widget.ExplorerWidget) by the state's names.
var TRAITS = {option: "model", sentence: "sentence", mask: "mask", nPad: "padding",
              nHeads: "heads", layer: "layer"};

// The setting the widget's model holds, in the state's names.
function modelState(model) {
  var s = {};
  Object.keys(TRAITS).forEach(function (k) { s[k] = model.get(TRAITS[k]); });
  s.layer = String(s.layer);  // the layer switch's values are text
  return s;
}

// The explorer as a Jupyter widget: the same Explorer as on a page, its data
// the model's, its state kept equal to the model's both ways (a reader's
// change is saved to the model, Python's change of the model shown).
export function render(context) {
  var model = context.model;
  var root = document.createElement("div");
  root.className = "mha-explorer";
  context.el.appendChild(root);
  var data = Object.assign({}, model.get("_data"), {initial: modelState(model)});
  var explorer = root.mhaExplorer = new Explorer(root, data, {
    changed: function (s) {
      var now = modelState(model);
      if (Object.keys(TRAITS).every(function (k) { return now[k] === s[k]; })) {
        return;
      }
      var traits = {};
      Object.keys(TRAITS).forEach(function (k) { traits[TRAITS[k]] = s[k]; });
      traits.layer = Number(s.layer);
      model.set(traits);
      model.save_changes();
    },
  });
  var follow = function () { explorer.set(modelState(model)); };
  Object.keys(TRAITS).forEach(function (k) { model.on("change:" + TRAITS[k], follow); });
  return function () {
    Object.keys(TRAITS).forEach(function (k) { model.off("change:" + TRAITS[k], follow); });
  };
}

function start() {
  window.mhaExplorer = {tokenize: tokenize, compute: compute, colour: colour,
                        mountAll: mountAll, render: render};
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mountAll);
  } else {
    mountAll();
  }
}

start();

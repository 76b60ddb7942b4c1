// The explorer's controls, built from its data in the package's words
// (data.words): one row each, a label in a column of its own; the sentence
// drop-down and the model's words. The interface (interface.js) reads them.

import {fill, modelOf, range} from "./compute.js";

export function html(tag, attributes, parent, text) {
  var node = document.createElement(tag);
  Object.keys(attributes || {}).forEach(function (k) { node.setAttribute(k, attributes[k]); });
  if (text !== undefined) {
    node.textContent = text;
  }
  if (parent) {
    parent.appendChild(node);
  }
  return node;
}

// Text shown in `node`, changed in place: the page's own scripts watch the
// chapter for added and removed elements (and then measure every code box),
// so a change of text adds and removes none.
export function setText(node, text) {
  var only = node.childNodes.length === 1 && node.firstChild.nodeType === Node.TEXT_NODE;
  if (only) {
    if (node.firstChild.data !== text) {
      node.firstChild.data = text;
    }
  } else {
    node.textContent = text;
  }
}

// An element id of its own for each explorer of the page, however many
// copies of this script the page runs (one per notebook output: JupyterLab
// shows every notebook open in one page).
export function nextId() {
  window.mhaExplorerIds = (window.mhaExplorerIds || 0) + 1;
  return "mha-explorer-" + window.mhaExplorerIds;
}

// The layers a two-layer picture shows, one at a time: the first, the second.
export var LAYERS = ["1", "2"];

// The controls, from the data: one row each, a label in a column of its own.
export function buildControls(explorer) {
  var data = explorer.data, words = data.words, id = explorer.id, s = explorer.state;
  var form = explorer.form = html("form", {"class": "mha-controls",
                                       "aria-label": words.settings});
  var row = function (label, name, control) {
    var div = html("div", {"class": "mha-row"}, form);
    html("label", {"class": "mha-label", "for": id + "-" + name}, div, label);
    control.id = id + "-" + name;
    control.name = name;
    div.appendChild(control);
    return div;
  };
  var buttons = function (label, name, options, texts) {
    var set = html("fieldset", {"class": "mha-row"}, form);
    html("legend", {"class": "mha-label"}, set, label);
    var span = html("span", {"class": "mha-buttons"}, set);
    options.forEach(function (option, i) {
      var button = html("label", {"class": "mha-button"}, span);
      var input = html("input", {type: "radio", name: name, value: option}, button);
      input.checked = option === s[name];
      html("span", {}, button, texts ? texts[i] : option);
    });
  };
  var slider = function (label, name, values) {
    var input = html("input", {type: "range", min: 0, max: values.length - 1, step: 1});
    input.value = Math.max(0, values.indexOf(s[name]));
    input.setAttribute("data-values", JSON.stringify(values));
    var div = row(label, name, input);
    html("output", {"class": "mha-readout", "for": id + "-" + name}, div);
    return div;
  };
  if (data.choice) {
    buttons(data.choice, "option", data.options);
  }
  explorer.menu = html("select", {});
  row(words.sentence, "sentence", explorer.menu);
  listSentences(explorer, null);
  var typing = html("span", {"class": "mha-typing"});
  explorer.box = html("input", {type: "text", autocomplete: "off", spellcheck: "false",
                            placeholder: words.placeholder}, typing);
  html("button", {type: "submit", "class": "mha-show"}, typing, words.show);
  var typed = row(words.text, "text", typing);
  explorer.box.id = id + "-text";
  explorer.box.name = "text";
  typing.removeAttribute("id");
  typed.querySelector("label").setAttribute("for", explorer.box.id);
  explorer.message = html("p", {"class": "mha-message", role: "status"}, form);
  explorer.words = html("details", {"class": "mha-words"}, form);
  html("summary", {}, explorer.words, words.words);
  html("div", {"class": "mha-word-list"}, explorer.words);
  if (data.masks.length > 1) {
    buttons(words.mask, "mask", data.masks);
  }
  if (data.masks.indexOf("padding") >= 0) {
    explorer.padding = slider(words.nPad, "nPad", range(data.maxPad).map(function (i) {
      return i + 1;
    }));
  }
  if (data.headCounts.length > 1) {
    slider(words.nHeads, "nHeads", data.headCounts);
  }
  var layered = data.models.some(function (m) {
    return data.weights[m.weights].layers.length > 1;
  });
  if (layered) {
    buttons(words.layerSwitch, "layer", LAYERS);
    explorer.layerRow = form.lastChild;
  }
  explorer.figure = html("figure", {"class": "mha-frame"});
  // The maps, one canvas; what it shows, in words: the description below.
  explorer.canvas = html("canvas", {"class": "mha-maps", role: "img",
                                "aria-labelledby": id + "-description"},
                     html("div", {"class": "mha-picture"}, explorer.figure));
  explorer.caption = html("figcaption", {"aria-live": "polite"}, explorer.figure);
  explorer.reading = html("div", {"class": "mha-reading"});
  explorer.rowMenu = html("select", {});
  var div = html("div", {"class": "mha-row"}, explorer.reading);
  html("label", {"class": "mha-label", "for": id + "-row"}, div, words.row);
  explorer.rowMenu.id = id + "-row";
  explorer.rowMenu.name = "row";
  div.appendChild(explorer.rowMenu);
  explorer.description = html("p", {"class": "mha-description", id: id + "-description"},
                          explorer.reading);
  explorer.answers = html("div", {"class": "mha-answers"}, explorer.reading);
  explorer.rowMenu.addEventListener("change", explorer.changed.bind(explorer));
  var fallback = explorer.root.querySelector(".mha-fallback");
  if (fallback) {
    fallback.remove();
  }
  explorer.root.append(explorer.form, explorer.figure, explorer.reading);
}

// The sentence drop-down: the listed sentences, and the typed one shown.
export function listSentences(explorer, typed) {
  var menu = explorer.menu;
  explorer.typedSentence = typed;
  menu.textContent = "";
  explorer.data.sentences.forEach(function (sentence) {
    html("option", {value: sentence}, menu, sentence);
  });
  if (typed !== null && explorer.data.sentences.indexOf(typed) < 0) {
    html("option", {value: typed}, menu, fill(explorer.data.words.yourSentence, {sentence: typed}));
  }
  menu.value = typed !== null ? typed : explorer.state.sentence;
}

// The model's words, as buttons that add them to the box.
export function listWords(explorer) {
  var model = modelOf(explorer.data, explorer.state.option, explorer.state.nHeads);
  var list = explorer.words.querySelector(".mha-word-list");
  if (list.getAttribute("data-vocab") === model.vocab.join(" ")) {
    return;
  }
  list.setAttribute("data-vocab", model.vocab.join(" "));
  list.textContent = "";
  var specials = explorer.data.specials;
  model.vocab.forEach(function (word) {
    if (specials.indexOf(word) < 0) {
      html("button", {type: "button", "class": "mha-word"}, list, word);
    }
  });
  html("button", {type: "button", "class": "mha-word", "data-remove": "",
                  "aria-label": explorer.data.words.removeWord}, list, explorer.data.words.removeKey);
}

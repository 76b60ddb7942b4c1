// The explorer's interface: its controls (whose state lives here; a host,
// such as a Jupyter widget's model, is told each change and may ask for a
// setting), the picture of the state and what it says about it, all in the
// package's words (data.words), for one element of the page holding its data.

import {Problem, compute, fill, tokenize} from "./compute.js";
import {answersText, caption, describe, firstRow, title} from "./words.js";
import {layout, paint, textWidth} from "./draw.js";
import {LAYERS, buildControls, html, listSentences, listWords, nextId, setText} from "./controls.js";

// The stage of the maps: as wide as the column (at most 760 CSS px), as high
// as a phone leaves beside the controls, the same for every setting.
export function stageSize(width) {
  var w = Math.max(280, Math.min(width || 640, 760));
  return {width: w, height: Math.round(Math.min(w * 0.9, 460))};
}

// `host` (optional): {changed(state)}, told each state shown (main.js's
// widget keeps its model so); a page without one keeps the state here alone.
export function Explorer(root, data, host) {
  var self = this;
  this.root = root;
  this.data = data;
  this.host = host || null;
  this.id = nextId();
  var initial = data.initial;
  // The state of the controls: what the picture shows. Only show() changes it.
  this.state = {option: initial.option, nHeads: initial.nHeads, mask: initial.mask,
                nPad: initial.nPad, sentence: initial.sentence, row: null,
                layer: LAYERS[0]};
  this.chosen = initial.sentence;  // the last listed sentence chosen
  buildControls(this);  // the controls, from the data (controls.js)
  // Keys typed here are the explorer's: not a notebook's shortcuts (in
  // JupyterLab, Enter or "a" in command mode would edit the notebook).
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  root.addEventListener("keydown", function (event) { event.stopPropagation(); });
  this.form.addEventListener("input", function (event) { self.changed(event); });
  this.form.addEventListener("change", function (event) { self.changed(event); });
  this.form.addEventListener("submit", function (event) {
    event.preventDefault();
    self.typed();
  });
  this.words.addEventListener("click", function (event) {
    var word = event.target.closest("button");
    if (word) {
      self.tapped(word);
    }
  });
  // The picture's width, read once and then when it changes (reading it
  // after each change would make the browser lay out the page at once).
  // The canvas is drawn at that width: never scaled, so never blurred.
  var box = this.canvas.parentNode;
  this.width = box.clientWidth;
  this.show(this.state);
  this.warm();
  if (window.ResizeObserver) {
    new ResizeObserver(function (entries) {
      var width = Math.floor(entries[0].contentRect.width);
      if (width !== self.width) {
        self.width = width;
        self.repaint();
      }
    }).observe(box);
  }
  // The canvas follows the page: its colours when the page turns dark or
  // light (the book's theme, JupyterLab's, the system's), its pixels when
  // the device pixel ratio changes (zoom, another screen).
  var recolour = function () {
    self.ink = null;
    self.repaint();
  };
  var themes = new MutationObserver(recolour);
  themes.observe(document.documentElement, {attributes: true,
                                            attributeFilter: ["data-theme", "class"]});
  themes.observe(document.body, {attributes: true,
                                 attributeFilter: ["data-jp-theme-light", "data-theme"]});
  if (window.matchMedia) {
    window.matchMedia("(prefers-color-scheme: dark)").addEventListener("change", recolour);
    var watchRatio = function () {
      window.matchMedia("(resolution: " + window.devicePixelRatio + "dppx)")
        .addEventListener("change", function () {
          self.repaint();
          watchRatio();
        }, {once: true});
    };
    watchRatio();
  }
}

// The form as a setting (what the reader asks for).
Explorer.prototype.asked = function () {
  var form = this.form, s = Object.assign({}, this.state);
  var value = function (name) {
    var control = form.elements[name];
    if (!control) {
      return undefined;
    }
    if (control.type === "range") {
      return JSON.parse(control.getAttribute("data-values"))[Number(control.value)];
    }
    return control.value;
  };
  ["option", "mask", "nPad", "nHeads", "layer"].forEach(function (name) {
    var v = value(name);
    if (v !== undefined) {
      s[name] = v;
    }
  });
  s.sentence = this.menu.value;
  s.row = this.rowMenu.value === "" ? null : Number(this.rowMenu.value);
  return s;
};

Explorer.prototype.changed = function (event) {
  if (event.target === this.box) {
    return;  // typing: shown on Enter
  }
  var asked = this.asked();
  if (event.target === this.menu && this.data.sentences.indexOf(asked.sentence) >= 0) {
    this.chosen = asked.sentence;
    this.box.value = "";
  }
  if (event.target !== this.rowMenu) {
    asked.row = null;  // a new picture: its default word
  }
  var s = this.state;
  var same = ["option", "nHeads", "mask", "nPad", "sentence", "row", "layer"].every(function (k) {
    return asked[k] === s[k];
  });
  if (!same) {  // a control fires "input" and then "change": one picture
    this.show(asked);
  }
};

// Enter in the text box (or Show).
Explorer.prototype.typed = function () {
  var text = this.box.value.trim();
  if (!text) {
    if (this.data.sentences.indexOf(this.state.sentence) < 0) {
      this.show(Object.assign({}, this.state, {sentence: this.chosen, row: null}));
    }
    this.say(this.data.words.empty);
    return;
  }
  this.show(Object.assign({}, this.state, {sentence: text, row: null}));
};

// A tap on one of the model's words: added to the box, and shown.
Explorer.prototype.tapped = function (button) {
  var words = tokenize(this.box.value);
  if (button.hasAttribute("data-remove")) {
    words.pop();
  } else {
    words.push(button.textContent);
  }
  this.box.value = words.join(" ");
  if (words.length) {
    this.show(Object.assign({}, this.state, {sentence: this.box.value, row: null}));
  }
};

// Show setting `s`: compute, draw, and make the controls say it. A setting
// the model cannot show changes nothing but the message.
Explorer.prototype.show = function (s) {
  var result, now = this.state;
  var same = this.result && ["option", "nHeads", "mask", "nPad", "sentence"].every(function (k) {
    return s[k] === now[k];
  });
  try {
    // Another layer or word of the same setting: the same computation.
    result = same ? this.result : compute(this.data, s);
  } catch (error) {
    if (!(error instanceof Problem)) {
      throw error;
    }
    this.say(error.message);
    this.setForm();
    return false;
  }
  var listed = this.data.sentences.indexOf(s.sentence) >= 0;
  if (!listed && s.sentence !== this.typedSentence) {
    listSentences(this, s.sentence);
  } else if (listed && this.typedSentence !== null) {
    listSentences(this, null);
  }
  this.state = s;
  this.result = result;
  result.nPad = result.tokens.filter(function (t) { return t === this.data.pad; }, this).length;
  this.say("");
  this.setForm();
  this.drawn();
  if (this.host) {
    this.host.changed(s);
  }
  return true;
};

// A setting the host asks for (some of option, nHeads, mask, nPad, sentence,
// layer), shown as a reader's choice would be. A setting the model cannot
// show is refused as a reader's is, and the host told the state kept.
Explorer.prototype.set = function (asked) {
  var s = this.state;
  if (Object.keys(asked).every(function (k) { return asked[k] === s[k]; })) {
    return true;
  }
  if (asked.sentence !== undefined && this.data.sentences.indexOf(asked.sentence) >= 0) {
    this.chosen = asked.sentence;
    this.box.value = "";
  }
  var shown = this.show(Object.assign({}, s, asked, {row: null}));
  if (!shown && this.host) {
    this.host.changed(this.state);
  }
  return shown;
};

// The controls as the state says (after a refused change, too).
Explorer.prototype.setForm = function () {
  var form = this.form, s = this.state;
  form.querySelectorAll("input[type=radio]").forEach(function (radio) {
    radio.checked = radio.value === String(s[radio.name]);
  });
  form.querySelectorAll("input[type=range]").forEach(function (range) {
    var values = JSON.parse(range.getAttribute("data-values"));
    range.value = values.indexOf(s[range.name]);
    range.setAttribute("aria-valuetext", String(s[range.name]));
    setText(range.parentNode.querySelector("output"), String(s[range.name]));
  });
  if (this.result && this.padding && s.mask === "padding") {
    // the <pad> tokens shown (a sentence of one word has none)
    var pads = this.result.nPad;
    setText(this.padding.querySelector("output"), String(pads));
    this.padding.querySelector("input").setAttribute("aria-valuetext", String(pads));
  }
  this.menu.value = s.sentence;
  // A control that does not apply to the setting stays in its place, dimmed
  // and out of reach (the padding without the padding mask, the layer switch
  // of a one-layer model): the picture below never moves.
  if (this.padding) {
    var off = s.mask !== "padding";
    this.padding.querySelector("input").disabled = off;
    this.padding.classList.toggle("mha-off", off);
  }
  if (this.layerRow) {
    var one = !this.result || this.result.layers.length < 2;
    this.layerRow.disabled = one;
  }
  listWords(this);
};

// A message under the box; the word list stays as the reader left it, so the
// picture keeps its place on a phone.
Explorer.prototype.say = function (text) {
  setText(this.message, text);
};

// The picture of the state and what is said about it.
Explorer.prototype.drawn = function () {
  var result = this.result, s = this.state, tokens = result.tokens;
  var row = s.row !== null && s.row < tokens.length ? s.row : firstRow(result);
  this.row = row;
  this.repaint();
  var data = this.data;
  setText(this.caption, caption(data, s, result));
  var menu = this.rowMenu, listed = tokens.map(function (t, i) {
    return fill(data.words.rowOption, {row: i, token: t});
  });
  if (menu.getAttribute("data-tokens") !== listed.join("\n")) {  // new words only
    menu.setAttribute("data-tokens", listed.join("\n"));
    menu.textContent = "";
    listed.forEach(function (t, i) { html("option", {value: i}, menu, t); });
  }
  menu.value = String(row);
  setText(this.description, describe(data, result, row));
  var answers = this.answers, texts = answersText(data, result);
  var paragraphs = answers.querySelectorAll("p");
  if (paragraphs.length === texts.length) {  // the same readouts: their text only
    texts.forEach(function (text, i) { setText(paragraphs[i], text); });
  } else {
    answers.textContent = "";
    texts.forEach(function (text) { html("p", {}, answers, text); });
  }
};

// The maps of the state, at the width the page gives them: laid out, then
// painted. `picture` is what they show (layout's object).
Explorer.prototype.repaint = function () {
  if (!this.result) {
    return;
  }
  var g = this.canvas.getContext("2d"), family = this.family;
  if (!family) {
    family = this.family = getComputedStyle(this.root).fontFamily || "sans-serif";
  }
  var look = this.data.look;
  if (!this.ink) {
    // The page's colours (explorer.css: the theme's text and ground, and
    // whether the page is dark), the heads' and the blocked keys' the package's.
    var style = getComputedStyle(this.root);
    var read = function (name) { return style.getPropertyValue(name).trim(); };
    var blocked = look.blocked[read("--mha-scheme") === "dark" ? "dark" : "light"];
    this.ink = {text: read("--mha-text") || style.color, ground: read("--mha-ground"),
                heads: look.headColours, blocked: blocked.face, hatch: blocked.lines};
  }
  var measure = function (text, size, bold) { return textWidth(g, family, text, size, bold); };
  var stage = stageSize(this.width);
  this.picture = layout(this.data, this.result, stage.width, stage.height,
                        {title: title(this.data, this.state), row: this.row,
                         layers: this.shownLayers()}, measure);
  this.picture.ink = this.ink;
  paint(this.canvas, this.picture, this.ink, look, family, window.devicePixelRatio || 1);
};

// The layers drawn: all of a one-layer model, else the one switched to.
Explorer.prototype.shownLayers = function () {
  var n = this.result.layers.length;
  return n < 2 ? [0] : [Math.min(n, Number(this.state.layer)) - 1];
};

// In the browser's idle time after the first picture, one model at a time:
// each model's weights decoded and a setting of it computed and laid out
// once (not painted), so that the reader's first change of model waits for
// neither the decoding nor the first run of its code.
// (At least one model per call, more while the idle time lasts; where the
// browser has no idle callback, as Safari, one model per timer.)
Explorer.prototype.warm = function () {
  var self = this, s = this.state, todo = this.data.models.slice();
  var g = this.canvas.getContext("2d"), sentence = this.data.sentences[0];
  var measure = function (t, size, bold) { return textWidth(g, self.family, t, size, bold); };
  var later = window.requestIdleCallback || function (f) {
    return setTimeout(function () { f({timeRemaining: function () { return 0; }}); }, 50);
  };
  var next = function (deadline) {
    do {
      var m = todo.shift();
      try {
        var result = compute(self.data, {option: m.option, nHeads: m.heads[0],
                                         mask: s.mask, nPad: s.nPad, sentence: sentence});
        var stage = stageSize(self.width);
        layout(self.data, result, stage.width, stage.height,
               {title: "", row: null, layers: [0]}, measure);
      } catch (error) {
        if (!(error instanceof Problem)) {
          throw error;
        }
      }
    } while (todo.length && deadline.timeRemaining() > 4);
    if (todo.length) {
      later(next);
    }
  };
  if (todo.length) {
    later(next);
  }
};

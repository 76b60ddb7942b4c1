// The book's attention explorers on its web pages: plain HTML made by
// mha.explorer.static (a form of controls, a figure with the first frame and
// the list of every frame), switched here. Loaded deferred, on pages with an
// explorer only (_ext/book_explorers.py).
//
// - A change of any control shows its frame: at once if the frame's two
//   images (the layout's background and the maps) are in the browser already,
//   else as soon as they are.
// - The frames one change away from the one shown are fetched when the page
//   is idle, so that the reader's next change, the first included, finds them;
//   once the reader has changed something, the explorer's other frames follow
//   (the nearest first, a few at a time, so that a frame needed now never
//   waits behind them).
// - No change is lost: whatever the controls say when this script starts (a
//   reader who tapped before it arrived, a form the browser restored) is
//   what the figure shows.
// Images are loaded as images (no fetch()), so this works from file:// too.
(function () {
  "use strict";

  var later = function (job) {  // when the page is idle, or a tenth of a second at most
    return window.requestIdleCallback ? requestIdleCallback(job, {timeout: 100})
                                      : setTimeout(job, 50);
  };
  var images = {};  // URL: a promise that the image is decoded (shared by the page)
  var explorers = [];  // each with its queue: URLs to fetch in the background, most wanted first
  var fetching = 0;  // background fetches under way, for all explorers of the page
  var AT_ONCE = 2;  // at most, so that the browser keeps room for the frames needed next

  var decoded = {};  // URL: the image element that fetched and decoded it

  function load(url) {
    if (!images[url]) {
      var image = new Image();
      image.src = url;
      decoded[url] = image;
      images[url] = image.decode().catch(function () {});  // a failure shows as one
    }
    return images[url];
  }

  // Show ``url`` in place of the image element ``shown``: the element that
  // decoded it takes its place (it paints at once; a new ``src`` on the old
  // element may be decoded again first). Returns the element now shown.
  function put(shown, url) {
    var image = decoded[url];
    if (shown.getAttribute("src") === url) {
      return shown;
    }
    if (!image || image.isConnected) {
      shown.src = url;
      return shown;
    }
    image.className = shown.className;
    image.width = shown.width;
    image.height = shown.height;
    image.alt = shown.alt;
    shown.replaceWith(image);
    return image;
  }

  // Start background fetches, taking from each explorer's queue in turn.
  function pump() {
    var more = true;
    while (fetching < AT_ONCE && more) {
      more = false;
      explorers.forEach(function (explorer) {
        var queue = explorer.queue;
        while (queue.length && images[queue[0]]) {
          queue.shift();
        }
        if (fetching < AT_ONCE && queue.length) {
          fetching += 1;
          more = true;
          load(queue.shift()).then(function () { fetching -= 1; pump(); });
        }
      });
    }
  }

  function Explorer(root) {
    var data = JSON.parse(root.querySelector("script.mha-frames").textContent);
    this.root = root;
    this.frames = data.frames;
    this.images = data.images;
    this.controls = data.controls;
    this.form = root.querySelector("form");
    this.figure = root.querySelector("figure");
    this.layers = [root.querySelector(".mha-background"), root.querySelector(".mha-maps")];
    this.caption = root.querySelector("figcaption");
    this.alt = root.getAttribute("data-alt") || "";
    this.wanted = null;  // the key of the frame the controls ask for
    this.touched = false;  // whether the reader has changed a control yet
    this.queue = [];  // what to fetch in the background (see pump)
    explorers.push(this);
    // A control shown only while one radio button is chosen (the padding
    // slider, with the padding mask) does not count while it is hidden.
    this.shownBy = {};
    var self = this;
    this.form.querySelectorAll("[data-reveals]").forEach(function (input) {
      self.shownBy[input.getAttribute("data-reveals")] = [input.name, input.value];
    });
    var update = function () { self.show(); };
    var touch = function () { self.touched = true; self.show(); };
    this.form.addEventListener("input", touch);
    this.form.addEventListener("change", touch);
    this.form.addEventListener("submit", function (event) { event.preventDefault(); });
    window.addEventListener("pageshow", update);
    this.show();
  }

  // The controls' values, by name (positions among their options, as text).
  Explorer.prototype.state = function () {
    var form = this.form, state = {};
    this.controls.forEach(function (name) { state[name] = String(form.elements[name].value); });
    return state;
  };

  // The key of a state's frame (mha.explorer.choices.Choices.key).
  Explorer.prototype.key = function (state) {
    var shownBy = this.shownBy;
    return this.controls.map(function (name) {
      var by = shownBy[name];
      return by && state[by[0]] !== by[1] ? "-" : state[name];
    }).join(".");
  };

  Explorer.prototype.options = function (name) {
    var control = this.form.elements[name];
    if (control.type === "range") {
      var values = [];
      for (var i = Number(control.min); i <= Number(control.max); i += 1) {
        values.push(String(i));
      }
      return values;
    }
    return Array.prototype.map.call(control.options || control, function (option) {
      return option.value;
    });
  };

  Explorer.prototype.readouts = function () {
    this.form.querySelectorAll("input[type=range]").forEach(function (range) {
      var text = JSON.parse(range.getAttribute("data-labels"))[range.value];
      range.setAttribute("aria-valuetext", text);
      range.parentNode.querySelector("output").textContent = text;
    });
  };

  Explorer.prototype.show = function () {
    this.readouts();
    var state = this.state(), key = this.key(state), frame = this.frames[key];
    if (!frame || key === this.wanted) {
      return;
    }
    this.wanted = key;
    var self = this, urls = [this.images[frame[0]], this.images[frame[1]]];
    // A frame that takes longer than a tenth of a second says it is coming.
    clearTimeout(this.slow);
    this.slow = setTimeout(function () { self.figure.classList.add("mha-loading"); }, 100);
    Promise.all(urls.map(load)).then(function () {
      if (self.wanted !== key) {
        return;  // the reader has moved on
      }
      clearTimeout(self.slow);
      self.figure.classList.remove("mha-loading");
      self.layers = [put(self.layers[0], urls[0]), put(self.layers[1], urls[1])];
      self.layers[0].alt = self.alt + frame[2];
      self.caption.textContent = frame[2];
      later(function () { self.fetchAround(key); });
    });
  };

  // Fetch the frames one change away from the frame ``key`` and, once the
  // reader has changed a control, every other frame, the nearest first.
  Explorer.prototype.fetchAround = function (key) {
    if (this.wanted !== key) {
      return;  // the reader has moved on
    }
    var state = this.state(), here = key.split("."), self = this, next = {};
    this.controls.forEach(function (name) {
      self.options(name).forEach(function (option) {
        var changed = Object.assign({}, state);
        changed[name] = option;
        next[self.key(changed)] = true;
      });
    });
    var distance = function (other) {  // 0 for one change away, else the places that differ
      return next[other] ? 0 : other.split(".").filter(function (value, i) {
        return value !== here[i];
      }).length;
    };
    var keys = Object.keys(this.frames).filter(function (other) {
      return other !== key && (next[other] || self.touched);
    }).sort(function (a, b) { return distance(a) - distance(b); });
    this.queue = [];
    keys.forEach(function (other) {
      var frame = self.frames[other], urls = [self.images[frame[0]], self.images[frame[1]]];
      if (next[other]) {
        urls.forEach(load);  // the reader's next change: at once
      } else {
        self.queue.push(urls[0], urls[1]);  // the rest: a few at a time
      }
    });
    pump();
  };

  document.querySelectorAll(".mha-explorer").forEach(function (root) {
    new Explorer(root);
  });
})();

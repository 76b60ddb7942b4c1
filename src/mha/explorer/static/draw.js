// The picture of a setting, as the book draws attention
// (mha.plotting.core.display_attention), in the package's colours, ticks,
// words and grid (data.look, data.words): the colour map on its scale,
// numbers in the cells where they fit, token labels, head titles, a title,
// blocked keys grey and hatched.
//
// The picture is drawn in two steps: layout() says what it shows and where
// (a plain object, in CSS px: every map cell with its probability, colour
// and number, every text with its size), and paint() draws that into one
// canvas, sized by the device's pixel ratio so that it stays sharp. One
// element for the browser to lay out and paint, however many cells.

import {fill} from "./compute.js";
import {number} from "./words.js";

export var FONT = {title: 14, head: 12, label: 12, axis: 11, number: 10};  // CSS px

// Where probability p sits on the colour scale, 0 to 1 (a power of p,
// mha.plotting.palette.probability_scale).
function scaled(look, p) {
  return Math.pow(p, look.gamma);
}

// The colour of probability p: the colour map's at its place on the scale.
export function colour(look, p) {
  var i = Math.min(255, Math.floor(scaled(look, p) * 256)) * 6;
  return "#" + look.colours.slice(i, i + 6);
}

// The width of `text` in CSS px at font size `size` (a canvas measures it:
// no layout of the page).
var widths = new Map();
export function textWidth(g, family, text, size, bold) {
  var key = size + (bold ? "b " : " ") + text;
  if (!widths.has(key)) {
    g.font = font(size, family, bold);
    widths.set(key, g.measureText(text).width);
  }
  return widths.get(key);
}

function font(size, family, bold) {
  return (bold ? "bold " : "") + size + "px " + family;
}

// The grid of n heads in a stage of room × high CSS px: the columns whose
// cells come out largest (a row of maps costs its head titles and gaps too).
function grid(nHeads, length, room, high, gap, headTitle, rowGap) {
  var best = {cols: 1, rows: nHeads, map: 0};
  for (var cols = 1; cols <= nHeads; cols += 1) {
    var rows = Math.ceil(nHeads / cols);
    if (cols > 1 && Math.ceil(nHeads / (cols - 1)) === rows) {
      continue;  // as many rows with fewer columns: the same cells, narrower
    }
    var byWidth = (room - (cols - 1) * gap) / cols;
    var byHeight = (high - rows * headTitle - (rows - 1) * rowGap) / rows;
    var map = Math.min(byWidth, byHeight, length * 44);
    if (map > best.map + 0.5) {
      best = {cols: cols, rows: rows, map: map};
    }
  }
  return best;
}

// What the maps of `result` show on a stage of `width` × `height` CSS px (the
// same stage for every setting: the maps fit it), in `data`'s look and
// words. options: {title (not drawn: the caption says the setting), row
// (the query row outlined), layers (the layers drawn, by index)};
// measure(text, size, bold) gives a text's width.
// → {width, height, title, row, maps: [{layer, head, x, y, size, cell,
// cells: per row, per key {p (null where blocked), fill, number}}], texts:
// [{text, x, y, size, align, baseline, angle, bold}], bars: per layer {x, y,
// width, height}, blockedKey: {x, y, size} or null, numberSize}
export function layout(data, result, width, height, options, measure) {
  var look = data.look, words = data.words;
  var tokens = result.tokens, L = tokens.length;
  var shown = options.layers || result.layers.map(function (_, l) { return l; });
  var nLayers = shown.length, many = result.layers.length > 1;
  var nHeads = result.layers[0].probs.length;
  var labelW = Math.max.apply(null, tokens.map(function (t) {
    return measure(t, FONT.label);
  }));
  var barRoom = Math.max.apply(null, look.ticks.map(function (tick) {
    return measure(tick[1], FONT.axis);
  }));
  // (Maps on whole CSS px: each frame's 2 px line on whole device pixels.)
  var left = Math.ceil(FONT.axis + 8 + labelW + 6), gap = 12, headTitle = 18, rowGap = 8;
  var right = 12 + 10 + 6 + barRoom + 4 + FONT.axis + 2;
  var layerTitle = many ? FONT.head + 8 : 0;
  var top = 4, bottom = labelW + 10 + FONT.axis + 8;
  var room = width - left - right;
  var high = (height - top - bottom - (nLayers - 1) * 12) / nLayers - layerTitle;
  var g = grid(nHeads, L, room, high, gap, headTitle, rowGap);
  var cols = g.cols, rows = g.rows, mapW = Math.max(4, Math.floor(g.map));
  var cell = mapW / L;
  // Token labels as tall as a cell (9 to 12 px); where even 9 px is more than
  // a cell, every second (third, ...) token is labelled, so none run together,
  // the query row shown among them.
  var labelSize = Math.max(9, Math.min(FONT.label, Math.floor(cell)));
  var every = Math.ceil(labelSize / cell);
  var start = typeof options.row === "number" ? options.row % every : 0;
  var blockH = layerTitle + rows * (headTitle + mapW) + (rows - 1) * rowGap;
  var gridW = cols * mapW + (cols - 1) * gap;
  var picture = {width: width, height: height, title: options.title,
                 row: options.row, maps: [], texts: [], bars: [], blockedKey: null,
                 numberSize: FONT.number};
  var text = function (t, x, y, size, more) {
    picture.texts.push(Object.assign({text: t, x: x, y: y, size: size, align: "left",
                                      baseline: "alphabetic", angle: 0, bold: false},
                                     more));
  };
  var anyBlocked = result.blocked.some(function (r) { return r.some(Boolean); });
  var y1 = top;
  shown.forEach(function (l, k) {
    var layer = result.layers[l];
    var y0 = top + k * (blockH + 12);
    if (many) {
      text(fill(words.layer, {layer: l + 1}), left, y0 + FONT.head + 2, FONT.head,
           {bold: true});
    }
    layer.probs.forEach(function (probs, h) {
      var r = Math.floor(h / cols), c = h % cols;
      var x = left + c * (mapW + gap);
      var y = y0 + layerTitle + r * (headTitle + mapW + rowGap) + headTitle;
      text(fill(words.head, {head: h}), x + mapW / 2, y - 5, FONT.head,
           {align: "center", bold: true});
      picture.maps.push({layer: l, head: h, x: x, y: y, size: mapW, cell: cell,
                         cells: probs.map(function (row, i) {
                           return row.map(function (p, j) {
                             var blocked = result.blocked[i][j];
                             return {p: blocked ? null : p,
                                     fill: blocked ? null : colour(look, p),
                                     light: !blocked && scaled(look, p) > look.numbers.at,
                                     number: !blocked && cell >= 26 ? number(look, p) : null};
                           });
                         })});
      if (c === 0) {
        tokens.forEach(function (t, i) {
          if (i % every === start) {
            text(t, x - 6, y + (i + 0.5) * cell, labelSize, {align: "right",
                                                            baseline: "middle"});
          }
        });
      }
      if (k === nLayers - 1 && (r === rows - 1 || h + cols >= nHeads)) {
        tokens.forEach(function (t, j) {
          if (j % every === start) {
            text(t, x + (j + 0.5) * cell, y + mapW + 6, labelSize,
                 {align: "right", baseline: "middle", angle: -90});
          }
        });
        y1 = Math.max(y1, y + mapW + 6 + labelW);
      }
    });
    var gy = y0 + layerTitle + headTitle, gh = rows * (headTitle + mapW + rowGap) - rowGap - headTitle;
    text(look.query, FONT.axis, gy + gh / 2, FONT.axis,
         {align: "center", baseline: "middle", angle: -90});
    // The colour bar (the book's scale and ticks) and, where keys are
    // blocked, the grey that marks them.
    var bx = left + gridW + 12;
    picture.bars.push({x: bx, y: gy, width: 10, height: gh});
    look.ticks.forEach(function (tick) {
      text(tick[1], bx + 16, gy + gh * (1 - scaled(look, tick[0])), FONT.axis,
           {baseline: "middle"});
    });
    text(look.bar, bx + 16 + barRoom + 4 + FONT.axis / 2, gy + gh / 2, FONT.axis,
         {align: "center", baseline: "middle", angle: -90});
    if (anyBlocked && k === nLayers - 1) {
      // Below the bar, and below its label where that runs longer than the bar.
      var keyY = Math.max(gy + gh, gy + gh / 2 + measure(look.bar, FONT.axis) / 2) + 8;
      picture.blockedKey = {x: bx, y: keyY, size: 10};
      text(look.blockedKey, bx + 14, keyY + 5, FONT.axis, {baseline: "middle"});
    }
  });
  text(look.key, left + gridW / 2, Math.min(height - 6, y1 + FONT.axis + 4),
       FONT.axis, {align: "center"});
  return picture;
}

// Paint `picture` into `canvas` at `ratio` device pixels per CSS px, in the
// page's colours `ink` ({text, ground, heads, blocked, hatch}), the colour
// map `look.colours` and `family`.
export function paint(canvas, picture, ink, look, family, ratio) {
  var w = Math.round(picture.width * ratio), h = Math.round(picture.height * ratio);
  if (canvas.width !== w || canvas.height !== h) {
    canvas.width = w;  // clears the canvas too
    canvas.height = h;
  }
  canvas.style.width = picture.width + "px";
  canvas.style.height = picture.height + "px";
  var g = canvas.getContext("2d");
  g.setTransform(1, 0, 0, 1, 0, 0);
  g.clearRect(0, 0, w, h);
  g.setTransform(ratio, 0, 0, ratio, 0, 0);
  // A cell's edges on whole device pixels: no seam and no blur between cells.
  var snap = function (v) { return Math.round(v * ratio) / ratio; };
  picture.maps.forEach(function (map) {
    var edge = function (k) { return snap(map.x + k * map.cell); };
    var rowEdge = function (k) { return snap(map.y + k * map.cell); };
    var blocked = [];
    map.cells.forEach(function (row, i) {
      row.forEach(function (c, j) {
        if (c.p === null) {
          blocked.push([i, j]);
          return;
        }
        g.fillStyle = c.fill;
        g.fillRect(edge(j), rowEdge(i), edge(j + 1) - edge(j), rowEdge(i + 1) - rowEdge(i));
      });
    });
    if (blocked.length) {
      g.save();
      g.beginPath();
      blocked.forEach(function (ij) {
        var i = ij[0], j = ij[1];
        g.rect(edge(j), rowEdge(i), edge(j + 1) - edge(j), rowEdge(i + 1) - rowEdge(i));
      });
      g.fillStyle = ink.blocked;
      g.fill();
      g.clip();
      hatch(g, map.x, map.y, map.size, map.size, ink.hatch);
      g.restore();
    }
    g.font = font(picture.numberSize, family);
    g.textAlign = "center";
    g.textBaseline = "middle";
    map.cells.forEach(function (row, i) {
      row.forEach(function (c, j) {
        if (c.number !== null) {
          g.fillStyle = c.light ? look.numbers.light : look.numbers.dark;
          g.fillText(c.number, map.x + (j + 0.5) * map.cell, map.y + (i + 0.5) * map.cell);
        }
      });
    });
    g.strokeStyle = headColour(ink, map.head);
    g.lineWidth = 2;
    g.strokeRect(map.x, map.y, map.size, map.size);
    if (picture.row !== null && picture.row < map.cells.length) {
      // In the page's text colour around its ground colour: seen on any
      // cell, and in no head's colour (2 px, inside the row's cells).
      var rx = map.x + 1, ry = map.y + picture.row * map.cell + 1;
      g.strokeStyle = ink.text;
      g.lineWidth = 2;
      g.strokeRect(rx, ry, map.size - 2, map.cell - 2);
      g.strokeStyle = ink.ground;
      g.lineWidth = 0.75;
      g.strokeRect(rx, ry, map.size - 2, map.cell - 2);
    }
  });
  g.imageSmoothingEnabled = false;
  g.strokeStyle = ink.text;
  g.lineWidth = 0.75;
  picture.bars.forEach(function (bar) {
    g.drawImage(colourBarImage(look), bar.x, bar.y, bar.width, bar.height);
    g.strokeRect(bar.x, bar.y, bar.width, bar.height);
    g.beginPath();
    look.ticks.forEach(function (tick) {
      var ty = bar.y + bar.height * (1 - scaled(look, tick[0]));
      g.moveTo(bar.x + bar.width, ty);
      g.lineTo(bar.x + bar.width + 3, ty);
    });
    g.stroke();
  });
  var key = picture.blockedKey;
  if (key) {
    g.fillStyle = ink.blocked;
    g.fillRect(key.x, key.y, key.size, key.size);
    g.save();
    g.beginPath();
    g.rect(key.x, key.y, key.size, key.size);
    g.clip();
    hatch(g, key.x, key.y, key.size, key.size, ink.hatch);
    g.restore();
    g.strokeRect(key.x, key.y, key.size, key.size);
  }
  g.fillStyle = ink.text;
  var current = null;
  picture.texts.forEach(function (t) {
    var f = font(t.size, family, t.bold);
    if (f !== current) {  // a font is parsed each time it is set
      g.font = current = f;
    }
    g.textAlign = t.align;
    g.textBaseline = t.baseline;
    if (t.angle) {
      g.save();
      g.translate(t.x, t.y);
      g.rotate(t.angle * Math.PI / 180);
      g.fillText(t.text, 0, 0);
      g.restore();
    } else {
      g.fillText(t.text, t.x, t.y);
    }
  });
}

// Head h's colour (mha.plotting.palette.head_colour): its map's frame. Its
// title is in the page's text colour, readable on any page.
export function headColour(ink, h) {
  return ink.heads.length ? ink.heads[h % ink.heads.length] : ink.text;
}

// Thin diagonal lines 5 CSS px apart over a box (clipped by the caller):
// blocked keys, in a neutral grey outside the colour map.
function hatch(g, x, y, w, h, colour) {
  g.strokeStyle = colour;
  g.lineWidth = 1;
  g.beginPath();
  for (var d = -h; d < w; d += 5 * Math.SQRT2) {
    g.moveTo(x + d, y + h);
    g.lineTo(x + d + h, y);
  }
  g.stroke();
}

// The colour bar's picture: the colour map from 0 (bottom) to 1 (top), 256
// rows, made once for each colour map.
var barImages = new Map();
function colourBarImage(look) {
  if (!barImages.has(look.colours)) {
    var image = document.createElement("canvas");
    var g = image.getContext("2d");
    image.width = 1;
    image.height = 256;
    for (var i = 0; i < 256; i += 1) {
      g.fillStyle = "#" + look.colours.slice(i * 6, i * 6 + 6);
      g.fillRect(0, 255 - i, 1, 1);
    }
    barImages.set(look.colours, image);
  }
  return barImages.get(look.colours);
}

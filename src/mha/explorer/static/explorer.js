// The book's attention explorer: a model's attention maps for any sentence it
// can read, computed here from the model's weights, on the book's site and in
// a notebook alike (mha.explorer hands it the weights; mha.explorer.site and a
// notebook's HTML output load it). No network, no framework.
//
// Part 1 is the model's forward pass, one short function per step, named like
// mha's (text.tokenize, embedding, attention.split_heads ...); a browser test
// holds its numbers equal to the package's. Part 2 draws the maps as the book
// does (mha.plotting.core.display_attention): cividis on a square-root scale,
// numbers in the cells where they fit, token labels, head titles, a title,
// blocked keys grey and hatched. Part 3 is the explorer: its controls, whose
// state lives here alone, and what it says about the picture.
(function () {
  "use strict";

  // ---- 1. The forward pass (mha.text, mha.embedding, mha.attention) --------

  var PAD = "<pad>";
  var PUNCTUATION = /[\p{P}\p{S}]/u;  // Unicode punctuation and symbols
  // Python's str.isspace(): what mha.text.tokenize splits on.
  var SPACE = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

  // mha.text.tokenize: lowercase, punctuation deleted, split on whitespace.
  function tokenize(text) {
    var kept = "";
    for (var ch of String(text).toLowerCase()) {
      if (!PUNCTUATION.test(ch)) {
        kept += SPACE.test(ch) ? " " : ch;
      }
    }
    return kept.split(" ").filter(Boolean);
  }

  // A tensor sent by mha.explorer.models._tensor ({shape, dtype, data}) as
  // nested arrays of numbers: a vector, or one array per row.
  function tensor(t) {
    var bytes = Uint8Array.from(atob(t.data), function (c) { return c.charCodeAt(0); });
    var view = new DataView(bytes.buffer), size = t.dtype === "float32" ? 4 : 8;
    var flat = [];
    for (var i = 0; i < bytes.length; i += size) {
      flat.push(size === 4 ? view.getFloat32(i, true) : view.getFloat64(i, true));
    }
    if (t.shape.length === 1) {
      return flat;
    }
    var cols = t.shape[1], rows = [];
    for (var r = 0; r < t.shape[0]; r += 1) {
      rows.push(flat.slice(r * cols, (r + 1) * cols));
    }
    return rows;
  }

  function dot(a, b) {
    var sum = 0;
    for (var i = 0; i < a.length; i += 1) {
      sum += a[i] * b[i];
    }
    return sum;
  }

  // nn.Linear: x Wᵀ + b. x (L, d_in), W (d_out, d_in), b (d_out) → (L, d_out).
  function linear(x, W, b) {
    return x.map(function (row) {
      return W.map(function (w, j) { return dot(row, w) + b[j]; });
    });
  }

  // mha.embedding.Embeddings: each id's row of the table, × √d_model. → (L, d_model)
  function embed(model, ids) {
    var scale = Math.sqrt(model.dModel);
    return ids.map(function (id) {
      return model.embed[id].map(function (v) { return v * scale; });
    });
  }

  // mha.embedding.PositionalEncoding: each position's code added. → (L, d_model)
  function position(model, x) {
    return x.map(function (row, p) {
      return row.map(function (v, i) { return v + model.pe[p][i]; });
    });
  }

  // mha.attention.split_heads: (L, d_model) → (n_heads, L, d_key)
  function splitHeads(x, nHeads) {
    var dKey = x[0].length / nHeads, heads = [];
    for (var h = 0; h < nHeads; h += 1) {
      heads.push(x.map(function (row) { return row.slice(h * dKey, (h + 1) * dKey); }));
    }
    return heads;
  }

  // mha.attention.scaled_dot_product: Q Kᵀ / √d_key. → (n_heads, q_len, k_len)
  function scaledDotProduct(Q, K) {
    return Q.map(function (q, h) {
      var scale = Math.sqrt(q[0].length);
      return q.map(function (qi) {
        return K[h].map(function (kj) { return dot(qi, kj) / scale; });
      });
    });
  }

  // mha.attention.attention_probs: softmax over the keys the mask allows
  // (allowed[i][j]: query i may attend to key j); a blocked key gets 0, a
  // query with no key allowed a row of zeros. → (n_heads, q_len, k_len)
  function attentionProbs(scores, allowed) {
    return scores.map(function (rows) {
      return rows.map(function (row, i) {
        var kept = row.filter(function (_, j) { return allowed[i][j]; });
        if (!kept.length) {
          return row.map(function () { return 0; });
        }
        var top = Math.max.apply(null, kept), sum = 0;
        var e = row.map(function (s, j) {
          var v = allowed[i][j] ? Math.exp(s - top) : 0;
          sum += v;
          return v;
        });
        return e.map(function (v) { return v / sum; });
      });
    });
  }

  // The weighted values of each head: probs V. → (n_heads, L, d_key)
  function weighValues(probs, V) {
    return probs.map(function (P, h) {
      return P.map(function (row) {
        return V[h][0].map(function (_, k) {
          return dot(row, V[h].map(function (v) { return v[k]; }));
        });
      });
    });
  }

  // mha.attention.merge_heads: (n_heads, L, d_key) → (L, d_model)
  function mergeHeads(A) {
    return A[0].map(function (_, i) {
      return [].concat.apply([], A.map(function (head) { return head[i]; }));
    });
  }

  // mha.attention.MultiHeadAttention.forward, self-attention: x (L, d_model) →
  // {output (L, d_model), probs (n_heads, L, L)}.
  function multiHeadAttention(layer, nHeads, x, allowed) {
    var Q = splitHeads(linear(x, layer.Wq, layer.bq), nHeads);  // (n_heads, L, d_key)
    var K = splitHeads(linear(x, layer.Wk, layer.bk), nHeads);  // (n_heads, L, d_key)
    var V = splitHeads(linear(x, layer.Wv, layer.bv), nHeads);  // (n_heads, L, d_key)
    var probs = attentionProbs(scaledDotProduct(Q, K), allowed);  // (n_heads, L, L)
    var A = weighValues(probs, V);  // (n_heads, L, d_key)
    return {output: linear(mergeHeads(A), layer.Wo, layer.bo), probs: probs};
  }

  // mha.masks: which keys each query may attend to. → (L, L) of true/false
  function causalMask(length) {
    return range(length).map(function (i) {
      return range(length).map(function (j) { return j <= i; });
    });
  }

  function paddingMask(ids, padId) {
    return ids.map(function () {
      return ids.map(function (id) { return id !== padId; });
    });
  }

  // The model: embeddings and position code, then each layer on the last
  // one's output or, on a residual stream (mha.training.TwoLayerModel),
  // x1 = x0 + attn1(x0), x2 = x1 + attn2(x1); then the readouts, on the last.
  // → {layers: [{output, probs}], logits: per readout (L, vocab)}
  function forward(model, nHeads, ids, allowed) {
    var x = position(model, embed(model, ids));  // (L, d_model)
    var layers = model.layers.map(function (layer) {
      var out = multiHeadAttention(layer, nHeads, x, allowed);
      x = model.residual ? x.map(function (row, i) {
        return row.map(function (v, k) { return v + out.output[i][k]; });
      }) : out.output;  // (L, d_model)
      return out;
    });
    var logits = model.readouts.map(function (r) { return linear(x, r.W, r.b); });
    return {layers: layers, logits: logits};
  }

  function range(n) {
    return Array.from({length: n}, function (_, i) { return i; });
  }

  // A model's weights as arrays, made once (mha.explorer.models.weights_data).
  function unpack(weights) {
    if (!weights.unpacked) {
      var layer = function (l) {
        var out = {};
        Object.keys(l).forEach(function (name) { out[name] = tensor(l[name]); });
        return out;
      };
      weights.unpacked = {
        vocab: weights.vocab,
        stoi: new Map(weights.vocab.map(function (w, i) { return [w, i]; })),
        dModel: weights.dModel,
        maxLength: weights.maxLength,
        residual: weights.residual,
        causal: weights.causal === true,
        embed: tensor(weights.embed),
        pe: tensor(weights.pe),
        layers: weights.layers.map(layer),
        readouts: weights.readouts.map(function (r) {
          return {name: r.name, at: r.at, W: tensor(r.W), b: tensor(r.b)};
        }),
      };
    }
    return weights.unpacked;
  }

  // A reader's mistake, said to them (never a traceback).
  function Problem(message, words) {
    this.message = message;
    this.words = words;  // whether the model's words should be shown
  }

  function quoted(text) {
    text = String(text);
    return "“" + (text.length > 40 ? text.slice(0, 39) + "…" : text) + "”";
  }

  // The tokens of a sentence a model can read, or a Problem that says why not.
  function sentenceTokens(model, sentence) {
    var tokens = tokenize(sentence);
    if (!tokens.length) {
      throw new Problem(quoted(sentence.trim() || " ") + " has no word (letters or " +
                        "digits): type a sentence of the model's words", true);
    }
    var unknown = tokens.filter(function (t, i) {
      return !model.stoi.has(t) && tokens.indexOf(t) === i;
    });
    if (unknown.length) {
      var named = unknown.slice(0, 5).map(quoted).join(", ");
      var more = unknown.length > 5 ? " and " + (unknown.length - 5) + " more" : "";
      throw new Problem("not a word this model knows: " + named + more +
                        " (its " + (model.vocab.length - 2) + " words are below)", true);
    }
    if (tokens.length > model.maxLength) {
      throw new Problem("the sentence has " + tokens.length + " words; this model reads " +
                        "at most " + model.maxLength + " (the length of its position table)");
    }
    return tokens;
  }

  // The weights of the model option chosen, with the head count.
  function modelOf(data, option, nHeads) {
    var entry = data.models.filter(function (m) {
      return m.option === option && m.heads.indexOf(nHeads) >= 0;
    })[0];
    if (!entry) {
      throw new Problem("no " + option + " model with " + nHeads + " heads");
    }
    return unpack(data.weights[entry.weights]);
  }

  // Everything one setting shows: {tokens, blocked (L, L), layers: [{output,
  // probs}], logits, answers: per readout, the word it gives at each position}.
  function compute(data, setting) {
    var model = modelOf(data, setting.option, setting.nHeads);
    var tokens = sentenceTokens(model, setting.sentence);
    var nPad = setting.mask === "padding" ? Math.min(setting.nPad, tokens.length - 1) : 0;
    tokens = tokens.slice(0, tokens.length - nPad).concat(range(nPad).map(function () {
      return PAD;
    }));
    var ids = tokens.map(function (t) { return model.stoi.get(t); });
    var allowed = setting.mask === "causal" ? causalMask(ids.length)
      : setting.mask === "padding" ? paddingMask(ids, model.stoi.get(PAD))
        : causalMask(ids.length).map(function (row) { return row.map(function () { return true; }); });
    if (model.causal) {  // a model causal in every layer (mha.training.TwoLayerModel)
      var causal = causalMask(ids.length);
      allowed = allowed.map(function (row, i) {
        return row.map(function (a, j) { return a && causal[i][j]; });
      });
    }
    var result = forward(model, setting.nHeads, ids, allowed);
    result.tokens = tokens;
    result.blocked = allowed.map(function (row) { return row.map(function (a) { return !a; }); });
    result.model = model;
    result.answers = result.logits.map(function (scores) {
      return scores.map(function (row) {
        var best = 0;
        row.forEach(function (v, k) { if (v > row[best]) { best = k; } });
        var top = row[best], sum = 0;
        row.forEach(function (v) { sum += Math.exp(v - top); });
        return {word: model.vocab[best], p: 1 / sum};
      });
    });
    return result;
  }

  // ---- 2. The picture (mha.plotting.core.display_attention) ----------------

  // matplotlib's cividis, its 256 colours as matplotlib turns them into bytes.
  var CIVIDIS =
    "00224d00234f00235000245200255400265500265700275900285b00285c00295e002a60002a62002b64002c66002c67" +
    "002d69002e6b002f6d002f6f0030700030700031700031700432700833700b33700e347011356f14366f16366f18376f" +
    "1a386f1c386e1d396e1f3a6e213b6e223b6e243c6e253d6d273d6d283e6d2a3f6d2b3f6d2c406d2e416c2f426c30426c" +
    "31436c32446c34446c35456c36466c37466c38476c39486c3a486b3b496b3d4a6b3e4b6b3f4b6b404c6b414d6b424d6b" +
    "434e6b444f6b454f6b46506b47516b48516b49526b4a536b4b546c4c546c4d556c4e566c4e566c4f576c50586c51586c" +
    "52596c535a6c545a6c555b6d565c6d575d6d585d6d595e6d595f6d5a5f6d5b606e5c616e5d616e5e626e5f636e60646e" +
    "61646f61656f62666f63666f64676f656870666970676970686a70686b71696b716a6c716b6d716c6d726d6e726e6f72" +
    "6e70736f70737071737172737273747373747474757475757575757676767777767878767978777979777a7a777b7b77" +
    "7c7b787d7c787e7d787f7d78807e78817f788280788380788481788582788583788683788784788885788986788a8678" +
    "8b87788c88788d89788e89788f8a77908b77918c77928c77938d77948e77958f77968f779790769891769992769a9376" +
    "9b93769c94769d95759e96759f9675a09775a19874a29974a39a74a49a74a59b73a69c73a79d73a89e73a99e72aa9f72" +
    "aba072aca171ada271aea271afa370b0a470b1a570b2a66fb3a66fb4a76fb5a86eb6a96eb7aa6db8ab6db9ab6dbaac6c" +
    "bbad6cbcae6bbdaf6bbeb06abfb06ac1b169c2b269c3b368c4b468c5b567c6b567c7b666c8b765c9b865cab964cbba64" +
    "ccbb63cdbc62cebc62cfbd61d0be60d2bf60d3c05fd4c15ed5c25ed6c35dd7c35cd8c45bd9c55adac65adbc759dcc858" +
    "dec957dfca56e0cb55e1cc54e2cc53e3cd52e4ce51e5cf50e6d04fe8d14ee9d24dead34cebd44becd54aedd648eed747" +
    "efd846f1d944f2da43f3da42f4db40f5dc3ff6dd3df8de3bf9df3afae038fbe136fde234fde333fde534fde636fde737";
  var TICKS = [0, 0.05, 0.2, 0.4, 0.6, 0.8, 1];
  var FONT = {title: 14, head: 12, label: 12, axis: 11, number: 10};  // CSS px

  // The colour of probability p: cividis at √p (mha.plotting.core.probability_scale).
  function colour(p) {
    var i = Math.min(255, Math.floor(Math.sqrt(p) * 256)) * 6;
    return "#" + CIVIDIS.slice(i, i + 6);
  }

  function number(p) {
    return p.toFixed(2);
  }

  // The picture is drawn in two steps: layout() says what it shows and where
  // (a plain object, in CSS px: every map cell with its probability, colour
  // and number, every text with its size), and paint() draws that into one
  // canvas, sized by the device's pixel ratio so that it stays sharp. One
  // element for the browser to lay out and paint, however many cells.

  // The width of `text` in CSS px at font size `size` (a canvas measures it:
  // no layout of the page).
  var widths = new Map();
  function textWidth(g, family, text, size, bold) {
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

  // The panels of n heads: the book's grid (1, 1×2, 2×2, 2×4), fewer columns
  // where the cells would be smaller than a finger can tell apart.
  function columns(nHeads, room, length, gap) {
    var cols = {1: 1, 2: 2, 4: 2, 8: 4}[nHeads] || 1;
    while (cols > 1 && (room - (cols - 1) * gap) / cols / length < 14) {
      cols /= 2;
    }
    return cols;
  }

  // What the maps of `result` show, `width` CSS px wide. options: {title, row
  // (the query row outlined)}; measure(text, size, bold) gives a text's width.
  // → {width, height, title, row, maps: [{layer, head, x, y, size, cell,
  // cells: per row, per key {p (null where blocked), fill, number}}], texts:
  // [{text, x, y, size, align, baseline, angle, bold}], bars: per layer {x, y,
  // width, height}, blockedKey: {x, y, size} or null, numberSize}
  function layout(result, width, options, measure) {
    var tokens = result.tokens, L = tokens.length, nLayers = result.layers.length;
    var nHeads = result.layers[0].probs.length;
    var labelW = Math.max.apply(null, tokens.map(function (t) {
      return measure(t, FONT.label);
    }));
    var left = FONT.axis + 8 + labelW + 6, right = 78, gap = 14, headTitle = 18;
    var room = width - left - right;
    var cols = columns(nHeads, room, L, gap), rows = nHeads / cols;
    var mapW = Math.min((room - (cols - 1) * gap) / cols, L * 44);
    var cell = mapW / L;
    var titleLines = splitTitle(options.title, width, measure);
    var top = 6 + titleLines.length * (FONT.title + 4);
    var layerTitle = nLayers > 1 ? FONT.head + 8 : 0;
    var blockH = layerTitle + rows * (headTitle + mapW) + (rows - 1) * 10 + labelW + 10;
    var height = top + nLayers * blockH + (nLayers - 1) * 12 + FONT.axis + 10;
    var gridW = cols * mapW + (cols - 1) * gap;
    var picture = {width: width, height: Math.ceil(height), title: options.title,
                   row: options.row, maps: [], texts: [], bars: [], blockedKey: null,
                   numberSize: FONT.number};
    var text = function (t, x, y, size, more) {
      picture.texts.push(Object.assign({text: t, x: x, y: y, size: size, align: "left",
                                        baseline: "alphabetic", angle: 0, bold: false},
                                       more));
    };
    titleLines.forEach(function (line, i) {
      text(line, left + gridW / 2, 4 + (i + 1) * (FONT.title + 2), FONT.title,
           {align: "center"});
    });
    var anyBlocked = result.blocked.some(function (r) { return r.some(Boolean); });
    result.layers.forEach(function (layer, l) {
      var y0 = top + l * (blockH + 12);
      if (nLayers > 1) {
        text("layer " + (l + 1), left, y0 + FONT.head + 2, FONT.head, {bold: true});
      }
      layer.probs.forEach(function (probs, h) {
        var r = Math.floor(h / cols), c = h % cols;
        var x = left + c * (mapW + gap);
        var y = y0 + layerTitle + r * (headTitle + mapW + 10) + headTitle;
        text("head " + h, x + mapW / 2, y - 5, FONT.head, {align: "center", bold: true,
                                                          head: h});
        picture.maps.push({layer: l, head: h, x: x, y: y, size: mapW, cell: cell,
                           cells: probs.map(function (row, i) {
                             return row.map(function (p, j) {
                               var blocked = result.blocked[i][j];
                               return {p: blocked ? null : p, fill: blocked ? null : colour(p),
                                       number: !blocked && cell >= 26 ? number(p) : null};
                             });
                           })});
        if (c === 0) {
          tokens.forEach(function (t, i) {
            text(t, x - 6, y + (i + 0.5) * cell, FONT.label, {align: "right",
                                                               baseline: "middle"});
          });
        }
        if (r === rows - 1) {
          tokens.forEach(function (t, j) {
            text(t, x + (j + 0.5) * cell, y + mapW + 6, FONT.label,
                 {align: "right", baseline: "middle", angle: -90});
          });
        }
      });
      var gy = y0 + layerTitle + headTitle, gh = rows * (headTitle + mapW + 10) - 10 - headTitle;
      text("query (attending)", FONT.axis, gy + gh / 2, FONT.axis,
           {align: "center", baseline: "middle", angle: -90});
      // The colour bar (√ scale, the book's ticks) and, where keys are
      // blocked, the grey that marks them.
      var bx = left + gridW + 16;
      picture.bars.push({x: bx, y: gy, width: 10, height: gh});
      TICKS.forEach(function (p) {
        text(p.toFixed(2), bx + 15, gy + gh * (1 - Math.sqrt(p)), FONT.axis,
             {baseline: "middle"});
      });
      text("attention probability (√ scale)", bx + 52, gy + gh / 2, FONT.axis,
           {align: "center", baseline: "middle", angle: -90});
      if (anyBlocked && l === nLayers - 1) {
        picture.blockedKey = {x: bx, y: gy + gh + 8, size: 10};
        text("blocked", bx + 14, gy + gh + 13, FONT.axis, {baseline: "middle"});
      }
    });
    text("key (attended to)", left + gridW / 2, height - 6, FONT.axis, {align: "center"});
    return picture;
  }

  // The title in one line, or two where one does not fit.
  function splitTitle(title, width, measure) {
    if (measure(title, FONT.title) <= width - 8) {
      return [title];
    }
    var parts = title.split(", "), half = Math.ceil(parts.length / 2);
    return [parts.slice(0, half).join(", ") + ",", parts.slice(half).join(", ")];
  }

  // Paint `picture` into `canvas` at `ratio` device pixels per CSS px, in the
  // page's colours `ink` ({text, ground, heads, blocked, hatch}) and `family`.
  function paint(canvas, picture, ink, family, ratio) {
    var w = Math.round(picture.width * ratio), h = Math.round(picture.height * ratio);
    if (canvas.width !== w || canvas.height !== h) {
      canvas.width = w;  // clears the canvas too
      canvas.height = h;
    }
    canvas.style.width = picture.width + "px";
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
            g.fillStyle = Math.sqrt(c.p) > 0.5 ? "#000" : "#fff";
            g.fillText(c.number, map.x + (j + 0.5) * map.cell, map.y + (i + 0.5) * map.cell);
          }
        });
      });
      g.strokeStyle = headColour(ink, map.head).frame;
      g.lineWidth = 2;
      g.strokeRect(map.x, map.y, map.size, map.size);
      if (picture.row !== null && picture.row < map.cells.length) {
        // In the page's text colour around its ground colour: seen on any
        // cell, and in no head's colour.
        // (2 px, inside the row's cells, as the outline always was.)
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
      g.drawImage(colourBarImage(), bar.x, bar.y, bar.width, bar.height);
      g.strokeRect(bar.x, bar.y, bar.width, bar.height);
      g.beginPath();
      TICKS.forEach(function (p) {
        var ty = bar.y + bar.height * (1 - Math.sqrt(p));
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
      g.fillStyle = t.head === undefined ? ink.text : headColour(ink, t.head).text;
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

  // Head h's colours on the page (mha.plotting.core.head_colour): its frame in
  // the head's own colour, its title in the nearest shade of it, towards the
  // page's text colour, that reads at 4.5:1 on the page's ground (the book's
  // figures sit on white; the explorer on the page, light or dark).
  function headColour(ink, h) {
    var own = ink.heads.length ? ink.heads[h % ink.heads.length] : ink.text;
    var key = own + " " + ink.ground;
    if (!shades.has(key)) {
      var c = rgbOf(own), ground = rgbOf(ink.ground), towards = rgbOf(ink.text);
      var text = c;
      for (var t = 0.05; contrast(text, ground) < 4.5 && t <= 1; t += 0.05) {
        text = c.map(function (v, i) { return Math.round(v + (towards[i] - v) * t); });
      }
      shades.set(key, {frame: own, text: "rgb(" + text.join(",") + ")"});
    }
    return shades.get(key);
  }
  var shades = new Map();

  // A CSS colour as [r, g, b] (the canvas spells any colour as #rrggbb).
  var parser = null;
  function rgbOf(colour) {
    parser = parser || document.createElement("canvas").getContext("2d");
    parser.fillStyle = "#000";
    parser.fillStyle = colour;
    var hex = parser.fillStyle;
    if (hex.charAt(0) !== "#") {  // rgba(...) with transparency: its channels
      return (hex.match(/[\d.]+/g) || [0, 0, 0]).slice(0, 3).map(Number);
    }
    return [1, 3, 5].map(function (i) { return parseInt(hex.slice(i, i + 2), 16); });
  }

  // WCAG's contrast of two colours [r, g, b].
  function contrast(a, b) {
    var lum = function (c) {
      var f = c.map(function (v) {
        v /= 255;
        return v <= 0.03928 ? v / 12.92 : Math.pow((v + 0.055) / 1.055, 2.4);
      });
      return 0.2126 * f[0] + 0.7152 * f[1] + 0.0722 * f[2];
    };
    var x = lum(a), y = lum(b);
    return (Math.max(x, y) + 0.05) / (Math.min(x, y) + 0.05);
  }

  // Thin diagonal lines 5 CSS px apart over a box (clipped by the caller):
  // blocked keys, in a neutral grey outside cividis.
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

  // The colour bar's picture: cividis from 0 (bottom) to 1 (top), 256 rows,
  // made once.
  var barImage = null;
  function colourBarImage() {
    if (!barImage) {
      barImage = document.createElement("canvas");
      var g = barImage.getContext("2d");
      barImage.width = 1;
      barImage.height = 256;
      for (var i = 0; i < 256; i += 1) {
        g.fillStyle = "#" + CIVIDIS.slice(i * 6, i * 6 + 6);
        g.fillRect(0, 255 - i, 1, 1);
      }
    }
    return barImage;
  }

  // ---- 3. The explorer ---------------------------------------------------------

  var MASK_TEXT = {none: "no mask", causal: "causal mask", padding: "padding mask"};
  var explorers = 0;

  // The picture's title (mha.explorer.notebook.title): the model, its heads, the
  // mask, and for a model causal in every layer (mha.training.TwoLayerModel)
  // that causal mask too, which blocks keys whatever mask the reader chose.
  function title(data, s, model) {
    var mask = MASK_TEXT[s.mask];
    if (model.causal && s.mask === "none") {
      mask = "causal (the model's own)";
    } else if (model.causal && s.mask === "padding") {
      mask += ", causal";
    }
    var parts = [s.nHeads + " head" + (s.nHeads > 1 ? "s" : ""), mask];
    if (data.choice === "Weights:") {
      parts.unshift(s.option + " weights");
    } else if (data.choice === "Model:") {
      parts.unshift(s.option);
    }
    return parts.join(", ");
  }

  function caption(data, s, result) {
    var nPad = result.tokens.filter(function (t) { return t === PAD; }).length;
    var dKey = result.model.layers[0].Wq.length / s.nHeads;  // Wq: (n_heads * d_key, d_model)
    var text = "“" + s.sentence + "” · " + s.nHeads + " head" + (s.nHeads > 1 ? "s" : "") +
      " (d_key = " + dKey + ") · " + MASK_TEXT[s.mask] +
      (s.mask === "padding" ? ", " + nPad + " trailing <pad>" : "");
    if (data.choice === "Weights:") {
      text += " · " + s.option + " weights";
    } else if (data.choice === "Model:") {
      text += " · " + s.option;
    }
    if (result.layers.length > 1) {
      text += " · " + result.layers.length + " layers" + (result.model.residual ?
        " on a residual stream" : "");
    }
    if (result.model.causal && s.mask !== "causal") {
      text += " · causal in every layer (the model's own mask)";
    }
    return text;
  }

  // Per layer and head, where query `row` looks most.
  function describe(result, row) {
    var word = result.tokens[row];
    var parts = result.layers.map(function (layer, l) {
      var heads = layer.probs.map(function (probs, h) {
        var p = probs[row], best = 0;
        p.forEach(function (v, j) { if (v > p[best]) { best = j; } });
        if (p[best] === 0) {
          return "head " + h + " nowhere (every key blocked)";
        }
        return "head " + h + " at “" + result.tokens[best] + "” (" + number(p[best]) + ")";
      }).join("; ");
      return (result.layers.length > 1 ? "layer " + (l + 1) + ": " : "") + heads;
    });
    var blocked = result.tokens.filter(function (_, j) { return result.blocked[row][j]; });
    return "Where “" + word + "” (position " + row + ") looks most: " + parts.join(". ") +
      "." + (blocked.length ? " Keys blocked for it (grey, hatched): " +
             blocked.map(function (t) { return "“" + t + "”"; }).join(", ") + "." : "");
  }

  function answersText(result) {
    return result.model.readouts.map(function (readout, a) {
      var answers = result.answers[a];
      if (readout.at) {
        var at = result.tokens.indexOf(readout.at);
        if (at < 0) {
          return "The model answers at “" + readout.at + "”: this sentence has none.";
        }
        return "The model's answer at “" + readout.at + "” (" + readout.name + "): " +
          answers[at].word + " (probability " + number(answers[at].p) + ")";
      }
      return "The model's " + readout.name + " word at each position: " +
        result.tokens.map(function (t, i) { return t + " → " + answers[i].word; }).join(", ");
    });
  }

  function html(tag, attributes, parent, text) {
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
  function setText(node, text) {
    var only = node.childNodes.length === 1 && node.firstChild.nodeType === Node.TEXT_NODE;
    if (only) {
      if (node.firstChild.data !== text) {
        node.firstChild.data = text;
      }
    } else {
      node.textContent = text;
    }
  }

  function Explorer(root, data) {
    var self = this;
    this.root = root;
    this.data = data;
    this.id = "mha-x" + (explorers += 1);
    var initial = data.initial;
    // The state of the controls: what the picture shows. Only show() changes it.
    this.state = {option: initial.option, nHeads: initial.nHeads, mask: initial.mask,
                  nPad: initial.nPad, sentence: initial.sentence, row: null};
    this.chosen = initial.sentence;  // the last listed sentence chosen
    this.build();
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

  // The controls, from the data: one row each, a label in a column of its own.
  Explorer.prototype.build = function () {
    var data = this.data, id = this.id, s = this.state;
    var form = this.form = html("form", {"class": "mha-controls",
                                         "aria-label": "Settings of the attention explorer"});
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
    this.menu = html("select", {});
    row("Sentence:", "sentence", this.menu);
    this.listSentences(null);
    var typing = html("span", {"class": "mha-typing"});
    this.box = html("input", {type: "text", autocomplete: "off", spellcheck: "false",
                              placeholder: "your sentence"}, typing);
    html("button", {type: "submit", "class": "mha-show"}, typing, "Show");
    var typed = row("Or type:", "text", typing);
    this.box.id = id + "-text";
    this.box.name = "text";
    typing.removeAttribute("id");
    typed.querySelector("label").setAttribute("for", this.box.id);
    this.words = html("details", {"class": "mha-words"}, form);
    html("summary", {}, this.words, "The model's words (tap one to add it)");
    html("div", {"class": "mha-word-list"}, this.words);
    this.message = html("p", {"class": "mha-message", role: "status"}, form);
    if (data.masks.length > 1) {
      buttons("Mask:", "mask", data.masks);
    }
    if (data.masks.indexOf("padding") >= 0) {
      this.padding = slider("Padding tokens:", "nPad", range(data.maxPad).map(function (i) {
        return i + 1;
      }));
      this.padding.classList.add("mha-revealed");
    }
    if (data.headCounts.length > 1) {
      slider("Heads:", "nHeads", data.headCounts);
    }
    this.figure = html("figure", {"class": "mha-frame"});
    // The maps, one canvas; what it shows, in words: the description below.
    this.canvas = html("canvas", {"class": "mha-maps", role: "img",
                                  "aria-labelledby": id + "-description"},
                       html("div", {"class": "mha-picture"}, this.figure));
    this.caption = html("figcaption", {"aria-live": "polite"}, this.figure);
    this.reading = html("div", {"class": "mha-reading"});
    this.rowMenu = html("select", {});
    var div = html("div", {"class": "mha-row"}, this.reading);
    html("label", {"class": "mha-label", "for": id + "-row"}, div, "Query word:");
    this.rowMenu.id = id + "-row";
    this.rowMenu.name = "row";
    div.appendChild(this.rowMenu);
    this.description = html("p", {"class": "mha-description", id: id + "-description"},
                            this.reading);
    this.answers = html("div", {"class": "mha-answers"}, this.reading);
    this.rowMenu.addEventListener("change", this.changed.bind(this));
    var fallback = this.root.querySelector(".mha-fallback");
    if (fallback) {
      fallback.remove();
    }
    this.root.append(this.form, this.figure, this.reading);
  };

  // The sentence drop-down: the listed sentences, and the typed one shown.
  Explorer.prototype.listSentences = function (typed) {
    var menu = this.menu;
    this.typedSentence = typed;
    menu.textContent = "";
    this.data.sentences.forEach(function (sentence) {
      html("option", {value: sentence}, menu, sentence);
    });
    if (typed !== null && this.data.sentences.indexOf(typed) < 0) {
      html("option", {value: typed}, menu, "your sentence: " + typed);
    }
    menu.value = typed !== null ? typed : this.state.sentence;
  };

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
    ["option", "mask"].forEach(function (name) {
      var v = value(name);
      if (v !== undefined) {
        s[name] = v;
      }
    });
    ["nPad", "nHeads"].forEach(function (name) {
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
    var same = ["option", "nHeads", "mask", "nPad", "sentence", "row"].every(function (k) {
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
      this.say("the box is empty: type a sentence, then press Enter (the picture shows " +
               "the sentence chosen above)");
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
    var result;
    try {
      result = compute(this.data, s);
    } catch (error) {
      if (!(error instanceof Problem)) {
        throw error;
      }
      this.say(error.message, error.words);
      this.setForm();
      return false;
    }
    var listed = this.data.sentences.indexOf(s.sentence) >= 0;
    if (!listed && s.sentence !== this.typedSentence) {
      this.listSentences(s.sentence);
    } else if (listed && this.typedSentence !== null) {
      this.listSentences(null);
    }
    this.state = s;
    this.result = result;
    this.say("");
    this.setForm();
    this.drawn();
    return true;
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
    this.menu.value = s.sentence;
    if (this.padding) {
      this.padding.hidden = s.mask !== "padding";
    }
    this.listWords();
  };

  // The model's words, as buttons that add them to the box.
  Explorer.prototype.listWords = function () {
    var model = modelOf(this.data, this.state.option, this.state.nHeads);
    var list = this.words.querySelector(".mha-word-list");
    if (list.getAttribute("data-vocab") === model.vocab.join(" ")) {
      return;
    }
    list.setAttribute("data-vocab", model.vocab.join(" "));
    list.textContent = "";
    model.vocab.slice(2).forEach(function (word) {
      html("button", {type: "button", "class": "mha-word"}, list, word);
    });
    html("button", {type: "button", "class": "mha-word", "data-remove": "",
                    "aria-label": "remove the last word"}, list, "⌫");
  };

  Explorer.prototype.say = function (text, words) {
    setText(this.message, text);
    if (words) {
      this.words.open = true;
    }
  };

  // The picture of the state and what is said about it.
  Explorer.prototype.drawn = function () {
    var result = this.result, s = this.state, tokens = result.tokens;
    var row = s.row !== null && s.row < tokens.length ? s.row : this.defaultRow(result);
    this.row = row;
    this.repaint();
    setText(this.caption, caption(this.data, s, result));
    var menu = this.rowMenu, listed = tokens.map(function (t, i) { return i + ": " + t; });
    if (menu.getAttribute("data-tokens") !== listed.join("\n")) {  // new words only
      menu.setAttribute("data-tokens", listed.join("\n"));
      menu.textContent = "";
      listed.forEach(function (t, i) { html("option", {value: i}, menu, t); });
    }
    menu.value = String(row);
    setText(this.description, title(this.data, s, result.model) + ". " + describe(result, row));
    var answers = this.answers, texts = answersText(result);
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
    if (!this.ink) {
      var style = getComputedStyle(this.root);
      var read = function (name, fallback) {
        return style.getPropertyValue(name).trim() || fallback;
      };
      this.ink = {text: read("--mha-text", "#222"), ground: read("--mha-ground", "#fff"),
                  heads: this.data.headColours || [],
                  blocked: read("--mha-blocked", "#d4d4d4"),
                  hatch: read("--mha-hatch", "#8a8a8a")};
    }
    var measure = function (text, size, bold) { return textWidth(g, family, text, size, bold); };
    var width = Math.max(280, Math.min(this.width || 640, 760));
    this.picture = layout(this.result, width, {title: title(this.data, this.state, this.result.model), row: this.row},
                          measure);
    this.picture.ink = this.ink;
    paint(this.canvas, this.picture, this.ink, family, window.devicePixelRatio || 1);
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
          layout(result, self.width || 640, {title: "", row: null}, measure);
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

  // The word described first: where a readout reads its answer, else the last.
  Explorer.prototype.defaultRow = function (result) {
    var at = result.model.readouts.map(function (r) { return result.tokens.indexOf(r.at); })
      .filter(function (i) { return i >= 0; });
    return at.length ? at[0] : result.tokens.length - 1;
  };

  function mountAll() {
    document.querySelectorAll(".mha-explorer").forEach(function (root) {
      var script = root.querySelector("script.mha-data");
      if (!script || root.mhaExplorer) {
        return;
      }
      root.mhaExplorer = new Explorer(root, JSON.parse(script.textContent));
    });
  }

  window.mhaExplorer = {
    tokenize: tokenize, compute: compute, colour: colour, title: title, mountAll: mountAll,
    headColour: headColour,
  };
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", mountAll);
  } else {
    mountAll();
  }
})();

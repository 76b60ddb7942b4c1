// The explorer's computation: a model's forward pass on one setting, one
// short function per step, named like mha's (text.tokenize, embedding,
// attention.split_heads ...), from the weights mha.explorer hands the page.
// tests/js holds its numbers equal to the package's.

const PUNCTUATION = /[\p{P}\p{S}]/u;  // Unicode punctuation and symbols
// Python's str.isspace(): what mha.text.tokenize splits on (control
// characters among them).
// eslint-disable-next-line no-control-regex
const SPACE = /[\t-\r\x1c-\x20\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]/u;

// The package's words (mha.explorer.look.WORDS) filled in as Python's
// str.format fills them: {name} by values[name], {{ and }} as braces.
export function fill(template, values) {
  return template.replace(/\{\{|\}\}|\{(\w+)\}/g, function (found, name) {
    if (!name) {
      return found.charAt(0);
    }
    if (!(name in values)) {
      throw new Error("no value for {" + name + "} in " + JSON.stringify(template));
    }
    return String(values[name]);
  });
}

// mha.text.tokenize: lowercase, punctuation deleted, split on whitespace.
export function tokenize(text) {
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
export function tensor(t) {
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

// mha.attention.split_heads: (L, n_heads * d_key) → (n_heads, L, d_key)
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

// mha.attention.merge_heads: (n_heads, L, d_key) → (L, n_heads * d_key)
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
// one's output or, on a residual stream, x1 = x0 + attn1(x0),
// x2 = x1 + attn2(x1); then the readouts, on the last.
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

export function range(n) {
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
export function Problem(message) {
  this.message = message;
}

// A reader's text in the package's quotation marks, cut at 40 characters.
export function quoted(words, text) {
  text = String(text);
  return fill(words.quoted, {text: text.length > 40 ? text.slice(0, 39) + "…" : text});
}

// The tokens of a sentence a model can read, or a Problem that says why not
// (in data's words; the words of the model's listed are all but data.specials).
function sentenceTokens(model, sentence, data) {
  var words = data.words, tokens = tokenize(sentence);
  if (!tokens.length) {
    throw new Problem(fill(words.noWord, {text: quoted(words, sentence.trim() || " ")}));
  }
  var unknown = tokens.filter(function (t, i) {
    return !model.stoi.has(t) && tokens.indexOf(t) === i;
  });
  if (unknown.length) {
    throw new Problem(fill(words.unknown, {
      words: unknown.slice(0, 5).map(function (t) { return quoted(words, t); })
        .join(words.list),
      more: unknown.length > 5 ? fill(words.more, {count: unknown.length - 5}) : "",
      count: model.vocab.length - data.specials.length,
    }));
  }
  if (tokens.length > model.maxLength) {
    throw new Problem(fill(words.tooLong, {count: tokens.length, most: model.maxLength}));
  }
  return tokens;
}

// The weights of the model option chosen, with the head count.
export function modelOf(data, option, nHeads) {
  var entry = data.models.filter(function (m) {
    return m.option === option && m.heads.indexOf(nHeads) >= 0;
  })[0];
  if (!entry) {
    throw new Problem(fill(data.words.noModel, {option: option, heads: nHeads}));
  }
  return unpack(data.weights[entry.weights]);
}

// Everything one setting ({option, nHeads, mask, nPad, sentence}) shows:
// {tokens, blocked (L, L), layers: [{output, probs}], logits, answers: per
// readout, the word it gives at each position and its probability, model}.
export function compute(data, setting) {
  var model = modelOf(data, setting.option, setting.nHeads);
  var tokens = sentenceTokens(model, setting.sentence, data);
  var nPad = setting.mask === "padding" ? Math.min(setting.nPad, tokens.length - 1) : 0;
  tokens = tokens.slice(0, tokens.length - nPad).concat(range(nPad).map(function () {
    return data.pad;
  }));
  var ids = tokens.map(function (t) { return model.stoi.get(t); });
  var allowed = setting.mask === "causal" ? causalMask(ids.length)
    : setting.mask === "padding" ? paddingMask(ids, model.stoi.get(data.pad))
      : causalMask(ids.length).map(function (row) { return row.map(function () { return true; }); });
  if (model.causal) {  // a model causal in every layer whatever the mask
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

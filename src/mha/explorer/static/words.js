// What the explorer says about a setting, in the package's words
// (mha.explorer.look: data.words, data.titles, data.captions), with the
// numbers and tokens of the setting filled in.

import {fill} from "./compute.js";

// A probability as the maps print it (data.look.decimals).
export function number(look, p) {
  return p.toFixed(look.decimals);
}

// The picture's title (mha.explorer.look.title).
export function title(data, s) {
  return data.titles[s.option][s.nHeads][s.mask];
}

// The picture's caption (mha.explorer.look.caption): the words the model
// reads (a padded sentence's last words are <pad>, counted apart; a
// character that is no word is not quoted), and the layer shown.
export function caption(data, s, result) {
  var words = result.tokens.filter(function (t) { return t !== data.pad; });
  var layers = result.layers.length;
  return fill(data.captions[s.option][s.nHeads][s.mask], {
    sentence: words.join(" "), n_pad: result.tokens.length - words.length,
    layer: Math.min(layers, Number(s.layer) || 1), n_layers: layers});
}

// The word described first: where a readout reads its answer, else the last.
export function firstRow(result) {
  var at = result.model.readouts.map(function (r) { return result.tokens.indexOf(r.at); })
    .filter(function (i) { return i >= 0; });
  return at.length ? at[0] : result.tokens.length - 1;
}

// Per layer and head, where query `row` looks most.
export function describe(data, result, row) {
  var words = data.words, tokens = result.tokens;
  var quote = function (t) { return fill(words.quoted, {text: t}); };
  var layers = result.layers.map(function (layer, l) {
    var heads = layer.probs.map(function (probs, h) {
      var p = probs[row], best = 0;
      p.forEach(function (v, j) { if (v > p[best]) { best = j; } });
      if (p[best] === 0) {
        return fill(words.headNowhere, {head: h});
      }
      return fill(words.headAt, {head: h, token: tokens[best], p: number(data.look, p[best])});
    }).join(words.headList);
    return result.layers.length > 1 ? fill(words.inLayer, {layer: l + 1, heads: heads})
      : heads;
  });
  var blocked = tokens.filter(function (_, j) { return result.blocked[row][j]; });
  return fill(words.looks, {word: tokens[row], row: row, layers: layers.join(words.layerList)}) +
    (blocked.length ? fill(words.blockedFor, {keys: blocked.map(quote).join(words.list)}) : "");
}

// The model's answers, one text per readout.
export function answersText(data, result) {
  var words = data.words;
  return result.model.readouts.map(function (readout, a) {
    var answers = result.answers[a];
    if (readout.at) {
      var at = result.tokens.indexOf(readout.at);
      if (at < 0) {
        return fill(words.noAnswer, {at: readout.at});
      }
      return fill(words.answerAt, {at: readout.at, name: readout.name,
                                   word: answers[at].word, p: number(data.look, answers[at].p)});
    }
    return fill(words.answers, {name: readout.name, pairs: result.tokens.map(function (t, i) {
      return fill(words.pair, {token: t, word: answers[i].word});
    }).join(words.list)});
  });
}

// The explorer's script against the package (node's test runner): what it
// computes, lays out and says for settings of every kind of model, compared
// with the package's readings written by tests/test_explorer_js.py (the
// file named by MHA_EXPLORER_FIXTURES), numbers printed at 6 decimals and
// compared to 1e-5 (a float32 model's outputs differ in their last bits).
import assert from "node:assert/strict";
import {readFileSync} from "node:fs";
import {describe, test} from "node:test";

import {Problem, compute, fill, tokenize} from "../../src/mha/explorer/static/compute.js";
import {FONT, colour, layout} from "../../src/mha/explorer/static/draw.js";
import {answersText, caption, describe as described, title}
  from "../../src/mha/explorer/static/words.js";

const path = process.env.MHA_EXPLORER_FIXTURES;
if (!path) {
  throw new Error("MHA_EXPLORER_FIXTURES must name the package's fixtures: run " +
                  "tests/test_explorer_js.py with pytest, which writes them");
}
const fixtures = JSON.parse(readFileSync(path, "utf8"));
const TOLERANCE = 1e-5;

// A text's width as a canvas would give it, roughly: no canvas in node.
const measure = (text, size) => String(text).length * size * 0.6;

function close(got, want, where) {
  if (Array.isArray(want)) {
    assert.equal(got.length, want.length, where);
    want.forEach((w, i) => close(got[i], w, where + "[" + i + "]"));
  } else {
    assert.ok(Math.abs(got - want) <= TOLERANCE, where + ": " + got + " against " + want);
  }
}

test("fill fills the package's words as Python's str.format does", () => {
  assert.equal(fill("{{a}} {b} {b}", {b: 1}), "{a} 1 1");
  assert.equal(fill("“{text}”", {text: "{x}"}), "“{x}”");
  assert.throws(() => fill("{missing}", {}));
});

test("tokenize splits as mha.tokenize does", () => {
  for (const [text, tokens] of fixtures.tokens) {
    assert.deepEqual(tokenize(text), tokens, JSON.stringify(text));
  }
});

test("the colour of a probability is the book's", () => {
  const look = Object.values(fixtures.explorers)[0].data.look;
  for (const [p, hex] of fixtures.colours) {
    assert.equal(colour(look, p), hex, String(p));
  }
});

for (const [name, explorer] of Object.entries(fixtures.explorers)) {
  const data = explorer.data;
  describe(name, () => {
    for (const want of explorer.readings) {
      const s = want.setting;
      const label = [s.option, s.nHeads + " heads", s.mask, s.nPad, s.sentence].join(", ");
      test(label, () => {
        const got = compute(data, s);
        assert.deepEqual(got.tokens, want.tokens);
        assert.deepEqual(got.blocked, want.blocked);
        close(got.layers.map((l) => l.probs), want.probs, "probs");
        close(got.layers.map((l) => l.output), want.outputs, "outputs");
        close(got.logits, want.logits, "logits");
        assert.deepEqual(got.answers.map((a) => a.map((x) => x.word)), want.answers);
        // What it says: the package's title and caption, the package's words.
        assert.equal(title(data, s), want.title);
        assert.equal(caption(data, s, got), want.caption);
        const row = got.tokens.length - 1;
        const text = described(data, got, row);
        assert.ok(text.startsWith(fill(data.words.looks, {word: got.tokens[row], row: row,
                                                          layers: ""}).slice(0, -1)));
        // Where each head looks most: the package's largest probability
        // (where no other comes within 0.01 of it).
        want.probs.forEach((layer) => layer.forEach((probs, h) => {
          const p = probs[row], best = p.indexOf(Math.max(...p));
          const next = Math.max(0, ...p.filter((_, j) => j !== best));
          if (p[best] > next + 0.01) {
            const said = fill(data.words.headAt, {head: h, token: got.tokens[best],
                                                  p: p[best].toFixed(data.look.decimals)});
            assert.ok(text.includes(said), said + " in " + text);
          }
        }));
        answersText(data, got).forEach((line, a) => {
          const readout = got.model.readouts[a], at = want.tokens.indexOf(readout.at);
          const words = readout.at ? (at < 0 ? [] : [want.answers[a][at]]) : want.answers[a];
          words.forEach((word) => assert.ok(line.includes(word), line));
        });
        // The picture: each head's map in the book's grid and colours, the
        // book's ticks and words, blocked keys marked.
        // The picture: each head's map of the layer shown in the book's
        // colours, ticks and words, blocked keys marked, all on a stage of
        // the size given (the same for every setting), no map over another.
        for (const [width, height] of [[760, 460], [358, 322]]) {
          const picture = layout(data, got, width, height,
                                 {title: want.title, row: row, layers: [0]}, measure);
          assert.equal(picture.width, width);
          assert.equal(picture.height, height);
          assert.equal(picture.maps.length, s.nHeads);
          picture.maps.forEach((m, k) => {
            assert.ok(m.x >= 0 && m.y >= 0 && m.x + m.size <= width && m.y + m.size <= height);
            picture.maps.slice(k + 1).forEach((o) => assert.ok(
              o.x >= m.x + m.size || o.y >= m.y + m.size, "maps overlap"));
          });
          picture.texts.forEach((t) => assert.ok(t.y <= height && t.x <= width, t.text));
          // The blocked keys' sample below the colour bar's label, not on it.
          const barLabel = picture.texts.find((t) => t.text === data.look.bar);
          if (picture.blockedKey) {
            assert.ok(picture.blockedKey.y >= barLabel.y + measure(data.look.bar, barLabel.size) / 2,
                      "the blocked key on the colour bar's label");
          }
          // Token labels never run together: on each axis of a map, one
          // label's centre at least a label's height from the next; none
          // smaller than 9 px.
          const labels = picture.texts.filter((t) => t.align === "right" &&
                                                     t.baseline === "middle");
          labels.forEach((t) => assert.ok(t.size >= 9 && t.size <= FONT.label, t.text));
          for (const [angle, at] of [[0, "y"], [-90, "x"]]) {
            const along = {};
            labels.filter((t) => t.angle === angle).forEach((t) => {
              const line = angle === 0 ? t.x : t.y;
              (along[line] = along[line] || []).push(t[at]);
            });
            Object.values(along).forEach((places) => places.sort((a, b) => a - b)
              .slice(1).forEach((p, i) => assert.ok(p - places[i] >= labels[0].size - 0.5,
                `labels ${p - places[i]} px apart at ${width} px`)));
          }
          // The query row shown is labelled, thinned or not.
          const first = picture.maps[0];
          assert.ok(labels.some((t) => t.angle === 0 &&
                                       Math.abs(t.y - (first.y + (row + 0.5) * first.cell)) < 0.5),
                    `row ${row} unlabelled at ${width} px`);
        }
        const picture = layout(data, got, 760, 460, {title: want.title, row: row}, measure);
        const nHeads = s.nHeads, look = data.look;
        assert.equal(picture.maps.length, got.layers.length * nHeads);
        picture.maps.forEach((map) => map.cells.forEach((row, i) => row.forEach((c, j) => {
          if (want.blocked[i][j]) {
            assert.equal(c.p, null);
            assert.equal(c.fill, null);
          } else {
            assert.equal(c.fill, colour(look, c.p));
            assert.ok(c.number === null || c.number === c.p.toFixed(look.decimals));
          }
        })));
        const texts = picture.texts.map((t) => t.text);
        for (const word of [look.query, look.key, look.bar, ...look.ticks.map((t) => t[1])]) {
          assert.ok(texts.includes(word), word);
        }
        assert.equal(texts.includes(look.blockedKey), want.blocked.flat().some(Boolean));
        assert.ok(texts.includes(fill(data.words.head, {head: nHeads - 1})));
      });
    }
  });
}

test("a sentence the model cannot read is a Problem in the package's words", () => {
  const data = fixtures.explorers.fronted.data;
  for (const [sentence, message] of Object.entries(fixtures.problems)) {
    const s = Object.assign({}, data.initial, {sentence: sentence});
    assert.throws(() => compute(data, s), (error) => {
      assert.ok(error instanceof Problem);
      assert.equal(error.message, message);
      return true;
    });
  }
});

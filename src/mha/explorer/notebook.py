"""The explorer as a notebook output: what the page receives, and the forms a
notebook stores.

Its one front end, ``explorer.js`` (:func:`front_end` joins it from the ES
modules in ``static/``), computes every setting in the page from the models'
weights, with the words and colours the package gives it
(``mha.explorer.look``); the state of the controls lives there (and, in a
widget, in Python too). A notebook stores three forms of an explorer (a
widget adds its view):

- ``text/html``: the front end with its data, which runs where a notebook's
  outputs may run scripts, and before that the first setting's maps as a
  picture with a note (GitHub, nbviewer, a notebook not yet run);
- :data:`MIME`: the data alone, which the book's site renders with the same
  front end;
- ``text/plain``: a note and a digest of the weights (at 4 decimals) and of
  the first setting's maps (at 2), which nbval compares.
"""

from __future__ import annotations

import base64
import functools
import html
import json
import re
from pathlib import Path

from mha.display import digest
from mha.explorer.look import page, title
from mha.explorer.models import MAX_PAD, Network, padded, reading, weights_data
from mha.text import tokenize

#: The notebook output type of the explorer's data, JSON as text (not a +json
#: type, which nbval would compare exactly: the random draws' last bits differ
#: between processors; the text form holds the weights at 4 decimals).
MIME = "application/vnd.mha.explorer"
#: The folder of the front end (explorer.css and the ES modules of the script).
STATIC = Path(__file__).resolve().parent / "static"
#: The script's modules by job, in the order one script joins them (each
#: imports only modules before it).
MODULES = (
    "compute.js",
    "words.js",
    "draw.js",
    "controls.js",
    "interface.js",
    "main.js",
)
NAMES = {  # the controls, top to bottom, by the word a note uses
    "model": "model",
    "sentence": "sentence",
    "mask": "mask",
    "n_pad": "padding",
    "n_heads": "heads",
    "layer": "layer",
}
_IMPORT = re.compile(r'^import \{[\w, ]+\} from "\./(\w+\.js)";\n', re.M)
_DECLARED = re.compile(
    r"^(?:export )?(?:async )?(?:function\*?|const|let|var|class) (\w+)", re.M
)


#: What ``widget.js`` adds to ``explorer.js``: the export anywidget imports.
WIDGET_EXPORT = "export default {render: globalThis.mhaExplorer.render};\n"


@functools.cache
def front_end(name: str) -> str:
    """``explorer.css``; ``explorer.js``: the script's modules joined into
    one classic script (their imports dropped, their exports kept as plain
    declarations, all in one function's scope), which a page loads and a
    notebook's HTML output holds; or ``widget.js``: the same script as an ES
    module whose default export holds its ``render`` (main.js), the Jupyter
    widget's front end (anywidget's form)."""
    if name == "widget.js":
        return front_end("explorer.js") + WIDGET_EXPORT
    if name != "explorer.js":
        return (STATIC / name).read_text(encoding="utf-8")
    parts, declared = [], {}
    for i, module in enumerate(MODULES):
        text = (STATIC / module).read_text(encoding="utf-8")
        for imported in _IMPORT.findall(text):
            if imported not in MODULES[:i]:
                raise ValueError(
                    f"{module} must import only the modules before it in MODULES "
                    f"{MODULES[:i]}, got {imported}"
                )
        text = _IMPORT.sub("", text)
        text = re.sub(r"^export (?=(async )?(function|const|let|var|class) )", "", text,
                      flags=re.M)  # fmt: skip
        left = re.findall(r"^(?:import|export)\b.*", text, flags=re.M)
        if left:
            raise ValueError(
                f"{module} must import on one line each and export declarations "
                f"only, got {left[0]!r}"
            )
        for found in _DECLARED.findall(text):
            if found in declared:
                raise ValueError(
                    f"{module} and {declared[found]} must not both declare {found}"
                )
            declared[found] = module
        parts.append(f"// ---- {module} ----\n{text}")
    return (
        "// The attention explorer's front end, one script joined from its modules\n"
        f"// ({', '.join(MODULES)}) by mha.explorer.notebook.front_end.\n"
        '(function () {\n"use strict";\n' + "\n".join(parts) + "})();\n"
    )


class Explorer:
    """An attention explorer (made by `mha.explorer.attention_explorer`).

    Attributes:
        choice: the label of the control that picks a model (``"Weights:"``,
            ``"Model:"``) or ``None``.
        networks: ``{option: {n_heads: Network}}``.
        masks, sentences: what the mask and sentence controls offer.
        initial: the first setting (``option``, ``n_heads``, ``mask``,
            ``n_pad``, ``sentence``); a widget keeps it the one shown.
    """

    def __init__(self, choice, networks, masks, sentences):
        self.choice = choice
        self.networks = networks
        self.masks = tuple(masks)
        self.sentences = tuple(sentences)
        option = next(iter(networks))
        counts = sorted(networks[option])
        self.initial = {
            "option": option,
            "n_heads": 4 if 4 in counts else counts[0],
            "mask": self.masks[0],
            "n_pad": 1,
            "sentence": self.sentences[0],
        }

    @property
    def head_counts(self) -> list[int]:
        return sorted(next(iter(self.networks.values())))

    def controls(self) -> list[str]:
        """The controls shown, top to bottom (the sentence's always: a typed
        sentence joins it)."""
        shown = {
            "model": self.choice is not None,
            "sentence": True,
            "mask": len(self.masks) > 1,
            "n_pad": "padding" in self.masks,
            "n_heads": len(self.head_counts) > 1,
            "layer": any(
                len(network.layers) > 1
                for by_heads in self.networks.values()
                for network in by_heads.values()
            ),
        }
        return [name for name in NAMES if shown[name]]

    def network(self, option: str, n_heads: int) -> Network:
        return self.networks[option][n_heads]

    def first(self):
        """The package's reading of the first setting (:attr:`initial`), and
        its network."""
        s = self.initial
        network = self.network(s["option"], s["n_heads"])
        tokens = padded(tokenize(s["sentence"]), s["mask"], s["n_pad"])
        return reading(network, tokens, s["mask"]), network

    # -- the data -------------------------------------------------------------------

    @property
    def data(self) -> dict:
        """Everything the page needs, as JSON (each distinct set of weights
        once, with the head counts it is cut into; the controls' options;
        the page's words and look, ``mha.explorer.look.page``; the first
        setting). Its first key is ``choice`` (tests/nbval_sanitize.cfg finds
        it by that)."""
        s = self.initial
        initial = {
            "option": s["option"],
            "nHeads": s["n_heads"],
            "mask": s["mask"],
            "nPad": s["n_pad"],
            "sentence": s["sentence"],
        }
        return {**self._models, "initial": initial}

    @functools.cached_property
    def _models(self) -> dict:
        """:attr:`data` but the first setting (computed once)."""
        weights, index, models = [], {}, []
        for option, by_heads in self.networks.items():
            for n_heads, network in sorted(by_heads.items()):
                data = weights_data(network)
                key = json.dumps(data, sort_keys=True)
                if key not in index:
                    index[key] = len(weights)
                    weights.append(data)
                    models.append(
                        {"option": option, "heads": [], "weights": index[key]}
                    )
                entry = next(
                    m
                    for m in models
                    if m["weights"] == index[key] and m["option"] == option
                )
                entry["heads"].append(n_heads)
        return page({
            "choice": self.choice,
            "options": list(self.networks),
            "models": models,
            "weights": weights,
            "headCounts": self.head_counts,
            "masks": list(self.masks),
            "maxPad": MAX_PAD,
            "sentences": list(self.sentences),
            "initial": None,
        })  # fmt: skip

    # -- what a notebook stores -----------------------------------------------------

    def note(self) -> str:
        names = {**NAMES, "model": (self.choice or "model:").rstrip(":").lower()}
        names = ", ".join(names[name] for name in self.controls())
        return (
            f"Run this cell to use the attention explorer here (controls: {names}); "
            "on the book's web page it works without running anything."
        )

    def __repr__(self) -> str:
        first, _ = self.first()
        maps = " ".join(
            f"{v:.2f}" for probs in first.probs for v in probs.flatten().tolist()
        )
        weights = " ".join(
            f"{v:.4f}" for data in self.data["weights"] for v in _values(data)
        )
        return (
            f"{self.note()} [weights {digest(weights)}, "
            f"first maps {digest(' '.join(first.tokens) + chr(10) + maps)}]"
        )

    def picture(self) -> bytes:
        """The first setting's first layer as the book draws it (a PNG)."""
        from mha.plotting.core import display_attention  # matplotlib, late
        from mha.plotting.figure import to_png

        first, network = self.first()
        s = self.initial
        figure = display_attention(
            first.tokens, first.tokens, first.probs[0], network.n_heads,
            mask=~first.blocked,  # blocked keys drawn as blocked, as the book does
            title=title(
                s["option"], self.choice, s["n_heads"], s["mask"], network.causal
            ),
        )  # fmt: skip
        return to_png(figure, colours=256)

    def _repr_mimebundle_(self, include=None, exclude=None) -> dict:
        data = self.data
        picture = base64.b64encode(self.picture()).decode("ascii")
        markup = (
            '<div class="mha-explorer">'
            f"<style>{front_end('explorer.css')}</style>"
            '<div class="mha-fallback">'
            f'<img src="data:image/png;base64,{picture}" alt="Attention maps of the '
            f'first setting" style="max-width:100%;height:auto">'
            f'<p class="mha-message">{html.escape(self.note())}</p></div>'
            f'<script type="application/json" class="mha-data">{script_json(data)}'
            f"</script><script>{front_end('explorer.js')}</script></div>"
        )
        return {"text/plain": repr(self), "text/html": markup, MIME: script_json(data)}


def script_json(data) -> str:
    """JSON that can stand inside a <script> element."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"))
    return text.replace("<", "\\u003c")


def _values(weights: dict) -> list[float]:
    """Every weight of a network's data (``weights_data``), in order."""
    from mha.explorer.models import decoded

    tensors = [weights["embed"], weights["pe"]]
    tensors += [layer[name] for layer in weights["layers"] for name in sorted(layer)]
    tensors += [r[k] for r in weights["readouts"] for k in ("W", "b")]
    return [v for t in tensors for v in decoded(t).flatten().tolist()]

"""What an explorer's page says and how it looks, from the package alone: its
words (every label and message, the picture's title and caption), the
book's colours (cividis on the square-root scale, each head's colour, the
look of a blocked key), the colour bar's ticks and the grid of heads.

:func:`page` adds them to the data an explorer holds; the front end
(``static/*.js``) fills in the numbers and the words of each setting and
lays them out. Its words are Python format strings (``{name}``, and ``{{``
for a brace), which the page fills as ``str.format`` does.
"""

from __future__ import annotations

import functools

from mha.text import PAD, UNK

#: Each word the page shows that is not data (labels, messages, the words of
#: the description and the answers).
WORDS = {
    "settings": "Settings of the attention explorer",
    "sentence": "Sentence:",
    "text": "Or type:",
    "placeholder": "your sentence",
    "show": "Show",
    "yourSentence": "your sentence: {sentence}",
    "words": "The model's words (tap one to add it)",
    "removeWord": "remove the last word",
    "removeKey": "⌫",
    "mask": "Mask:",
    "nPad": "Padding:",
    "nHeads": "Heads:",
    "row": "Query:",
    "rowOption": "{row}: {token}",
    "empty": (
        "the box is empty: type a sentence, then press Enter (the picture "
        "shows the sentence chosen above)"
    ),
    "noWord": "{text} has no word (letters or digits): type a sentence of the model's words",
    "unknown": (
        "not a word this model knows: {words}{more} (its {count} words: tap "
        "\u201cThe model's words\u201d)"
    ),
    "more": " and {count} more",
    "tooLong": (
        "the sentence has {count} words; this model reads at most {most} "
        "(the length of its position table)"
    ),
    "noModel": "no {option} model with {heads} heads",
    "quoted": "“{text}”",
    "list": ", ",
    "headList": "; ",
    "layerList": ". ",
    "head": "head {head}",
    "layer": "layer {layer}",
    "layerSwitch": "Layer:",
    "looks": "Where “{word}” (position {row}) looks most: {layers}.",
    "inLayer": "layer {layer}: {heads}",
    "headAt": "head {head} at “{token}” ({p})",
    "headNowhere": "head {head} nowhere (every key blocked)",
    "blockedFor": " Keys blocked for it (grey, hatched): {keys}.",
    "answerAt": "The model's answer at “{at}” ({name}): {word} (probability {p})",
    "noAnswer": "The model answers at “{at}”: this sentence has none.",
    "answers": "The model's {name} word at each position: {pairs}",
    "pair": "{token} → {word}",
}
MASK_TEXT = {"none": "no mask", "causal": "causal mask", "padding": "padding mask"}
#: The ink of the maps' numbers, dark on the light half of the colour map and
#: white on the dark half, as mha.plotting.heatmap.heatmap writes them.
NUMBER_INK = {"dark": "white", "light": "black", "at": 0.5}
#: The decimals of a probability printed in a map (mha.plotting.heatmap.heatmap's
#: format) and in the page's words.
DECIMALS = 2


def title(
    option: str | None,
    choice: str | None,
    n_heads: int,
    mask: str,
    causal: bool = False,
) -> str:
    """The picture's title: the model option, the heads, the mask and, for a
    model ``causal`` in every layer, that its own causal mask blocks keys too."""
    shown = MASK_TEXT[mask]
    if causal and mask == "none":
        shown = "causal (the model's own)"
    elif causal and mask == "padding":
        shown += ", causal"
    parts = [f"{n_heads} head{'s' * (n_heads > 1)}", shown]
    if choice == "Weights:":
        parts.insert(0, f"{option} weights")
    elif choice == "Model:":
        parts.insert(0, option)
    return ", ".join(parts)


def caption(
    option: str,
    choice: str | None,
    n_heads: int,
    d_key: int,
    mask: str,
    n_layers: int = 1,
    residual: bool = False,
    causal: bool = False,
) -> str:
    """The picture's caption, each part of the setting said once: a format
    string of ``{sentence}`` (the words read), ``{n_pad}`` (the ``<pad>``
    tokens that replaced the last words) and, for ``n_layers`` > 1,
    ``{layer}`` (the layer shown) and ``{n_layers}``. The mask is the one that
    blocks keys: a model ``causal`` in every layer says so in its place.
    (``residual`` is accepted for the callers' argument order; the model's
    name says what it is.)"""
    del residual
    parts = ["“{sentence}”"]
    if choice == "Weights:":
        parts.append(f"{_braced(option)} weights")
    elif choice == "Model:":
        parts.append(_braced(option))
    parts.append(f"{n_heads} head{'s' * (n_heads > 1)} (d_key = {d_key})")
    shown = MASK_TEXT[mask]
    if causal and mask == "none":
        shown = "causal mask (the model's own)"
    elif causal and mask == "padding":
        shown += " and causal"
    if mask == "padding":
        shown += f": {{n_pad}} {PAD} in place of the last words"
    parts.append(shown)
    if n_layers > 1:
        parts.append("layer {layer} of {n_layers} shown")
    return " · ".join(parts)


def _braced(text: str) -> str:
    """``text`` inside a format string: its braces doubled."""
    return text.replace("{", "{{").replace("}", "}}")


@functools.cache
def look() -> dict:
    """The book's colours, ticks and greys, as the page draws them."""
    from matplotlib import colormaps

    from mha.plotting import palette  # matplotlib: an explorer shown is drawn too

    table = colormaps[palette.CMAP](range(256), bytes=True)[:, :3]
    return {
        "colours": "".join(bytes(int(v) for v in rgb).hex() for rgb in table),
        "gamma": float(palette.probability_scale().gamma),
        "ticks": [[p, f"{p:g}"] for p in palette.PROBABILITY_TICKS],
        "headColours": list(palette.HEAD_COLOURS),
        # A blocked key as the figures draw it, on a light page and a dark one:
        # a neutral light grey, hatched, which no probability's colour is (the
        # light end of the colour map is yellow, its grey middle darker).
        "blocked": {
            scheme: {"face": palette.BLOCKED_FACE, "lines": palette.BLOCKED_LINES}
            for scheme in ("light", "dark")
        },
        "numbers": NUMBER_INK,
        "decimals": DECIMALS,
        "query": palette.QUERY_AXIS,
        "key": palette.KEY_AXIS,
        "bar": f"{palette.PROBABILITY} (√ scale)",
        "blockedKey": palette.BLOCKED,
    }


def columns(n_heads: int) -> int:
    """The columns of the book's grid of ``n_heads`` maps
    (`mha.plotting.core.display_attention`'s: 1, 1 × 2, 2 × 2, 2 × 4)."""
    from mha.plotting.core import _grid

    return _grid(n_heads, n_heads, None, None)[2]


#: The keys of an explorer's data that its call decides, in order (the rest
#: :func:`page` adds).
CALL_KEYS = (
    "choice", "options", "models", "weights", "headCounts", "masks", "maxPad",
    "sentences", "initial",
)  # fmt: skip


def page(data: dict) -> dict:
    """An explorer's data: its :data:`CALL_KEYS` (the models and controls
    `mha.explorer.notebook.Explorer.data` gives) with the page's words and
    look, this package's: :data:`WORDS`, :func:`look`, the grid of each head
    count, and the title and caption of every model option, head count and
    mask. (A stored explorer's data, given to it again, gets the words and
    look of the package that renders it.)"""
    data = {key: data[key] for key in CALL_KEYS}
    titles, captions = {}, {}
    for entry in data["models"]:
        weights = data["weights"][entry["weights"]]
        option, causal = entry["option"], bool(weights.get("causal"))
        width = weights["layers"][0]["Wq"]["shape"][0]  # n_heads * d_key
        layers = (len(weights["layers"]), weights["residual"], causal)
        for n in entry["heads"]:
            said = [(m, title(option, data["choice"], n, m, causal)) for m in MASK_TEXT]
            titles.setdefault(option, {})[str(n)] = dict(said)
            captions.setdefault(option, {})[str(n)] = {
                m: caption(option, data["choice"], n, width // n, m, *layers)
                for m in MASK_TEXT
            }
    counts = {n for entry in data["models"] for n in entry["heads"]}
    return {
        **data,
        "pad": PAD,
        "specials": [PAD, UNK],  # the vocabulary's first words, never typed
        "words": WORDS,
        "look": {**look(), "columns": {str(n): columns(n) for n in sorted(counts)}},
        "titles": titles,
        "captions": captions,
    }

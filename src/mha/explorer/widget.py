"""The explorer as a Jupyter widget: what `mha.explorer.attention_explorer`
returns in a kernel.

An :class:`ExplorerWidget` is an anywidget widget whose front end is the
site's own script (``widget.js``: ``explorer.js`` and its ``render`` export,
`mha.explorer.notebook.front_end`), computing in the page as on the site. Its
setting is Python's too, as traits kept equal to the page's both ways:
``model``, ``sentence``, ``mask``, ``padding``, ``heads`` and ``layer`` (read
them, set them, ``observe`` them); :meth:`ExplorerWidget.reading` computes
what the setting shows with the package. Shown, it gives the notebook the
widget's view and the explorer's forms that need no kernel (its first
picture, its data for the site, its digest: `mha.explorer.notebook`).
"""

from __future__ import annotations

import anywidget
import traitlets

from mha.explorer.models import MAX_PAD, Reading
from mha.explorer.notebook import Explorer, front_end
from mha.text import tokenize

#: The traits of the setting, by the key of `Explorer.initial` each stands for.
SETTING = {
    "model": "option",
    "sentence": "sentence",
    "mask": "mask",
    "padding": "n_pad",
    "heads": "n_heads",
}


class ExplorerTraitError(traitlets.TraitError, ValueError):
    """A trait of the explorer set to a value it cannot show."""


class ExplorerTraitTypeError(traitlets.TraitError, TypeError):
    """A trait of the explorer set to a value of the wrong type."""


class _Setting(traitlets.Any):
    """A trait of the setting: any value, None too, goes to its check."""

    allow_none = False


class ExplorerWidget(anywidget.AnyWidget):
    """An attention explorer as a Jupyter widget (what
    `mha.explorer.attention_explorer` returns in a kernel): the site's front
    end, computing in the page, with its setting as traits kept equal to the
    page's both ways. Read or set them (``ex.heads = 2`` redraws the
    picture), ``ex.observe(...)`` them (a reader's click changes them), and
    :meth:`reading` computes what the setting shows with the package.

    Attributes:
        explorer: the `mha.explorer.notebook.Explorer` it shows (its networks,
            its options; its ``initial`` kept the setting shown).
        model: the model option shown (the weights, or the model's label).
        sentence: the sentence read (one of the explorer's, or any the model
            can read: its words, at most its length).
        mask: ``"none"``, ``"causal"`` or ``"padding"`` (those offered).
        padding: with the padding mask, how many last words are ``<pad>``
            (1 to 3; at most all but the first).
        heads: the head count shown (those offered).
        layer: the layer shown of a two-layer model (1 or 2).
    """

    # ipywidgets 7 (Colab's) shows a widget by this method: its view and its repr
    # cut at 110 characters. Without it IPython asks _repr_mimebundle_, as
    # ipywidgets 8 does, and the outputs that need no kernel are kept whole.
    _ipython_display_ = None
    _esm = front_end("widget.js")
    _css = front_end("explorer.css")
    _data = traitlets.Dict().tag(sync=True)
    model = _Setting().tag(sync=True)
    sentence = _Setting().tag(sync=True)
    mask = _Setting().tag(sync=True)
    padding = _Setting().tag(sync=True)
    heads = _Setting().tag(sync=True)
    layer = _Setting(1).tag(sync=True)

    def __init__(self, explorer: Explorer):
        if not isinstance(explorer, Explorer):
            raise TypeError(
                f"explorer must be an mha.explorer.notebook.Explorer, got "
                f"{type(explorer).__name__}"
            )
        self.explorer = explorer
        s = explorer.initial
        super().__init__(
            _data=explorer.data, **{trait: s[key] for trait, key in SETTING.items()}
        )

    # -- the checks of what Python sets ------------------------------------------------

    def _expected(self, name: str, value, options) -> None:
        if value not in options:
            listed = ", ".join(repr(o) for o in options)
            raise ExplorerTraitError(f"{name} must be one of {listed}, got {value!r}")

    @staticmethod
    def _integer(name: str, value) -> None:
        if isinstance(value, bool) or not isinstance(value, int):
            raise ExplorerTraitTypeError(
                f"{name} must be an int, got {type(value).__name__} {value!r}"
            )

    @staticmethod
    def _string(name: str, value) -> None:
        if not isinstance(value, str):
            raise ExplorerTraitTypeError(
                f"{name} must be a str, got {type(value).__name__} {value!r}"
            )

    def _unreadable(self, model, heads, tokens) -> str | None:
        """What keeps ``model`` with ``heads`` from reading ``tokens``, if
        anything."""
        network = self.explorer.network(model, heads)
        unknown = [t for t in tokens if t not in network.vocab]
        if unknown:
            return f"unknown: {', '.join(unknown)}"
        if len(tokens) > network.max_length:
            return f"too long: {len(tokens)} words, at most {network.max_length}"
        return None

    @traitlets.validate("model")
    def _check_model(self, proposal):
        value = proposal["value"]
        self._expected("model", value, list(self.explorer.networks))
        return value

    @traitlets.validate("heads")
    def _check_heads(self, proposal):
        value = proposal["value"]
        self._integer("heads", value)
        self._expected("heads", value, sorted(self.explorer.networks[self.model]))
        return value

    @traitlets.validate("mask")
    def _check_mask(self, proposal):
        value = proposal["value"]
        self._string("mask", value)
        self._expected("mask", value, list(self.explorer.masks))
        return value

    @traitlets.validate("padding")
    def _check_padding(self, proposal):
        value = proposal["value"]
        self._integer("padding", value)
        self._expected("padding", value, list(range(1, MAX_PAD + 1)))
        return value

    @traitlets.validate("layer")
    def _check_layer(self, proposal):
        value = proposal["value"]
        self._integer("layer", value)
        deepest = max(
            len(network.layers)
            for by_heads in self.explorer.networks.values()
            for network in by_heads.values()
        )
        self._expected("layer", value, list(range(1, deepest + 1)))
        return value

    @traitlets.validate("sentence")
    def _check_sentence(self, proposal):
        value = proposal["value"]
        self._string("sentence", value)
        try:
            tokens = tokenize(value)
        except (TypeError, ValueError) as error:
            raise ExplorerTraitError(
                f"sentence must be one a model can read: {error}"
            ) from None
        problem = self._unreadable(self.model, self.heads, tokens)
        if problem:
            raise ExplorerTraitError(
                f"sentence must be one the model can read, got {value!r} ({problem})"
            )
        return value

    @traitlets.observe(*SETTING)
    def _shown(self, change) -> None:
        """The explorer's first setting kept the one shown (its picture and
        digest, when the widget is shown again, are of this setting)."""
        self.explorer.initial[SETTING[change["name"]]] = change["new"]

    # -- what Python reads -------------------------------------------------------------

    def reading(self) -> Reading:
        """The package's reading of the setting shown
        (`mha.explorer.models.reading`): its tokens (``<pad>`` included), each
        layer's maps, the blocked keys and the model's answers."""
        return self.explorer.first()[0]

    def setting(self) -> dict:
        """The setting shown, by trait: ``{"model": ..., "sentence": ..., ...}``."""
        return {name: getattr(self, name) for name in (*SETTING, "layer")}

    # -- what a notebook stores --------------------------------------------------------

    def __repr__(self) -> str:
        return repr(self.explorer)

    def _repr_mimebundle_(self, **kwargs):
        """The widget's view, with the explorer's forms that need no kernel
        (its picture and note as HTML, its data for the site, its digest as
        text: `mha.explorer.notebook.Explorer`)."""
        view, metadata = super()._repr_mimebundle_(**kwargs)
        forms = {**self.explorer._repr_mimebundle_(), **view, "text/plain": repr(self)}
        return forms, metadata

"""The book's figures, one small function each; every one returns a Figure.

:mod:`~mha.plotting.palette` (colours, the probability scale, the words on the
axes), :mod:`~mha.plotting.figure` (a figure's PNG, phone layout and
fingerprint), :mod:`~mha.plotting.heatmap` (the annotated heatmap) and
:mod:`~mha.plotting.core` (:func:`~mha.plotting.core.display_attention`) hold
what they share; the other modules hold one topic each. Every figure function is also available
here, as ``mha.plotting.<name>``.
"""

from mha.plotting.core import display_attention
from mha.plotting.costs import cost_counts_figure
from mha.plotting.embeddings import positional_encoding_curves
from mha.plotting.figure import BookFigure, to_png
from mha.plotting.fingerprint import fingerprint
from mha.plotting.merge import head_contributions_figure, weighted_values_figure
from mha.plotting.palette import CMAP
from mha.plotting.pytorch import weights_panels
from mha.plotting.scores import softmax_saturation_figure
from mha.plotting.training import key_plane_figure, training_curve

__all__ = [
    "CMAP",
    "BookFigure",
    "cost_counts_figure",
    "display_attention",
    "fingerprint",
    "head_contributions_figure",
    "key_plane_figure",
    "positional_encoding_curves",
    "softmax_saturation_figure",
    "to_png",
    "training_curve",
    "weighted_values_figure",
    "weights_panels",
]

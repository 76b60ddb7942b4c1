"""One head of a layer as two matrices of ``d_model × d_model``: where it looks,
and what it writes (the QK and OV circuits of Elhage et al., 2021, *A
Mathematical Framework for Transformer Circuits*).

For head ``h``, write ``W_Q``, ``W_K``, ``W_V`` for its ``d_key`` rows of
``Wq.weight``, ``Wk.weight``, ``Wv.weight`` (each ``(d_key, d_model)``),
``b_Q``, ``b_K``, ``b_V`` for its slices of the biases, and ``W_O`` for its
``d_key`` columns of ``Wo.weight`` (``(d_model, d_key)``). Then, for inputs
``x_i`` (a query's) and ``x_j`` (a key's):

- **QK**: ``q_i · k_j = x_iᵀ W_QK x_j + key · x_j + query · x_i + b_Q · b_K``
  with ``W_QK = W_Qᵀ W_K``, ``key = W_Kᵀ b_Q`` and ``query = W_Qᵀ b_K``; the
  score is that over √d_key. The last two terms are the same for every key
  of a query, and the softmax ignores what a whole row shares: where a head
  looks is decided by ``W_QK`` and ``key`` alone.
- **OV**: the head adds ``Σ_j p_ij (W_OV x_j + bias)`` to the output of
  query ``i``, with ``W_OV = W_O W_V`` and ``bias = W_O b_V``; the layer's
  output is the sum of its heads' contributions plus ``Wo.bias``.

Both forms have rank at most ``d_key``: they pass through a head's
``d_key`` features.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import torch

from mha._checks import check_int, check_tensor
from mha.attention import MultiHeadAttention

__all__ = [
    "COMPOSITIONS",
    "OVCircuit",
    "QKCircuit",
    "asymmetry",
    "composition",
    "composition_baseline",
    "composition_scores",
    "ov_circuit",
    "qk_circuit",
]


def _check_rows(name: str, x: object, form: torch.Tensor) -> None:
    """``x`` must be ``(..., length, d_model)`` in the form's dtype."""
    d_model = form.size(0)
    shape_text = f"(..., length, d_model={d_model})"
    if not isinstance(x, torch.Tensor):
        raise TypeError(
            f"{name} must be a torch.Tensor of shape {shape_text}, got {type(x).__name__}"
        )
    if x.dim() < 2 or x.size(-1) != d_model:
        raise ValueError(f"{name} must have shape {shape_text}, got {tuple(x.shape)}")
    if x.dtype != form.dtype:
        raise TypeError(
            f"{name} must have the form's dtype {form.dtype}, got {x.dtype}; "
            f"convert it with .to({form.dtype})"
        )


@dataclass(frozen=True)
class QKCircuit:
    """Where one head looks: its scores as a bilinear form of the inputs.

    Attributes:
        W: ``(d_model, d_model)``, ``W_QK = W_Qᵀ W_K``, rank at most ``d_key``.
        key: ``(d_model,)``, ``W_Kᵀ b_Q``: the part of a key's score that does
            not depend on the query (some keys are favoured by every query).
        query: ``(d_model,)``, ``W_Qᵀ b_K``: a part of the score that depends
            on the query alone (the softmax ignores it).
        constant: ``()``, ``b_Q · b_K`` (the softmax ignores it too).
        scale: ``1 / √d_key``.
    """

    W: torch.Tensor
    key: torch.Tensor
    query: torch.Tensor
    constant: torch.Tensor
    scale: float

    def scores(
        self, x_query: torch.Tensor, x_key: torch.Tensor, exact: bool = False
    ) -> torch.Tensor:
        """The head's scores from the form.

        ``x_query (..., q_len, d_model)`` and ``x_key (..., k_len, d_model)`` →
        ``(..., q_len, k_len)``: ``(x_q W x_kᵀ + x_k · key) / √d_key``, the
        layer's scores up to a constant per row (the same softmax), or,
        with ``exact=True``, the layer's scores themselves.
        """
        _check_rows("x_query", x_query, self.W)
        _check_rows("x_key", x_key, self.W)
        scores = x_query @ self.W @ x_key.transpose(-2, -1)  # (..., q_len, k_len)
        scores = scores + (x_key @ self.key).unsqueeze(-2)  # + each key's own term
        if exact:  # the terms every key of a row shares
            scores = scores + (x_query @ self.query).unsqueeze(-1) + self.constant
        return scores * self.scale  # (..., q_len, k_len)


@dataclass(frozen=True)
class OVCircuit:
    """What one head writes: the output it adds for a key it attends to.

    Attributes:
        W: ``(d_model, d_model)``, ``W_OV = W_O W_V``, rank at most ``d_key``.
        bias: ``(d_model,)``, ``W_O b_V``, written whatever the key (each row
            of probabilities sums to 1).
    """

    W: torch.Tensor
    bias: torch.Tensor

    def writes(self, x: torch.Tensor) -> torch.Tensor:
        """What the head adds to a query's output for each key it attends to
        fully: ``x (..., k_len, d_model)`` → ``(..., k_len, d_model)``,
        ``W_OV x_j + bias`` for every key ``j``. Weighted by a head's attention
        ``p (..., q_len, k_len)``, ``p @ writes(x)`` is its contribution."""
        _check_rows("x", x, self.W)
        return x @ self.W.T + self.bias  # (..., k_len, d_model)


def _head_rows(layer: object, head: object) -> slice:
    if not isinstance(layer, MultiHeadAttention):
        raise TypeError(
            "layer must be a mha.MultiHeadAttention (for a trained toy model, pass "
            f"model.layers[i], or model.attention for one layer), got {type(layer).__name__}"
        )
    check_int("head", head, minimum=0, maximum=layer.n_heads - 1)
    return slice(head * layer.d_key, (head + 1) * layer.d_key)


def qk_circuit(layer: MultiHeadAttention, head: int) -> QKCircuit:
    """The QK circuit of ``head`` in ``layer`` (see the module's description)."""
    rows = _head_rows(layer, head)
    with torch.no_grad():
        W_Q = layer.Wq.weight[rows]  # (d_key, d_model)
        b_Q = layer.Wq.bias[rows]  # (d_key,)
        W_K = layer.Wk.weight[rows]  # (d_key, d_model)
        b_K = layer.Wk.bias[rows]  # (d_key,)
        return QKCircuit(
            W=W_Q.T @ W_K,  # (d_model, d_model)
            key=W_K.T @ b_Q,  # (d_model,)
            query=W_Q.T @ b_K,  # (d_model,)
            constant=b_Q @ b_K,  # ()
            scale=1 / math.sqrt(layer.d_key),
        )


def ov_circuit(layer: MultiHeadAttention, head: int) -> OVCircuit:
    """The OV circuit of ``head`` in ``layer`` (see the module's description)."""
    rows = _head_rows(layer, head)
    with torch.no_grad():
        W_V = layer.Wv.weight[rows]  # (d_key, d_model)
        b_V = layer.Wv.bias[rows]  # (d_key,)
        W_O = layer.Wo.weight[:, rows]  # (d_model, d_key)
        return OVCircuit(W=W_O @ W_V, bias=W_O @ b_V)  # (d_model, d_model), (d_model,)


def asymmetry(matrix: torch.Tensor) -> float:
    """How far a square matrix is from symmetric: the share of its squared
    Frobenius norm in its antisymmetric part ``(M - Mᵀ) / 2``.

    0 for a symmetric matrix (such as ``X Xᵀ``, or a form with ``Wq = Wk``),
    1 for an antisymmetric one, about 1/2 for a random one. A score matrix
    that is symmetric scores key ``j`` for query ``i`` as it scores key ``i``
    for query ``j``: it cannot prefer the previous word over the next.
    """
    check_tensor("matrix", matrix, "(n, n)", dims=2)
    if matrix.size(0) != matrix.size(1):
        raise ValueError(f"matrix must be square (n, n), got {tuple(matrix.shape)}")
    total = matrix.square().sum()
    if total == 0:
        raise ValueError("matrix must not be all zeros (its asymmetry is undefined)")
    antisymmetric = (matrix - matrix.T) / 2
    return (antisymmetric.square().sum() / total).item()


#: The three ways a head reads what an earlier head wrote, through its queries,
#: its keys or its values (Elhage et al., 2021).
COMPOSITIONS = ("Q", "K", "V")


def _check_square(name: str, matrix: object) -> torch.Tensor:
    check_tensor(name, matrix, "(d_model, d_model)", dims=2)
    if matrix.size(0) != matrix.size(1):
        raise ValueError(
            f"{name} must be square (d_model, d_model), got {tuple(matrix.shape)}"
        )
    return matrix


def composition(later: torch.Tensor, kind: str, earlier_ov: torch.Tensor) -> float:
    """How much a later head reads what an earlier head writes: Elhage et
    al.'s composition score ``‖M W_OV‖_F / (‖M‖_F ‖W_OV‖_F)``, where
    ``W_OV`` is the earlier head's OV matrix and ``M`` the later head's
    ``W_QKᵀ`` (``kind="Q"``: its queries read the earlier head's output),
    ``W_QK`` (``"K"``: its keys do) or ``W_OV`` (``"V"``: its values do).

    Between 0 and 1: 1 when everything the earlier head writes lands where
    the later head reads; about ``√(d_key / d_model)`` or less for unrelated
    matrices (:func:`composition_baseline` draws random ones).

    Args:
        later: ``(d_model, d_model)``, the later head's ``W_QK`` (for ``"Q"``
            and ``"K"``) or ``W_OV`` (for ``"V"``), e.g. ``qk_circuit(layer,
            h).W``.
        kind: ``"Q"``, ``"K"`` or ``"V"``.
        earlier_ov: ``(d_model, d_model)``, the earlier head's ``W_OV``.
    """
    _check_square("later", later)
    _check_square("earlier_ov", earlier_ov)
    if kind not in COMPOSITIONS:
        raise ValueError(f"kind must be one of {COMPOSITIONS}, got {kind!r}")
    if later.shape != earlier_ov.shape:
        raise ValueError(
            f"later and earlier_ov must have the same shape, got "
            f"{tuple(later.shape)} and {tuple(earlier_ov.shape)}"
        )
    M = later.T if kind == "Q" else later  # (d_model, d_model)
    norms = torch.linalg.matrix_norm(M) * torch.linalg.matrix_norm(earlier_ov)
    if norms == 0:
        raise ValueError("later and earlier_ov must not be all zeros")
    return (torch.linalg.matrix_norm(M @ earlier_ov) / norms).item()


def composition_scores(
    earlier: MultiHeadAttention, later: MultiHeadAttention
) -> dict[str, torch.Tensor]:
    """Every composition score between two layers: ``{kind: (later heads,
    earlier heads)}`` for ``kind`` in ``"Q"``, ``"K"``, ``"V"``, each entry
    :func:`composition` of one head of ``later`` with one of ``earlier``."""
    for name, layer in (("earlier", earlier), ("later", later)):
        if not isinstance(layer, MultiHeadAttention):
            raise TypeError(
                f"{name} must be a mha.MultiHeadAttention (model.layers[i]), got "
                f"{type(layer).__name__}"
            )
    scores = {}
    for kind in COMPOSITIONS:
        scores[kind] = torch.tensor(
            [
                [
                    composition(
                        (ov_circuit if kind == "V" else qk_circuit)(later, h2).W,
                        kind,
                        ov_circuit(earlier, h1).W,
                    )
                    for h1 in range(earlier.n_heads)
                ]
                for h2 in range(later.n_heads)
            ]
        )  # (later heads, earlier heads)
    return scores


def composition_baseline(
    d_model: int, d_key: int, n_draws: int = 1000, seed: int = 0
) -> dict[str, tuple[float, float]]:
    """The composition scores of unrelated heads: ``n_draws`` pairs of random
    heads of ``d_key`` features in ``d_model`` (every weight drawn from a
    standard normal, seeded), scored as :func:`composition` scores trained
    ones. Returns ``{kind: (mean, 95th percentile)}``; the score does not
    depend on the weights' scale, so this is the baseline for any layer of
    these shapes."""
    check_int("d_model", d_model)
    check_int("d_key", d_key, maximum=d_model)
    check_int("n_draws", n_draws)
    check_int("seed", seed, minimum=0)
    generator = torch.Generator().manual_seed(seed)

    def low_rank() -> torch.Tensor:  # (d_model, d_key) @ (d_key, d_model)
        a, b = torch.randn(2, d_key, d_model, generator=generator, dtype=torch.float64)
        return a.T @ b

    found = {kind: [] for kind in COMPOSITIONS}
    for _ in range(n_draws):
        later, earlier_ov = low_rank(), low_rank()
        for kind in COMPOSITIONS:
            found[kind].append(composition(later, kind, earlier_ov))
    return {
        kind: (
            float(torch.tensor(v).mean()),
            float(torch.tensor(v).quantile(0.95)),
        )
        for kind, v in found.items()
    }

"""Moving weights between the package's layers and PyTorch's: the attention layer
(:func:`to_torch`, :func:`from_torch`) and the Transformer blocks (:func:`to_torch_block`).

``nn.MultiheadAttention`` keeps the three input projections in one packed
matrix: ``in_proj_weight`` is ``Wq``, ``Wk`` and ``Wv`` stacked row-wise,
``(3 * d_model, d_model)``, and ``in_proj_bias`` their biases,
``(3 * d_model,)``; the output projection is ``out_proj``.
"""

from __future__ import annotations

import torch
from torch import nn

from mha.attention import MultiHeadAttention
from mha.block import DecoderBlock, EncoderBlock


def packed_in_proj(layer: MultiHeadAttention) -> tuple[torch.Tensor, torch.Tensor]:
    """``Wq``, ``Wk`` and ``Wv`` of ``layer`` stacked row-wise, as PyTorch
    packs them: ``in_proj_weight (3*d_model, d_model)`` and
    ``in_proj_bias (3*d_model,)``."""
    projections = (layer.Wq, layer.Wk, layer.Wv)
    weight = torch.cat([w.weight for w in projections])  # (3*d_model, d_model)
    bias = torch.cat([w.bias for w in projections])  # (3*d_model,)
    return weight, bias


def to_torch(
    layer: MultiHeadAttention, batch_first: bool = True
) -> nn.MultiheadAttention:
    """A ``nn.MultiheadAttention`` computing exactly what ``layer`` computes
    (a layer whose heads are ``d_model // n_heads`` wide, PyTorch's only width).

    The copy has the same dropout probability, dtype, device, training/eval
    mode and ``requires_grad`` setting as ``layer``.
    """
    if not isinstance(layer, MultiHeadAttention):
        raise TypeError(
            f"layer must be a mha.MultiHeadAttention, got {type(layer).__name__}"
        )
    if not isinstance(batch_first, bool):
        raise TypeError(
            f"batch_first must be a bool, got {type(batch_first).__name__} {batch_first!r}"
        )
    if layer.n_heads * layer.d_key != layer.d_model:
        raise ValueError(
            "layer must have heads of d_key = d_model // n_heads features, the only "
            f"width nn.MultiheadAttention has, got d_model={layer.d_model}, "
            f"n_heads={layer.n_heads}, d_key={layer.d_key}"
        )
    weight = layer.Wq.weight
    torch_layer = nn.MultiheadAttention(
        layer.d_model,
        layer.n_heads,
        dropout=layer.dropout.p,
        batch_first=batch_first,
        device=weight.device,
        dtype=weight.dtype,
    )
    in_weight, in_bias = packed_in_proj(layer)
    with torch.no_grad():
        torch_layer.in_proj_weight.copy_(in_weight)
        torch_layer.in_proj_bias.copy_(in_bias)
        torch_layer.out_proj.weight.copy_(layer.Wo.weight)
        torch_layer.out_proj.bias.copy_(layer.Wo.bias)
    torch_layer.requires_grad_(weight.requires_grad)
    return torch_layer.train(layer.training)


def from_torch(torch_layer: nn.MultiheadAttention) -> MultiHeadAttention:
    """A `mha.attention.MultiHeadAttention` computing exactly what ``torch_layer`` computes.

    Only layers with one packed input projection, biases, and no ``bias_k`` /
    ``add_zero_attn`` extras can be represented. The returned layer always
    takes batch-first input ``(batch, seq_len, d_model)``, whatever
    ``torch_layer.batch_first`` is.
    """
    if not isinstance(torch_layer, nn.MultiheadAttention):
        raise TypeError(
            f"torch_layer must be a nn.MultiheadAttention, got {type(torch_layer).__name__}"
        )
    # What a mha.MultiHeadAttention cannot hold, each with what this layer has.
    unsupported = {
        f"kdim and vdim equal to embed_dim={torch_layer.embed_dim} (one packed "
        f"in_proj_weight), got kdim={torch_layer.kdim}, vdim={torch_layer.vdim}": (
            torch_layer.in_proj_weight is None
        ),
        "biases on its projections, got bias=False": torch_layer.in_proj_bias is None,
        "no bias_k/bias_v, got add_bias_kv=True": torch_layer.bias_k is not None,
        "no add_zero_attn, got add_zero_attn=True": torch_layer.add_zero_attn,
    }
    for needed, missing in unsupported.items():
        if missing:
            raise ValueError(f"torch_layer must have {needed}")
    d_model = torch_layer.embed_dim
    weight = torch_layer.in_proj_weight
    layer = MultiHeadAttention(
        d_model, torch_layer.num_heads, dropout=torch_layer.dropout
    )
    layer.to(device=weight.device, dtype=weight.dtype)
    wq, wk, wv = torch_layer.in_proj_weight.chunk(3)  # each (d_model, d_model)
    bq, bk, bv = torch_layer.in_proj_bias.chunk(3)  # each (d_model,)
    with torch.no_grad():
        for linear, w, b in (
            (layer.Wq, wq, bq),
            (layer.Wk, wk, bk),
            (layer.Wv, wv, bv),
            (layer.Wo, torch_layer.out_proj.weight, torch_layer.out_proj.bias),
        ):
            linear.weight.copy_(w)
            linear.bias.copy_(b)
    layer.requires_grad_(torch_layer.in_proj_weight.requires_grad)
    return layer.train(torch_layer.training)


def to_torch_block(block: EncoderBlock | DecoderBlock) -> nn.Module:
    """PyTorch's own layer with ``block``'s weights, computing what ``block`` computes.

    An :class:`~mha.block.EncoderBlock` gives ``nn.TransformerEncoderLayer``, a
    :class:`~mha.block.DecoderBlock` ``nn.TransformerDecoderLayer``; both are made with
    ``batch_first=True``, ``norm_first=False`` (post-norm) and
    ``activation="relu"``, and take the block's dropout, dtype, device,
    training/eval mode and ``requires_grad`` setting. PyTorch's masks follow
    its own convention (``True`` = blocked, see :mod:`mha.masks`), and its
    decoder layer applies no causal mask unless given one (``tgt_mask``).
    """
    if not isinstance(block, (EncoderBlock, DecoderBlock)):
        raise TypeError(
            f"block must be a mha.block.EncoderBlock or DecoderBlock, got {type(block).__name__}"
        )
    ff = block.feed_forward
    weight = ff.linear1.weight
    settings = {
        "d_model": block.d_model,
        "dim_feedforward": ff.linear1.out_features,
        "dropout": block.dropout.p,
        "activation": "relu",
        "batch_first": True,
        "norm_first": False,
        "device": weight.device,
        "dtype": weight.dtype,
    }
    if isinstance(block, EncoderBlock):
        layer = nn.TransformerEncoderLayer(nhead=block.n_heads, **settings)
        pairs = [(layer.self_attn, to_torch(block.attention))]
    else:
        layer = nn.TransformerDecoderLayer(nhead=block.n_heads, **settings)
        pairs = [
            (layer.self_attn, to_torch(block.self_attention)),
            (layer.multihead_attn, to_torch(block.cross_attention)),
            (layer.norm3, block.norm3),
        ]
    pairs += [
        (layer.linear1, ff.linear1),
        (layer.linear2, ff.linear2),
        (layer.norm1, block.norm1),
        (layer.norm2, block.norm2),
    ]
    with torch.no_grad():
        for theirs, ours in pairs:
            theirs.load_state_dict(ours.state_dict())
    layer.requires_grad_(weight.requires_grad)
    return layer.train(block.training)

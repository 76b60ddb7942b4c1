"""Write the book's three diagrams, book/images/*.svg (run after changing one).

    python scripts/diagrams.py

Each is drawn 440 units wide with text of 12 units or more, so that in a
phone's column (360 px) its smallest text is still about 10 px; the page
shows it wider on a desk (its ``width``, or the figure's ``:width:``). Text
stays text (searchable, sharp at any zoom); each head keeps its colour of
every figure (``mha.plotting.palette.HEAD_COLOURS``).
"""

from __future__ import annotations

from html import escape
from pathlib import Path

from mha.plotting.palette import HEAD_COLOURS

ROOT = Path(__file__).resolve().parents[1]
WIDTH = 440
SANS = "DejaVu Sans, Helvetica, Arial, sans-serif"
MONO = "DejaVu Sans Mono, Menlo, monospace"
BLUE, ORANGE, GREEN, GREY = "#e8eef7", "#fdf1dc", "#e3f2e5", "#f3f3f3"
TINTS = (
    "#d9eaf5",
    "#f7e0d0",
    "#d6efe6",
    "#f3e4ee",
)  # light tints of the heads' colours


def svg(height: int, title: str, description: str, body: list[str], shown: int) -> str:
    """A whole diagram: ``shown`` is the width a desk shows it at."""
    return "\n".join(
        [
            f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {height}" '
            f'width="{shown}" height="{round(height * shown / WIDTH)}" role="img" '
            f'aria-labelledby="t d" font-family="{SANS}">',
            f'<title id="t">{escape(title)}</title>',
            f'<desc id="d">{escape(description)}</desc>',
            f'<rect width="{WIDTH}" height="{height}" fill="#ffffff"/>',
            '<defs><marker id="a" viewBox="0 0 10 10" refX="9" refY="5" '
            'markerWidth="7" markerHeight="7" orient="auto">'
            '<path d="M0,0 L10,5 L0,10 z" fill="#444"/></marker></defs>',
            *body,
            "</svg>",
            "",
        ]
    )


def text(x, y, words, size=13, *, anchor="start", bold=False, mono=False, fill="#111"):
    weight = ' font-weight="bold"' if bold else ""
    family = f' font-family="{MONO}"' if mono else ""
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" text-anchor="{anchor}"{weight}'
        f'{family} fill="{fill}">{escape(words)}</text>'
    )


def box(x, y, w, h, fill, *, rx=8, stroke="#555", thick=1.2, extra=""):
    return (
        f'<rect{extra} x="{x}" y="{y}" width="{w}" height="{h}" rx="{rx}" '
        f'fill="{fill}" stroke="{stroke}" stroke-width="{thick}"/>'
    )


def arrow(x1, y1, x2, y2):
    return (
        f'<line x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="#444" '
        f'stroke-width="1.6" marker-end="url(#a)"/>'
    )


def line(points):
    path = " ".join(f"{x},{y}" for x, y in points)
    return f'<polyline points="{path}" fill="none" stroke="#444" stroke-width="1.6"/>'


def pipeline() -> str:
    steps = [
        ("1. Three sentences", "“I wonder what will come next!” …", "3 strings", BLUE),
        ("2. Tokens → ids", "lowercase, strip punctuation, look up", "(3, 6)", BLUE),
        ("3. Embeddings + positions", "lookup × √d_model, + sinusoids", "X: (3, 6, 8)", BLUE),
        ("4. Queries, keys, values", "Q = X Wqᵀ + bq, and K, V alike", "(3, 6, 8) each", ORANGE),
        ("5. Split into heads", "view (3, 6, 4, 2), permute", "(3, 4, 6, 2)", ORANGE),
        ("6. Scores and softmax", "Q Kᵀ / √d_key, softmax over keys", "(3, 4, 6, 6)", ORANGE),
        ("7. Weight the values", "attention probabilities · V", "(3, 4, 6, 2)", ORANGE),
        ("8. Merge heads, project", "permute, reshape, then Wo", "(3, 6, 8)", GREEN),
    ]  # fmt: skip
    body, y, h, gap = [], 8, 58, 16
    for i, (title, detail, shape, fill) in enumerate(steps):
        body += [
            box(8, y, WIDTH - 16, h, fill),
            text(20, y + 23, title, 15, bold=True),
            text(20, y + 45, detail, 13, fill="#333"),
            text(WIDTH - 20, y + 45, shape, 13, anchor="end", mono=True),
        ]
        if i < len(steps) - 1:
            body.append(arrow(WIDTH / 2, y + h, WIDTH / 2, y + h + gap - 1))
        y += h + gap
    description = (
        "Eight steps from three sentences to the attention output, each with the "
        "shape of its result: token ids (3, 6); X (3, 6, 8); Q, K and V (3, 6, 8) "
        "each; split into four heads (3, 4, 6, 2); scores and softmax "
        "(3, 4, 6, 6); weighted values (3, 4, 6, 2); merged heads and output "
        "projection (3, 6, 8)."
    )
    return svg(
        y - gap + 8,
        "The multi-head attention pipeline of the running example",
        description,
        body,
        560,
    )


def multihead() -> str:
    body = [
        box(80, 8, 280, 48, BLUE),
        text(220, 29, "X: query, key and value", 15, anchor="middle", bold=True),
        text(220, 48, "(3, 6, 8)", 13, anchor="middle", mono=True),
        line([(220, 56), (220, 70)]),
        line([(59, 70), (381, 70)]),
    ]
    col, gap, top, h = 100, 7, 84, 258
    for head in range(4):
        x = 8 + head * (col + gap)
        mid = x + col / 2
        frame = f' data-head="{head}"'  # (the head's colour, checked by a test)
        body += [
            arrow(mid, 70, mid, top - 1),
            box(
                x,
                top,
                col,
                h,
                TINTS[head],
                stroke=HEAD_COLOURS[head],
                thick=2.4,
                extra=frame,
            ),
            text(mid, top + 22, f"head {head}", 15, anchor="middle", bold=True),
            text(
                mid,
                top + 40,
                f"features {2 * head}–{2 * head + 1}",
                12,
                anchor="middle",
            ),
            box(x + 10, top + 52, col - 20, 44, "#ffffff", rx=5),
            text(mid, top + 70, "Wq Wk Wv", 13, anchor="middle", mono=True, bold=True),
            text(mid, top + 88, "8 → 2 each", 13, anchor="middle"),
            arrow(mid, top + 96, mid, top + 113),
            text(mid, top + 128, "Q, K, V", 13, anchor="middle"),
            text(mid, top + 145, "(3, 6, 2)", 13, anchor="middle", mono=True),
            arrow(mid, top + 151, mid, top + 167),
            box(x + 10, top + 168, col - 20, 44, "#ffffff", rx=5),
            text(mid, top + 186, "attention", 13, anchor="middle"),
            text(mid, top + 204, "(3, 6, 6)", 13, anchor="middle", mono=True),
            text(mid, top + 234, "output", 13, anchor="middle"),
            text(mid, top + 250, "(3, 6, 2)", 13, anchor="middle", mono=True),
            arrow(mid, top + h, mid, top + h + 21),
        ]
    y = top + h + 22
    body += [box(8, y, WIDTH - 16, 62, GREY)]
    for head in range(4):
        x = 8 + head * (col + gap) + 18
        body += [
            box(x, y + 8, col - 36, 22, TINTS[head], rx=3, stroke=HEAD_COLOURS[head]),
            text(x + (col - 36) / 2, y + 24, f"{2 * head}–{2 * head + 1}", 13,
                 anchor="middle", mono=True),
        ]  # fmt: skip
    body += [
        text(220, y + 50, "concatenated (merge_heads): (3, 6, 8)", 13, anchor="middle"),
        arrow(220, y + 62, 220, y + 82),
        box(50, y + 83, 340, 48, GREEN),
        text(220, y + 104, "Wo: Linear(8, 8) mixes the heads", 14, anchor="middle", bold=True),
        text(220, y + 122, "output (3, 6, 8)", 13, anchor="middle", mono=True),
        text(220, y + 156, "attention: softmax(Q Kᵀ / √2) · V in each head", 13,
             anchor="middle", fill="#333"),
    ]  # fmt: skip
    description = (
        "The input X of shape (3, 6, 8) serves as query, key and value. It goes to "
        "four heads side by side, each framed in its colour of every figure: head 0 "
        "blue, head 1 vermilion, head 2 green, head 3 purple. Each head h has its own "
        "projections Wq, Wk and Wv, taking 8 features to 2 (rows 2h and 2h+1 of each "
        "weight), giving its Q, K and V of shape (3, 6, 2), and its own scaled "
        "dot-product attention, softmax of Q K transposed over the square root of 2, "
        "times V, with attention maps of shape (3, 6, 6) and an output of shape "
        "(3, 6, 2). The four outputs are concatenated, head h filling features 2h "
        "and 2h+1, into shape (3, 6, 8); the output projection Wo, Linear(8, 8), "
        "mixes them into the output of shape (3, 6, 8)."
    )
    return svg(
        y + 166,
        "Multi-head attention with d_model = 8 and four heads",
        description,
        body,
        560,
    )


def block() -> str:
    col, left, right = 196, 8, 236
    body = [
        text(left + col / 2, 24, "Encoder block", 16, anchor="middle", bold=True),
        text(right + col / 2, 24, "Decoder block", 16, anchor="middle", bold=True),
    ]
    pale, attend, norm, ff = BLUE, "#cfe3f5", "#f8e3a3", "#cdeedd"
    encoder = [
        ("encoder tokens", "(1, 6, 8)", pale, True),
        ("self-attention", "all tokens see all tokens", attend, False),
        ("add & LayerNorm", None, norm, False),
        ("feed-forward", "each token: 8 → 32 → 8", ff, False),
        ("add & LayerNorm", None, norm, False),
        ("memory", "(1, 6, 8)", pale, True),
    ]
    decoder = [
        ("decoder tokens", "(1, 4, 8)", pale, True),
        ("causal self-attention", "token i sees tokens 0 … i", attend, False),
        ("add & LayerNorm", None, norm, False),
        ("cross-attention", "keys, values: the memory", attend, False),
        ("add & LayerNorm", None, norm, False),
        ("feed-forward", "each token: 8 → 32 → 8", ff, False),
        ("add & LayerNorm", None, norm, False),
        ("output", "(1, 4, 8)", pale, True),
    ]
    h, step = 44, 66
    centres = {}
    for x, boxes, side in ((left, encoder, "e"), (right, decoder, "d")):
        mid = x + col / 2
        for i, (name, detail, fill, rounded) in enumerate(boxes):
            y = 40 + i * step
            body.append(box(x, y, col - 18, h, fill, rx=22 if rounded else 6))
            centres[side, i] = (mid - 9, y)
            if detail is None:
                body.append(text(mid - 9, y + 27, name, 13, anchor="middle"))
            else:
                body.append(text(mid - 9, y + 19, name, 13, anchor="middle", bold=True))
                body.append(text(mid - 9, y + 36, detail, 13, anchor="middle",
                                 mono=rounded))  # fmt: skip
            if i:
                body.append(arrow(mid - 9, y - step + h, mid - 9, y - 1))
        # The residual connections: from above each sublayer round to its norm.
        for i, (name, *_rest) in enumerate(boxes):
            if name.startswith("add"):
                top = 40 + (i - 1) * step - 11
                bottom = 40 + i * step + h / 2
                edge = x + col - 18
                body += [
                    line([(mid - 9, top), (edge + 12, top), (edge + 12, bottom)]),
                    arrow(edge + 12, bottom, edge + 1, bottom),
                ]
    # The memory into the cross-attention.
    _, memory_y = centres["e", 5]
    _, cross_y = centres["d", 3]
    body += [
        line([(left + col - 18, memory_y + h / 2), (left + col + 8, memory_y + h / 2),
              (left + col + 8, cross_y + h / 2)]),
        arrow(left + col + 8, cross_y + h / 2, right - 1, cross_y + h / 2),
    ]  # fmt: skip
    description = (
        "Two columns of boxes joined by arrows, read from top to bottom. Left, the "
        "encoder block: the encoder's tokens (1, 6, 8) go through multi-head "
        "self-attention, then add and LayerNorm, then the feed-forward network (8 "
        "to 32 to 8), then add and LayerNorm, giving the memory (1, 6, 8). Right, "
        "the decoder block: the decoder's tokens (1, 4, 8) go through causal "
        "self-attention, add and LayerNorm, cross-attention, add and LayerNorm, "
        "feed-forward, add and LayerNorm, giving the output (1, 4, 8). An arrow "
        "from the memory enters the cross-attention: its keys and values come from "
        "the encoder, its queries from the decoder. Beside every attention and "
        "feed-forward box a line skips the box and joins the add and LayerNorm box "
        "below it: the residual connection."
    )
    height = 40 + (len(decoder) - 1) * step + h + 10
    return svg(height, "An encoder block and a decoder block", description, body, 600)


def main() -> None:
    for name, draw in (
        ("pipeline", pipeline),
        ("multihead", multihead),
        ("block", block),
    ):
        (ROOT / "book" / "images" / f"{name}.svg").write_text(draw())


if __name__ == "__main__":
    main()

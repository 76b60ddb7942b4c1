"""Does the unit suite catch a bug? Each mutation below puts one deliberate bug
into a copy of the package, runs the unit tests on that copy and counts the
tests that fail. A mutation that no test notices is a gap in the tests.

    python scripts/mutations.py            # every mutation (a few minutes)
    python scripts/mutations.py causal     # the mutations whose name holds "causal"

It prints a markdown table (the README's, under "What the unit tests catch")
and exits with 1 if a mutation survived or no longer applies to the code. The
unit tests must pass on the package as it is (it checks that first).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (what the bug is, file under src/mha/, the code, the code with the bug)
MUTATIONS = [
    ("scores divided by d_key, not √d_key", "attention.py",
     "Q = Q / math.sqrt(d_key)", "Q = Q / d_key"),
    ("softmax over the queries, not the keys", "attention.py",
     "softmax(dim=-1)", "softmax(dim=-2)"),
    ("the mask ignored", "attention.py",
     'scores = scores.masked_fill(~allowed, float("-inf"))', "scores = scores"),
    ("the heads merged in the reverse order", "attention.py",
     "x = x.transpose(1, 2)  # (batch, seq_len, n_heads, d_key)",
     "x = x.flip(1).transpose(1, 2)"),
    ("the positional encoding shifted by one position", "embedding.py",
     "position = torch.arange(max_length, dtype=f64)",
     "position = 1 + torch.arange(max_length, dtype=f64)"),
    ("the padding mask's polarity flipped", "masks.py",
     "return (ids != pad_id)[:, None, None, :]", "return (ids == pad_id)[:, None, None, :]"),
    ("the causal mask turned into its opposite (the future)", "masks.py",
     "return ones.tril()", "return ones.triu()"),
    ("PyTorch's attn_mask given our polarity", "masks.py",
     "return ~one.expand(q_len, k_len)", "return one.expand(q_len, k_len)"),
    ("the decoder ignores the memory's padding", "block.py",
     "self.cross_attention(x, memory, memory, memory_mask)",
     "self.cross_attention(x, memory, memory, None)"),
    ("the block converter forgets a LayerNorm", "interop.py",
     "(layer.norm2, block.norm2),", ""),
    ("errors name no argument (every int check)", "_checks.py",
     'raise ValueError(f"{name} must be an int {wanted}, got {value}")',
     'raise ValueError(f"must be an int {wanted}, got {value}")'),
    ("a 7-point legend", "plotting/scores.py",
     'ax_max.legend(fontsize=9', 'ax_max.legend(fontsize=7'),
    ("8-point numbers in the heatmaps' cells", "plotting/heatmap.py",
     "fontsize: float = SMALLEST_TEXT,\n    cmap", "fontsize: float = 8,\n    cmap"),
    ("a figure wider than the text column", "plotting/merge.py",
     "_room(min(COLUMN_WIDTH, 0.62 * d_model", "_room(max(COLUMN_WIDTH, 0.62 * d_model"),
    ("phone layouts as wide as the desk's", "plotting/screens.py",
     "PHONE_WIDTH = 4.5", "PHONE_WIDTH = 7.2"),
    ("blocked keys drawn as weights of 0", "plotting/heatmap.py",
     "        hidden = hidden | blocked", "        hidden = hidden"),
]  # fmt: skip

# The unit tests (`make unit`), but for those of how mha is installed (a
# fresh environment without mha, which the copy on PYTHONPATH would spoil):
# the bugs are in what the package computes.
UNIT = [
    *("make", "--no-print-directory", "unit"),
    "UNIT_OPTIONS=--no-header --ignore tests/test_setup_cell.py "
    "--ignore tests/test_distribution.py",
]


def failures(name: str, path: str, code: str, bug: str) -> int | None:
    """How many unit tests fail with the bug in a copy of the package (None when
    the code to change is no longer there)."""
    with tempfile.TemporaryDirectory() as copy:
        shutil.copytree(ROOT / "src" / "mha", Path(copy) / "mha")
        target = Path(copy) / "mha" / path
        text = target.read_text()
        if code not in text:
            return None
        target.write_text(text.replace(code, bug))
        env = {**os.environ, "PYTHONPATH": copy}  # the copy before the installed one
        run = subprocess.run(UNIT, cwd=ROOT, env=env, capture_output=True, text=True)
    counts = re.findall(r"(\d+) (failed|errors?)\b", run.stdout)
    return sum(int(n) for n, _ in counts)


def main(words: list[str]) -> int:
    if failures("none", "__init__.py", "", ""):
        print("The unit tests fail on the package as it is: fix that first.")
        return 1
    chosen = [m for m in MUTATIONS if all(w in m[0] for w in words)]
    rows = ["| deliberate bug | in | unit tests that fail |", "|---|---|---:|"]
    gaps = 0
    for name, path, code, bug in chosen:
        failed = failures(name, path, code, bug)
        gaps += not failed
        shown = "the code changed: update the mutation" if failed is None else failed
        rows.append(f"| {name} | `{path}` | {shown} |")
        print(rows[-1], file=sys.stderr, flush=True)
    print("\n".join(rows))
    return 1 if gaps else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

"""`make weights`: retrain the models whose weights ship with the package, save
them into the package, and say what each learned.

    python scripts/weights.py                 # both tasks
    python scripts/weights.py previous_word   # the previous-word models only
    python scripts/weights.py neighbours      # the neighbours models only

On another processor, training gives other weights (float32 training amplifies
rounding differences) that learned the same thing: compare the behaviour
printed here, not the digits of the files.
"""

import sys

from mha.training import (
    NEIGHBOURS_FILE,
    WEIGHTS_FILE,
    save_trained,
    save_trained_neighbours,
)


def previous_word() -> None:
    for n_heads, learned in save_trained().items():
        print(
            f"copy the previous word, {n_heads} head(s): accuracy {learned['accuracy']:.1%}, "
            f"best head's attention on the previous word {learned['share']:.2f}"
        )
    print(f"Saved to {WEIGHTS_FILE.name}.")


def neighbours() -> None:
    for (n_heads, seed), learned in save_trained_neighbours().items():
        heads = (
            f"head {learned['previous_head']} looks back ({learned['previous_share']:.2f}), "
            f"head {learned['next_head']} ahead ({learned['next_share']:.2f})"
        )
        print(
            f"name both neighbours, {n_heads} head(s), seed {seed}: accuracy "
            f"{learned['previous']:.1%} previous, {learned['next']:.1%} next; {heads}"
        )
    print(f"Saved to {NEIGHBOURS_FILE.name}.")


TASKS = {"previous_word": previous_word, "neighbours": neighbours}

if __name__ == "__main__":
    chosen = sys.argv[1:] or list(TASKS)
    unknown = [name for name in chosen if name not in TASKS]
    if unknown:
        sys.exit(f"unknown task {unknown[0]!r}; choose from {', '.join(TASKS)}")
    for name in chosen:
        TASKS[name]()

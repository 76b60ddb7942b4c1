"""`make weights`: retrain the models whose weights ship with the package, save
them into the package, and say what each learned.

    python scripts/weights.py                # every task
    python scripts/weights.py agreement      # one task (or several, by name)

Every task trains a model for each of its depths (one layer, or two on a
residual stream), each of its head counts (and head widths, where it has
layouts) and each of its seeds; on another
processor, training gives other weights (float32 training
amplifies rounding differences) that learned the same thing: compare the
behaviour printed here, not the digits of the files. The fronted task's
file also holds the controls of its chapter (``variants.VARIANTS``).
"""

import sys

from mha import training
from mha.training import variants

TASKS = {
    task.name: task
    for task in (
        training.PREVIOUS_WORD,
        training.NEIGHBOURS,
        training.AGREEMENT,
        training.FRONTED,
        training.INDUCTION,
    )
}


def report(task: training.Task) -> None:
    print(f"{task.name}: {task.asks}")
    for (n_layers, n_heads, d_key, seed), learned in training.loop.save(task).items():
        answers = ", ".join(
            f"{name} {learned['accuracy'][name]:.1%} (head {learned['head'][name]}: "
            f"{learned['share'][name][learned['head'][name]]:.2f} on its key)"
            for name in task.answers
        )
        hard = "".join(
            f", {learned['hard'][name]:.1%} where the decoy misleads"
            for name in learned.get("hard", {})
        )
        layers = "" if task.depths == (1,) else f"{n_layers} layer(s), "
        width = "" if d_key is None else f" of {d_key} feature(s)"
        print(
            f"  {layers}{n_heads} head(s){width}, seed {seed}: joint {learned['joint']:.1%}; "
            f"{answers}{hard}"
        )
    if task is training.FRONTED:  # the chapter's controls, in the same file
        for (variant, seed), right in variants.save_variants().items():
            print(
                f"  {variant}, seed {seed}: {right:.1%} of held-out fronted sentences"
            )
    print(f"  saved to {task.weights_file.name}")


if __name__ == "__main__":
    chosen = sys.argv[1:] or list(TASKS)
    unknown = [name for name in chosen if name not in TASKS]
    if unknown:
        sys.exit(f"unknown task {unknown[0]!r}; choose from {', '.join(TASKS)}")
    for name in chosen:
        report(TASKS[name])

"""`make weights`: retrain the previous-word models the explorer shows, save
their weights into the package, and say what each learned."""

from mha.training import WEIGHTS_FILE, save_trained

if __name__ == "__main__":
    for n_heads, learned in save_trained().items():
        print(
            f"{n_heads} head(s): accuracy {learned['accuracy']:.1%}, "
            f"best head's attention on the previous word {learned['share']:.2f}"
        )
    print(
        f"Saved to {WEIGHTS_FILE.name}. On another processor, training gives other "
        "weights (float32 training amplifies rounding differences) that learned the "
        "same thing: compare the numbers above, not the digits of the file."
    )

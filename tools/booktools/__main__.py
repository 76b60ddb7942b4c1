"""The tooling from the command line (the Makefile's way in):

python -m booktools notebooks       the chapters of _toc.yml, in order
python -m booktools run STAGE...    stages of `make test` (--other-machine:
                                    on PyTorch's baseline kernels)
python -m booktools test            `make test`: every stage, timed
"""

from __future__ import annotations

import subprocess
import sys

from booktools import book, stages


def main(argv: list[str]) -> None:
    if argv == ["notebooks"]:
        print(" ".join(str(path.relative_to(book.ROOT)) for path in book.notebooks()))
    elif argv[:1] == ["run"] and len(argv) > 1:
        other = "--other-machine" in argv
        for stage in [a for a in argv[1:] if a != "--other-machine"]:
            try:
                stages.run(stage, other_machine=other)
            except subprocess.CalledProcessError as error:
                raise SystemExit(error.returncode) from None
            except ValueError as error:
                raise SystemExit(str(error)) from None
    elif argv == ["test"]:
        stages.test()
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

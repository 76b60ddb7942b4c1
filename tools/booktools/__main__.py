"""The chapters' list from the command line (the Makefile's way in):

python -m booktools notebooks                  the chapters of _toc.yml, in order
python -m booktools notebooks --longest-first  those that train or time first
"""

from __future__ import annotations

import sys

from booktools import book


def main(argv: list[str]) -> None:
    if argv and argv[0] == "notebooks" and set(argv[1:]) <= {"--longest-first"}:
        chapters = book.notebooks()
        if argv[1:]:
            chapters = book.longest_first(chapters)
        print(" ".join(str(path.relative_to(book.ROOT)) for path in chapters))
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])

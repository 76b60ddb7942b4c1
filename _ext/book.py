"""The book's own Sphinx extensions, one module a concern (each one's
docstring says what it does and why):

- ``book_layout``: the page template; every script deferred;
- ``book_descriptions``: a description for every page;
- ``book_images``: images with their size, loaded lazily;
- ``book_phone``: on a phone, figures in their phone layout and wide tables that
  stay tables;
- ``book_exercises``: exercises that carry their number for JupyterLab, and
  solutions whose link to their exercise does not start with a space;
- ``book_code``: long inline code breaks after its dots;
- ``book_math``: formulas written out as MathML when the book is built;
- ``book_api``: the API page's constants documented as constants, not as
  the functions their objects could be called as;
- ``book_fonts``: the web fonts cut down to the book's characters;
- ``citation_roles``: the bibliography as a list to assistive technology;
- ``repository_buttons``: the repository and launch buttons, when the book
  has an address.

``_config.yml`` names this module only; it loads the others.
"""

from __future__ import annotations

EXTENSIONS = (
    "book_layout",
    "book_descriptions",
    "book_images",
    "book_phone",
    "book_exercises",
    "book_code",
    "book_math",
    "book_api",
    "book_fonts",
    "citation_roles",
    "repository_buttons",
)


def setup(app):
    for name in EXTENSIONS:
        app.setup_extension(name)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

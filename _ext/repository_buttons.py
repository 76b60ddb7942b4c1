"""Sphinx extension: the repository's buttons and the launch buttons appear
exactly when the book has an address.

``repository.url`` in ``_config.yml`` is the one place the book's address is
written. Jupyter Book refuses ``use_repository_button: true`` without an
address, and the theme cannot build a launch button (Binder, Colab) without
one, so ``_config.yml`` sets neither: this extension does, when the
configuration is read.

- With an address: the repository, issues and edit-page buttons are on, and
  the launch buttons of ``launch_buttons`` point at the repository.
- Without: no repository button and no launch button (the theme would fail
  on them); the rest of the book is unchanged.
"""

from __future__ import annotations

from typing import Any

REPOSITORY_BUTTONS = (
    "use_repository_button",
    "use_issues_button",
    "use_edit_page_button",
)
LAUNCHERS = (
    "binderhub_url",
    "colab_url",
    "jupyterhub_url",
    "deepnote_url",
    "jupyterlite_url",
)


def configure_buttons(app: Any, config: Any) -> None:
    """``config-inited``: switch the buttons on or off from ``repository_url``."""
    options = config.html_theme_options
    url = options.get("repository_url") or ""
    if not isinstance(url, str):
        raise TypeError(
            f"repository.url in _config.yml must be a string (an https:// "
            f"address, or empty); got {url!r}"
        )
    has_address = bool(url.strip())
    for button in REPOSITORY_BUTTONS:
        options[button] = has_address
    if not has_address:
        launch = dict(options.get("launch_buttons") or {})
        for key in LAUNCHERS:
            if key in launch:
                launch[key] = ""
        options["launch_buttons"] = launch


def setup(app: Any) -> dict:
    app.connect("config-inited", configure_buttons)
    return {"parallel_read_safe": True, "parallel_write_safe": True}

"""Showing text that came from a person's file without letting it become markup."""

from __future__ import annotations

import re

_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]<>()#+\-.!|~$])")


def md_escape(text: str) -> str:
    """Escape Markdown so a file name or cell value is shown literally."""
    return _MD_SPECIAL.sub(r"\\\1", str(text))


def html_escape(text: str) -> str:
    """Escape text for Plotly hover labels, which understand a few HTML tags."""
    import html

    return html.escape(str(text), quote=False)

"""Waiting for a Streamlit server the tests or a benchmark started: one loop for every caller."""

from __future__ import annotations

import time
import urllib.request


def wait_healthy(url: str, proc, tries: int = 600) -> str | None:
    """Poll ``url``'s /_stcore/health every 0.1 s until it answers 200: None then, else a sentence saying why not
    (the process ``proc`` ended, or ``tries`` polls went unanswered)."""
    for _ in range(tries):
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=1) as r:
                if r.status == 200:
                    return None
        except OSError:
            if proc.poll() is not None:
                return f"the server stopped (exit {proc.returncode})"
            time.sleep(0.1)
    return f"{url} did not answer /_stcore/health"

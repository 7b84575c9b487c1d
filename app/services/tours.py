"""Every topic page's guided tour: steps made of settings of the page's own controls.

A step names controls by their session-state keys (each bound to the URL) and the values to give them; a
control of the tour that a step does not name goes back to its default. The texts say what to look at,
in the terms of the source each page follows.
"""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Step:
    title: str
    text: str
    settings: dict = field(default_factory=dict)


TOURS: dict[str, list[Step]] = {}

TOURS["man"] = [
    Step("Torn", "With **B = 5** the neighbourhoods barely overlap: the map breaks into strips that LLE lays "
         "out side by side, and trustworthiness drops.", {"man.B": 5}),
    Step("Unrolled", "At **B = 12** the neighbourhoods overlap along the whole sheet: the roll is laid flat and "
         "the colour (position along the roll) runs smoothly from one end to the other.", {"man.B": 12}),
    Step("Folded", "With **B = 40** the neighbourhoods reach across the roll's layers (the red edges jump "
         "between them in the 3-D view): the map folds the layers onto each other.",
         {"man.B": 40, "man.graph": True}),
    Step("Thick", "Noise of **0.5** makes the sheet thick: LLE reproduces the noise, and the map at B = 12 is "
         "no longer a clean rectangle.", {"man.B": 12, "man.noise": 0.5}),
]

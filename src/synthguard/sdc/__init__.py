"""Traditional statistical disclosure control: the baselines every release is compared against.

Course book ch. 1 lists the traditional methods — suppression, swapping, generalisation
(coarsening, top/bottom coding), noise infusion and sampling — and warns that they limit
utility. Each function here takes the confidential DataFrame (never mutated) and returns a
:class:`ProtectedData` holding the release and a record of what changed, so the utility
and risk modules measure it exactly as they measure synthetic and DP releases.
"""

from synthguard.sdc.generalize import generalize
from synthguard.sdc.noise import add_noise
from synthguard.sdc.pram import invariant_transition_matrix, pram, pram_frequencies
from synthguard.sdc.result import ProtectedData
from synthguard.sdc.sample import subsample
from synthguard.sdc.suppress import suppress, suppress_cells
from synthguard.sdc.swap import swap
from synthguard.sdc.topcode import bottomcode, topcode

__all__ = [
    "ProtectedData",
    "add_noise",
    "bottomcode",
    "generalize",
    "invariant_transition_matrix",
    "pram",
    "pram_frequencies",
    "subsample",
    "suppress",
    "suppress_cells",
    "swap",
    "topcode",
]

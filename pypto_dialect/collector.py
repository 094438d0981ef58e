"""
Pausing Python's cyclic garbage collector while a pass runs.

A pass that creates or inspects tens of thousands of ops allocates more
objects than the rest of the process holds, so CPython runs full collections
in the middle of it, each walking the whole heap: about half the time of a
large lowering. IR is freed by reference counting (use lists and parent
links form cycles, but nothing a pass drops needs collecting before it
ends), so both passes pause the collector for the duration of `apply` and
restore its previous state afterwards, whatever happens.
"""

from __future__ import annotations

import gc
from collections.abc import Generator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Generator[None]:
    """Disable the cyclic collector inside the block; re-enable it if it was on."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()

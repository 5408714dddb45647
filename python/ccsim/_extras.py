"""Optional dependencies: the features that need them import them through `require`, which turns a
missing package into one clear error naming the extra to install (`pip install 'ccsim[dask]'`)."""

from __future__ import annotations

import importlib
from types import ModuleType

from .errors import CcsimError


def require(module: str, extra: str, feature: str) -> ModuleType:
    """``module``, imported; ``CcsimError`` naming ``pip install 'ccsim[extra]'`` if it is missing."""
    try:
        return importlib.import_module(module)
    except ImportError:
        package = module.split(".")[0]
        raise CcsimError(f"{feature} needs {package}, an optional dependency: pip install 'ccsim[{extra}]'") from None

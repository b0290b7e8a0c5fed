"""Where the parts of the package are, and where builds go.

The code of each part lives in its own folder (``hw/``, ``firmware/``, ...) mapped into the
``slitherlink`` namespace; in a source checkout they are the repository's folders, in an
installed package the folders under ``site-packages/slitherlink``.  Nothing else may assume
that the folders are side by side: use :func:`part` for a part's folder.

Builds (firmware images, Verilator models, reports) go under :func:`build_root`: the
checkout's ``build/`` folder, or ``~/.cache/slitherlink`` for an installed package, or
``$SLK_BUILD_DIR`` when it is set.
"""

import importlib.util
import os
from pathlib import Path

__all__ = ["part", "checkout", "build_root", "puzzles"]


def part(name):
    """The folder of ``slitherlink.<name>`` (e.g. ``part("firmware")``, ``part("sim.vboard")``)."""
    spec = importlib.util.find_spec(f"slitherlink.{name}")
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"slitherlink.{name} is not a package")
    return Path(list(spec.submodule_search_locations)[0]).resolve()


def checkout():
    """The repository's root when the package runs from a source checkout, else None."""
    root = part("hw").parent
    pyproject = root / "pyproject.toml"
    if pyproject.is_file() and 'name = "slitherlink-fpga"' in pyproject.read_text():
        return root
    return None


def build_root():
    """The folder builds are cached in (created on first use by whoever writes there)."""
    if os.environ.get("SLK_BUILD_DIR"):
        return Path(os.environ["SLK_BUILD_DIR"]).resolve()
    root = checkout()
    if root is not None:
        return root / "build"
    cache = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return cache / "slitherlink"


def puzzles():
    """The puzzle corpus: ``$SLK_PUZZLES``, else ``../shared/puzzles`` beside the checkout."""
    if os.environ.get("SLK_PUZZLES"):
        return Path(os.environ["SLK_PUZZLES"])
    root = checkout() or Path.cwd()
    return root.parent / "shared" / "puzzles"

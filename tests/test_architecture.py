"""The layers of the system and the one direction of every import (docs/architecture.md).

Each top-level folder is one part of the system and one subpackage of ``slitherlink``.  The
specification (``spec``) imports nothing of ours; the gateware (``hw``) and the host (``host``)
both import it and never each other.  This test reads every module's imports with ``ast`` (the
lazy ones inside functions too) and fails on an import against the arrows of LAYERS.
"""

import ast
from pathlib import Path

import pytest

import slitherlink

REPO = Path(__file__).resolve().parent.parent

#: part -> the parts it may import (besides itself).  docs/architecture.md draws this.
LAYERS = {
    "spec": set(),
    "model": {"spec"},
    "hw": {"spec"},
    "firmware": {"spec"},
    "host": {"spec", "model"},
    "sim": {"spec", "model", "hw", "firmware", "boards", "host"},
    "boards": {"spec", "hw", "firmware"},
    "bench": {"spec", "model", "hw", "firmware", "host", "sim", "boards"},
}
#: modules of the namespace's root that every part may use (where folders and builds are)
COMMON = {"paths"}
#: the one sanctioned exception: the host starts the virtual board (a device, like a real board)
EXCEPTIONS = {("host", "sim.vboard")}


def _modules():
    for part in LAYERS:
        for path in sorted((REPO / part).rglob("*.py")):
            yield part, path


def _imports(path):
    """(line, imported module) for every absolute ``slitherlink.*`` import and relative import."""
    tree = ast.parse(path.read_text(), filename=str(path))
    package = ".".join(path.relative_to(REPO).with_suffix("").parts[:-1])
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")
                base = base[:len(base) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
                yield node.lineno, "slitherlink." + module
            else:
                yield node.lineno, node.module or ""


def test_every_part_is_a_subpackage():
    for part in LAYERS:
        assert (REPO / part / "__init__.py").exists(), f"{part}/ is not a package"
    assert Path(slitherlink.__file__).name == "__init__.py"


@pytest.mark.parametrize("part", sorted(LAYERS))
def test_imports_follow_the_layers(part):
    wrong = []
    for owner, path in _modules():
        if owner != part:
            continue
        for line, module in _imports(path):
            top = module.split(".")
            if top[0] == "tests":
                wrong.append(f"{path.relative_to(REPO)}:{line}: production code imports the "
                             f"tests ({module})")
                continue
            if top[0] in LAYERS:
                wrong.append(f"{path.relative_to(REPO)}:{line}: 'import {module}' outside the "
                             f"slitherlink namespace")
                continue
            if top[0] != "slitherlink" or len(top) < 2 or top[1] == part:
                continue
            target = top[1]
            if target in LAYERS[part] or target in COMMON:
                continue
            if any(part == a and ".".join(top[1:]).startswith(b) for a, b in EXCEPTIONS):
                continue
            wrong.append(f"{path.relative_to(REPO)}:{line}: {part} imports {module}")
    assert not wrong, "imports against the layers (docs/architecture.md):\n" + "\n".join(wrong)


def test_spec_needs_no_third_party_package():
    """The specification is plain Python: it imports only the standard library."""
    import sys
    stdlib = set(sys.stdlib_module_names)
    wrong = []
    for path in sorted((REPO / "spec").rglob("*.py")):
        for line, module in _imports(path):
            top = module.split(".")[0]
            if top not in stdlib and top != "slitherlink":
                wrong.append(f"{path.relative_to(REPO)}:{line}: {module}")
    assert not wrong, "spec/ must not import third-party packages:\n" + "\n".join(wrong)


def test_no_sys_path_manipulation():
    """Code and tests import the installed package; nobody edits sys.path by hand."""
    wrong = []
    for path in sorted(REPO.rglob("*.py")):
        if any(p in (".venv", "build", ".git") for p in path.relative_to(REPO).parts):
            continue
        text = path.read_text()
        for i, line in enumerate(text.splitlines(), 1):
            if any(f"sys.path.{verb}(" in line for verb in ("insert", "append")):
                wrong.append(f"{path.relative_to(REPO)}:{i}")
    assert not wrong, "sys.path edited by hand:\n" + "\n".join(wrong)


def test_the_tests_mirror_the_parts():
    """Each part's tests are in ``tests/<part>/`` and ``make test-<part>`` runs that folder
    (the Makefile's PARTS); only the tests of the whole (this file, packaging) are at the
    top of ``tests/``."""
    makefile = (REPO / "Makefile").read_text()
    line = next(l for l in makefile.splitlines() if l.startswith("PARTS :="))
    assert line.split(":=")[1].split() == list(LAYERS), "the Makefile's PARTS are not the parts"
    for part in LAYERS:
        assert (REPO / "tests" / part).is_dir(), f"tests/{part}/ is missing"
    loose = sorted(p.name for p in (REPO / "tests").glob("test_*.py"))
    assert loose == ["test_architecture.py", "test_packaging.py"], loose
    for path in (REPO / "tests").rglob("test_*.py"):
        top = path.relative_to(REPO / "tests").parts[0]
        assert top in LAYERS or len(path.relative_to(REPO / "tests").parts) == 1, path

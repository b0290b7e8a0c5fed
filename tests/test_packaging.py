"""The project is a real package: one namespace, a console command, its data files.

``pip install .`` must give a working ``slitherlink`` command anywhere, not only in the
checkout: the wheel is built and installed into a fresh virtual environment (its other
packages borrowed from this one) and run from an empty folder.
"""

import json
import os
import subprocess
import sys
import sysconfig
import tomllib
import zipfile
from pathlib import Path

import pytest

from tests.conftest import HANG_SECONDS

REPO = Path(__file__).resolve().parent.parent
#: seconds before a step (pip, a venv, the console command) is taken to hang: a bound only;
#: with both cores busy making a venv alone took over two minutes
HANG = 900
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
SETUPTOOLS = PYPROJECT["tool"]["setuptools"]


def _folder(package):
    """The repository folder of a dotted package name, through package-dir."""
    mapping = SETUPTOOLS["package-dir"]
    parts = package.split(".")
    for n in range(len(parts), 0, -1):
        head = ".".join(parts[:n])
        if head in mapping:
            return REPO / mapping[head] / Path(*parts[n:])
    raise AssertionError(f"{package} is under no package-dir entry")


def test_every_folder_with_code_is_a_listed_package():
    listed = set(SETUPTOOLS["packages"])
    folders = {_folder(p) for p in listed}
    for package in listed:
        assert (_folder(package) / "__init__.py").is_file(), f"{package}: no __init__.py"
    for top in SETUPTOOLS["package-dir"].values():
        for init in (REPO / top).rglob("__init__.py"):
            if "build" in init.relative_to(REPO).parts:
                continue
            assert init.parent in folders, (f"{init.parent.relative_to(REPO)} has an __init__.py "
                                            f"but is not listed in pyproject.toml's packages")


def test_test_and_plot_tools_are_extras():
    runtime = " ".join(PYPROJECT["project"]["dependencies"])
    for tool in ("pytest", "hypothesis", "matplotlib", "cocotb"):
        assert tool not in runtime, f"{tool} is a runtime dependency; it belongs in an extra"
    extras = PYPROJECT["project"]["optional-dependencies"]
    assert any(d.startswith("pytest") for d in extras["test"])
    assert PYPROJECT["project"]["scripts"]["slitherlink"] == "slitherlink.host.cli:run"


def test_every_dependency_is_pinned_to_a_range():
    """Each requirement names a lowest and a highest version (or one version), so that a
    new major release of a tool cannot change a fresh installation unseen."""
    project = PYPROJECT["project"]
    requirements = [*project["dependencies"],
                    *(r for extra in project["optional-dependencies"].values() for r in extra)]
    for requirement in requirements:
        spec = requirement.split("]")[-1]   # the versions, after any extras
        bounded = "==" in spec or (">=" in spec and "<" in spec)
        assert bounded, f"{requirement}: pin it to a range (>=lowest,<next major)"


@pytest.fixture(scope="module")
def wheel(tmp_path_factory):
    out = tmp_path_factory.mktemp("wheel")
    run = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                          "-q", "-w", str(out), str(REPO)], capture_output=True, text=True,
                         timeout=HANG)
    assert run.returncode == 0, run.stderr[-2000:]
    (path,) = out.glob("slitherlink_fpga-*.whl")
    return path


def test_wheel_holds_the_code_and_the_sources_built_on_the_users_machine(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    for name in ("slitherlink/__init__.py", "slitherlink/spec/protocol.py",
                 "slitherlink/hw/accelerator.py", "slitherlink/host/cli.py",
                 "slitherlink/model/paper.py", "slitherlink/firmware/build.py",
                 "slitherlink/firmware/src/main.c", "slitherlink/firmware/link.ld",
                 "slitherlink/firmware/start.S", "slitherlink/sim/vboard/harness.cpp"):
        assert name in names, f"the wheel lacks {name}"
    for source in (REPO / "firmware" / "src").iterdir():
        assert f"slitherlink/firmware/src/{source.name}" in names
    assert not any(n.startswith(("hw/", "host/", "tests/")) for n in names), \
        "the wheel has top-level packages outside the slitherlink namespace"


@pytest.fixture(scope="module")
def installed(wheel, tmp_path_factory):
    """A fresh venv with the wheel; its dependencies come from this venv through a .pth."""
    venv = tmp_path_factory.mktemp("venv")
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=HANG)
    python = venv / "bin" / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                          capture_output=True, text=True, check=True).stdout.strip()
    # the .pth adds this venv's packages, but not its .pth files (so not the editable checkout)
    Path(site, "borrowed.pth").write_text(sysconfig.get_path("purelib") + "\n")
    run = subprocess.run([str(python), "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                          str(wheel)], capture_output=True, text=True, timeout=HANG)
    assert run.returncode == 0, run.stderr[-2000:]
    return venv


def _command(venv, *args, cwd, timeout=HANG):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "SLK_BUILD_DIR")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{Path(sys.executable).parent}{os.pathsep}{env['PATH']}"
    return subprocess.run([str(venv / "bin" / "slitherlink"), *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=timeout)


def test_console_command_from_the_wheel_solves_with_sat(installed, tmp_path):
    puzzle = tmp_path / "puzzle.txt"
    puzzle.write_text((REPO / "examples" / "loopy_7x7.txt").read_text())
    run = _command(installed, "--engine", "sat", "--unique", "--format", "json", "puzzle.txt",
                   cwd=tmp_path)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["status"] == "solved_unique" and answer["solution"][0] == "###.#.."
    where = subprocess.run([str(installed / "bin" / "python"), "-c",
                            "import slitherlink.host.cli as c; print(c.__file__)"],
                           cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert str(REPO) not in where, f"the command ran the checkout's code ({where.strip()})"


@pytest.mark.slow
def test_console_command_from_the_wheel_solves_on_the_virtual_board(installed, tmp_path):
    """The firmware sources and the harness travel in the wheel and build in a cache."""
    puzzle = tmp_path / "puzzle.txt"
    puzzle.write_text((REPO / "examples" / "loopy_7x7.txt").read_text())
    run = _command(installed, "--engine", "board", "puzzle.txt", cwd=tmp_path, timeout=HANG_SECONDS)
    assert run.returncode == 0, run.stderr
    assert "solved" in run.stdout

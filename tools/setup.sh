#!/usr/bin/env bash
# Set up a fresh machine for this project: a virtual environment with every
# Python package of pyproject.toml (the HDL toolchain, the simulator, the
# RISC-V C compiler and the software solvers all come from PyPI).
# Usage: tools/setup.sh [python] [venv-dir]
set -euo pipefail
python=${1:-python3}
venv=${2:-.venv}
cd "$(dirname "$0")/.."

need() {  # need COMMAND DEBIAN-PACKAGE: install through apt where we are root
    command -v "$1" >/dev/null 2>&1 && return 0
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
        echo "setup: installing $2 (apt)"
        apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$2" >/dev/null
    else
        echo "setup: '$1' is missing; run:  sudo apt-get install $2" >&2
        exit 1
    fi
}

need "$python" python3
need make make
need c++ g++          # Verilator compiles the simulated SoC with the host's C++ compiler

if ! "$python" -c 'import sys; assert sys.version_info >= (3, 10)' 2>/dev/null; then
    echo "setup: Python 3.10 or newer is needed ('$python' is older)" >&2
    exit 1
fi
if [ ! -x "$venv/bin/python" ]; then
    echo "setup: creating the virtual environment $venv"
    if ! "$python" -m venv "$venv"; then
        echo "setup: '$python -m venv' failed; run:  sudo apt-get install python3-venv" >&2
        exit 1
    fi
fi
echo "setup: installing the Python packages (first time: a few minutes; log: $venv/setup.log)"
if ! { "$venv/bin/python" -m pip install --upgrade pip &&
       "$venv/bin/python" -m pip install -e ".[test,bench]" ; } > "$venv/setup.log" 2>&1; then
    tail -n 20 "$venv/setup.log" >&2
    echo "setup: installing the Python packages failed (full log: $venv/setup.log)" >&2
    exit 1
fi
echo "setup: done"

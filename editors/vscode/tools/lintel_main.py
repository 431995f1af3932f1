"""Runs the lintel bundled beside this file in the self-contained .vsix: `python3 -I lintel_main.py serve`.

Copied into the bundle by tools/bundle.py. `-I` keeps the user's PYTHONPATH, user site and PYTHON* variables out;
this folder goes first on sys.path here instead of through PYTHONPATH, so nothing reaches the environment of the
tools lintel runs (a project's pytest or mypy must never import the bundled pydantic).
"""

import os
import runpy
import sys

if sys.version_info < (3, 10):  # noqa: UP036 - the bundle is run by whatever python3 the machine has
    # %-formatting: an old Python must get this message, not a SyntaxError.
    sys.exit("lintel needs Python >= 3.10; %s is %s" % (sys.executable, sys.version.split()[0]))  # noqa: UP031

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
runpy.run_module("lintel", run_name="__main__", alter_sys=True)

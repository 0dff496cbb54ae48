"""Print pip pins of the lowest versions pyproject.toml admits (dependencies and the test extra).

CI installs these in a second environment and runs the suite there, so that every
lower bound the package declares is one it was tested with.
"""

import re
import sys
from pathlib import Path

import tomllib

project = tomllib.loads((Path(__file__).resolve().parent.parent / "pyproject.toml").read_text())["project"]
requirements = [*project["dependencies"], *project["optional-dependencies"]["test"]]
pins = []
for requirement in requirements:
    requirement, _, marker = requirement.partition(";")
    match = re.fullmatch(r"([A-Za-z0-9_.\-]+)\s*>=\s*([0-9][0-9.]*)\s*(?:,\s*<\s*[0-9.]+)?", requirement.strip())
    if match is None:
        sys.exit(f"pyproject.toml: {requirement!r} names no lower bound of the form name>=X")
    name, lowest = match.groups()
    pins.append(f"{name}=={lowest}" + (f"; {marker.strip()}" if marker else ""))
print("\n".join(pins))

"""Print the runtime requirements of pyproject.toml, one a line, for the Dockerfile's
dependency layer (installed with constraints.txt before the source is copied)."""

import tomllib

with open("pyproject.toml", "rb") as f:
    print("\n".join(tomllib.load(f)["project"]["dependencies"]))

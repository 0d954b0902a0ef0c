"""Packaging: one installed package, `bifrost`, from the folders at the top of the repository.

The product card keeps `graph_builders/`, `retrieval/`, `eval/` and `prompts/` beside `bifrost/`;
setuptools' `package-dir` installs them as `bifrost.graph_builders`, `bifrost.retrieval`,
`bifrost.eval` and `bifrost.prompts`, so a wheel holds exactly one top-level package. Everything
else (metadata, dependencies, package data) is in pyproject.toml.
"""

from setuptools import find_namespace_packages, find_packages, setup

SUBPACKAGES = {
    "graph_builders": "bifrost.graph_builders",
    "retrieval": "bifrost.retrieval",
    "eval": "bifrost.eval",
    "training": "bifrost.training",
    "prompts": "bifrost.prompts",
}
"""Repository folder -> installed package name."""


def packages() -> list[str]:
    """Every package to install, under its installed name."""
    found = find_packages(include=["bifrost", "bifrost.*"])
    for folder, name in SUBPACKAGES.items():
        found += [name + sub[len(folder) :] for sub in find_packages(include=[folder, f"{folder}.*"])]
    # the prompt folders hold only text files: packages too (without them setuptools warns once per folder)
    found += [
        "bifrost." + sub for sub in find_namespace_packages(include=["prompts.*"], exclude=["*.__pycache__"])
    ]
    return sorted(set(found))


setup(
    packages=packages(),
    package_dir={"bifrost": "bifrost", **{name: folder for folder, name in SUBPACKAGES.items()}},
)

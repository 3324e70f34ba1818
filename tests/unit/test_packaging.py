"""What `pip install` (not editable) would install: every package of the source tree, named in pyproject.toml."""

import tomllib

from ingestlab import paths


def test_every_package_of_the_tree_is_listed_for_installation():
    config = tomllib.loads((paths.REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    roots = {name: paths.REPO_ROOT / folder for name, folder in config["package-dir"].items()}
    found = set()
    for name, root in roots.items():
        for init in root.rglob("__init__.py"):
            relative = init.parent.relative_to(root).parts
            found.add(".".join((name, *relative)))
    assert not found - listed, f"packages missing from pyproject.toml: {sorted(found - listed)}"
    assert not listed - found, f"pyproject.toml names packages that do not exist: {sorted(listed - found)}"

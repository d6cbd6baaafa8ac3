"""Bundles the server and its dependencies into bundled/libs for one VS Code target (the Python-tools template's
`pip install --target` approach).

tiktoken, pydantic-core, jiter, regex and charset-normalizer ship wheels per CPython version, so the libraries are
installed once per supported version; whatever is identical across versions goes to libs/common, the rest to
libs/cp3XX. The extension runs `python -m compact_lsp` with PYTHONPATH=libs/cp3XX:libs/common. The libraries are
built once per pyproject.toml and kept in ~/.cache/compact-lsp/vscode-bundle (COMPACT_CACHE_DIR); the server
itself (pure Python) is copied into libs/common at every build.

Usage: python bundle_server.py TARGET   (TARGET: linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64)
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
from pathlib import Path

PYTHON_VERSIONS = ("3.11", "3.12", "3.13")
PLATFORMS = {
    "linux-x64": ["manylinux_2_28_x86_64", "manylinux_2_17_x86_64", "manylinux2014_x86_64", "linux_x86_64"],
    "linux-arm64": ["manylinux_2_28_aarch64", "manylinux_2_17_aarch64", "manylinux2014_aarch64"],
    "darwin-x64": ["macosx_10_12_x86_64", "macosx_10_12_universal2"],
    "darwin-arm64": ["macosx_11_0_arm64", "macosx_10_12_universal2"],
    "win32-x64": ["win_amd64"],
}
EXTENSION = Path(__file__).resolve().parents[1]
REPOSITORY = EXTENSION.parents[1]
BUNDLED = EXTENSION / "bundled"


# pip's own notes that say nothing about the bundle: a pip config that lists local file:// indexes holding only some
# projects (extra-index-url = file:///opt/pypi/simple ... on some machines) makes pip warn once per project and
# index that lacks it, then take the project from the next index.
_NOT_HERE = re.compile(r"^WARNING: Location 'file:[^']*' is ignored: it is neither a file nor a directory\.$")


class BundleError(Exception):
    """A step of the bundle failed; the message says which and what to do."""


def _pip(*args: str, what: str) -> None:
    """pip, quiet: its output is shown (less the notes above) and, when it fails, what failed and what to do."""
    done = subprocess.run(
        [sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, check=False,
    )  # fmt: skip
    shown = [line for line in done.stdout.splitlines() if not _NOT_HERE.match(line)]
    if shown:
        print("\n".join(shown), file=sys.stderr)
    if done.returncode != 0:
        raise BundleError(
            f"pip could not {what} (exit {done.returncode}; its output is above). If it could not reach the package "
            "index, check the network or pip's index settings; if a library has no wheel for this target and "
            "CPython version, bundle for another target (COMPACT_VSCODE_TARGET) or pin a version that has one."
        )


def _tree_hash(path: Path) -> str:
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(str(file.relative_to(path.parent)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _stamp(target: str) -> str:
    """What the bundle depends on: the target, the versions, pyproject.toml and the server's sources."""
    digest = hashlib.sha256(_libraries_stamp(target).encode())
    source = REPOSITORY / "server" / "compact_lsp"
    for file in sorted(source.rglob("*.py")):
        digest.update(str(file.relative_to(source)).encode() + file.read_bytes())
    return digest.hexdigest()


def _libraries_stamp(target: str) -> str:
    """What the libraries depend on: the target, the versions, pyproject.toml (the dependencies) and this script."""
    digest = hashlib.sha256(f"{target} {PYTHON_VERSIONS}".encode())
    digest.update((REPOSITORY / "pyproject.toml").read_bytes())
    digest.update(Path(__file__).read_bytes())
    return digest.hexdigest()


def _cache_dir() -> Path:
    """Where built libraries are kept between builds and clones (like pip's own cache; COMPACT_CACHE_DIR)."""
    if os.environ.get("COMPACT_CACHE_DIR"):
        return Path(os.environ["COMPACT_CACHE_DIR"]) / "vscode-bundle"
    return Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache") / "compact-lsp" / "vscode-bundle"


def _build_libraries(target: str, work: Path, libs: Path) -> None:
    """The server's dependencies for each CPython version into libs/cp3XX, what is identical across them in
    libs/common (pip install --target per version, then split)."""
    dependencies = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]["dependencies"]
    trees: dict[str, Path] = {}
    for version in PYTHON_VERSIONS:
        tree = work / version
        platforms = [arg for tag in PLATFORMS[target] for arg in ("--platform", tag)]
        # --no-warn-conflicts: pip would check the tree against the packages of the Python running this script,
        # which the bundle never runs beside (on a Python with other tools installed it printed "ERROR: pip's
        # dependency resolver ..." about them). --root-user-action: the tree is a temporary folder, not the
        # system's site-packages that pip's warning about root is for.
        _pip("install", "--target", str(tree), "--only-binary=:all:", "--implementation", "cp",
             "--python-version", version, *platforms, "--no-compile", "--no-warn-conflicts",
             "--root-user-action=ignore", *dependencies,
             what=f"install the server's libraries for CPython {version} on {target}")  # fmt: skip
        for junk in [tree / "bin", *tree.rglob("__pycache__")]:
            shutil.rmtree(junk, ignore_errors=True)
        trees[version] = tree
    common = libs / "common"
    common.mkdir(parents=True)
    first = trees[PYTHON_VERSIONS[0]]
    for entry in sorted(first.iterdir()):
        hashes = {_tree_hash(trees[v] / entry.name) if (trees[v] / entry.name).exists() else "" for v in trees}
        if len(hashes) == 1:
            shutil.move(str(entry), common / entry.name)
            for version in PYTHON_VERSIONS[1:]:
                shutil.rmtree(trees[version] / entry.name, ignore_errors=True)
    for version, tree in trees.items():
        shutil.move(str(tree), libs / ("cp" + version.replace(".", "")))


def bundle(target: str) -> None:
    stamp = _stamp(target)
    manifest_path = BUNDLED / "manifest.json"
    if manifest_path.exists() and json.loads(manifest_path.read_text()).get("stamp") == stamp:
        print(f"bundled/ is up to date for {target}", file=sys.stderr)
        return
    # The libraries change only with pyproject.toml: built once (three pip installs, the slow part) and kept in
    # the cache; the server itself (pure Python, the same for every version) goes into libs/common at each build.
    cached = _cache_dir() / _libraries_stamp(target)[:24]
    if not (cached / "complete").is_file():
        with tempfile.TemporaryDirectory() as temp:
            _build_libraries(target, Path(temp), Path(temp) / "libs")
            shutil.rmtree(cached, ignore_errors=True)
            cached.parent.mkdir(parents=True, exist_ok=True)
            building = Path(tempfile.mkdtemp(dir=cached.parent, prefix=".building-"))
            shutil.copytree(Path(temp) / "libs", building / "libs")
            (building / "complete").write_text(stamp + "\n")
            try:
                building.rename(cached)  # whole or not at all, even with two builds at once
            except OSError:
                shutil.rmtree(building, ignore_errors=True)  # another build put it there first
    shutil.rmtree(BUNDLED, ignore_errors=True)
    shutil.copytree(cached / "libs", BUNDLED / "libs")
    # the server: pure Python, what its wheel holds (the package and py.typed), the same for every version
    source = REPOSITORY / "server" / "compact_lsp"
    shutil.copytree(source, BUNDLED / "libs" / "common" / "compact_lsp", ignore=shutil.ignore_patterns("__pycache__"))
    from_pyproject = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]["version"]
    manifest = {"serverVersion": from_pyproject, "pythonVersions": list(PYTHON_VERSIONS), "target": target}
    manifest["stamp"] = stamp
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"bundled the server {from_pyproject} for {target}, CPython {', '.join(PYTHON_VERSIONS)}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in PLATFORMS:
        sys.exit(f"usage: bundle_server.py {{{','.join(PLATFORMS)}}}")
    try:
        bundle(sys.argv[1])
    except BundleError as error:
        sys.exit(f"bundle_server.py: {error}")

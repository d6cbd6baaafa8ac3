"""Bundles the server and its dependencies into bundled/libs for one VS Code target (the Python-tools template's
`pip install --target` approach).

tiktoken, pydantic-core, jiter, regex and charset-normalizer ship wheels per CPython version, so the libraries are
installed once per supported version; whatever is identical across versions goes to libs/common, the rest to
libs/cp3XX. The extension runs `python -m compact_lsp` with PYTHONPATH=libs/cp3XX:libs/common.

Usage: python bundle_server.py TARGET   (TARGET: linux-x64, linux-arm64, darwin-x64, darwin-arm64, win32-x64)
"""

from __future__ import annotations

import hashlib
import json
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


def _pip(*args: str) -> None:
    subprocess.run([sys.executable, "-m", "pip", "--disable-pip-version-check", "-q", *args], check=True)


def _tree_hash(path: Path) -> str:
    digest = hashlib.sha256()
    files = sorted(p for p in path.rglob("*") if p.is_file()) if path.is_dir() else [path]
    for file in files:
        digest.update(str(file.relative_to(path.parent)).encode())
        digest.update(file.read_bytes())
    return digest.hexdigest()


def _stamp(target: str) -> str:
    """What the bundle depends on: the target, the versions, pyproject.toml and the server's sources."""
    digest = hashlib.sha256(f"{target} {PYTHON_VERSIONS}".encode())
    digest.update((REPOSITORY / "pyproject.toml").read_bytes())
    source = REPOSITORY / "server" / "compact_lsp"
    for file in sorted(source.rglob("*.py")):
        digest.update(str(file.relative_to(source)).encode() + file.read_bytes())
    return digest.hexdigest()


def bundle(target: str) -> None:
    stamp = _stamp(target)
    manifest_path = BUNDLED / "manifest.json"
    if manifest_path.exists() and json.loads(manifest_path.read_text()).get("stamp") == stamp:
        print(f"bundled/ is up to date for {target}", file=sys.stderr)
        return
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        _pip("wheel", "--no-deps", "-w", str(work / "wheel"), str(REPOSITORY))
        wheel = next((work / "wheel").glob("compact_lsp-*.whl"))
        trees: dict[str, Path] = {}
        for version in PYTHON_VERSIONS:
            tree = work / version
            platforms = [arg for tag in PLATFORMS[target] for arg in ("--platform", tag)]
            _pip("install", "--target", str(tree), "--only-binary=:all:", "--implementation", "cp",
                 "--python-version", version, *platforms, "--no-compile", str(wheel))  # fmt: skip
            for junk in [tree / "bin", *tree.rglob("__pycache__")]:
                shutil.rmtree(junk, ignore_errors=True)
            trees[version] = tree
        shutil.rmtree(BUNDLED, ignore_errors=True)
        common = BUNDLED / "libs" / "common"
        common.mkdir(parents=True)
        first = trees[PYTHON_VERSIONS[0]]
        for entry in sorted(first.iterdir()):
            hashes = {_tree_hash(trees[v] / entry.name) if (trees[v] / entry.name).exists() else "" for v in trees}
            if len(hashes) == 1:
                shutil.move(str(entry), common / entry.name)
                for version in PYTHON_VERSIONS[1:]:
                    shutil.rmtree(trees[version] / entry.name, ignore_errors=True)
        for version, tree in trees.items():
            shutil.move(str(tree), BUNDLED / "libs" / ("cp" + version.replace(".", "")))
    from_pyproject = tomllib.loads((REPOSITORY / "pyproject.toml").read_text())["project"]["version"]
    manifest = {"serverVersion": from_pyproject, "pythonVersions": list(PYTHON_VERSIONS), "target": target}
    manifest["stamp"] = stamp
    manifest_path.write_text(json.dumps(manifest, indent=2) + "\n")
    print(f"bundled the server {from_pyproject} for {target}, CPython {', '.join(PYTHON_VERSIONS)}", file=sys.stderr)


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in PLATFORMS:
        sys.exit(f"usage: bundle_server.py {{{','.join(PLATFORMS)}}}")
    bundle(sys.argv[1])

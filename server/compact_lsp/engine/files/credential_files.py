"""Credential-class files: never attached, re-attached or admitted, whatever the roots say.

Defence in depth behind the roots and admissions: even inside a workspace (a repository's ``.env``) or when a
user admits a file, the server never re-reads one of these on its own (the file gate refuses it, so rehydration,
the hooks and change notices never send it to a model) and never admits it. The model may still read one when
it asks and the user allows it; nothing brings it back afterwards. The list is documented in
docs/reliability.md ("Credential files"); this module is its one definition.
"""

from __future__ import annotations

import fnmatch
import os

CREDENTIAL_FOLDERS = (".ssh", ".gnupg", ".aws", ".azure", ".kube", ".docker", ".config/gcloud", ".config/gh")
"""Every file below a folder of one of these names (path components, anywhere in the path): SSH and GPG keys,
cloud and registry credentials, cluster and GitHub CLI tokens."""

CREDENTIAL_NAMES = (
    ".env", ".env.*", "*.env",
    "*.pem", "*.key", "*.p12", "*.pfx", "*.jks", "*.keystore",
    "id_rsa", "id_dsa", "id_ecdsa", "id_ed25519", "id_*_sk",
    ".netrc", "_netrc", ".pgpass", ".git-credentials", ".npmrc", ".pypirc", ".dockercfg", ".vault-token",
    "credentials.json", "application_default_credentials.json", ".credentials.json",
)  # fmt: skip
"""File names (``fnmatch`` patterns) that are credentials wherever they lie: ``.env`` files, private keys and
certificates, netrc and registry tokens (npm, PyPI, Docker), Google client secrets, Claude Code's login
(``.credentials.json``)."""

CREDENTIAL_PATHS = (
    ".codex/auth.json", ".cargo/credentials", ".cargo/credentials.toml", ".gem/credentials",
    ".terraform.d/credentials.tfrc.json", ".config/hub",
)  # fmt: skip
"""Files that are credentials by their folder and name: Codex's login, Cargo, gem, Terraform and hub tokens."""


def is_credential_file(path: str) -> bool:
    """``path`` (a realpath, or any absolute path) names a credential-class file (see the module doc)."""
    normal = os.path.normpath(path)
    name = os.path.basename(normal)
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in CREDENTIAL_NAMES):
        return True
    parts = normal.split(os.sep)
    if any(parts[-len(p.split("/")) :] == p.split("/") for p in CREDENTIAL_PATHS):
        return True
    for folder in CREDENTIAL_FOLDERS:
        want = folder.split("/")
        for i in range(len(parts) - len(want)):  # a file below the folder, not the folder itself
            if parts[i : i + len(want)] == want:
                return True
    return False

"""One install of our hook per agent: what the user is told when installing finds it in another scope too.

An agent reads hooks from the user's settings and from the project's, and runs all of them; our hook makes sure
the model gets our context once (agents/hook_claims.py), but the user should know there are two and how to remove
one. The same words for every agent, from the command line and from the editors' install command.
"""

from __future__ import annotations

import shlex

from compact_lsp.agents.agent import AgentBeside


def also_installed(agent: AgentBeside, scope: str, project_dir: str) -> list[str]:
    """What to tell the user when our hook is also installed in another scope's settings: the agent runs both
    (the hook makes sure the model gets our context once: agents/hook_claims.py), and one is enough."""
    notes = []
    for other in agent.scope_help:
        path = agent.settings_path(other, project_dir)
        if other == scope or not agent.installed_commands(path):
            continue
        where = f" --dir {shlex.quote(project_dir)}" if other == "project" else ""
        notes.append(
            f"Note: the compact-lsp hook is also installed in {path} ({other} settings). {agent.owner} runs both; "
            f"the model still gets compact-lsp's context once, but one install is enough. To remove the other: "
            f"compact-lsp {agent.name} uninstall-hook --{other}{where}"
        )
    return notes

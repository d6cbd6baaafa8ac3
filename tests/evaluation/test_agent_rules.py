"""The agents' own rules as the evaluation applies them: of the files rehydration ranked, the ones each agent puts
back itself (a file past its size cut reaches the model by name only, so it counts as not attached)."""

from __future__ import annotations

from pathlib import Path

from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.evaluation.agent_rules import claude_code_cut, qwen_code_cut
from compact_lsp.evaluation.metrics import Attached


def files(tmp_path: Path) -> list[Attached]:
    """Newest first, as rehydration ranks them: a small file, one of ~6,000 tokens, another small one."""
    sizes = {"small.py": 40, "big.py": 6_000, "older.py": 40}
    attached = []
    for name, tokens in sizes.items():
        path = tmp_path / name
        path.write_text("".join(f"value_{n} = {n}\n" for n in range(tokens // 4)))
        attached.append(Attached(str(path), tokens))
    return attached


def test_qwen_code_puts_back_its_files_whole_up_to_about_5000_tokens(tmp_path: Path) -> None:
    kept = [Path(a.path).name for a in qwen_code_cut(files(tmp_path))]
    assert kept == ["small.py", "older.py"]  # big.py by name only


def test_claude_code_does_too_by_its_own_count(tmp_path: Path) -> None:
    kept = [Path(a.path).name for a in claude_code_cut(files(tmp_path), TiktokenCounter())]
    assert kept == ["small.py", "older.py"]

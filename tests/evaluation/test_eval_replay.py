"""Replays of small hand-made sessions, where what each ranker attaches and what is re-read is known."""

from __future__ import annotations

from pathlib import Path

import pytest
from tests.evaluation.session_log import SessionLog, numbered, words

from compact_lsp.agents.claude_code.reattached import REATTACH_MAX_TOKENS
from compact_lsp.engine.claude_code.transcript_log import import_claude_code
from compact_lsp.engine.compaction.file_ranking import recency_ranker
from compact_lsp.engine.conversation.tokens import TiktokenCounter
from compact_lsp.engine.rehydration_settings import RehydrationSettings
from compact_lsp.engine.settings import MicrocompactSettings
from compact_lsp.evaluation.config import CLAUDE_CODE_NAME, CLAUDE_CODE_RULE, EvalConfig, MicroSpec, RankerSpec
from compact_lsp.evaluation.replay import replay_session
from compact_lsp.evaluation.timeline import compaction_points

BIG = numbered(300)
SMALL_BEFORE = "a = 0\nb = 1\n"


@pytest.fixture(scope="module")
def counter() -> TiktokenCounter:
    return TiktokenCounter()


def rereading_session(tmp_path: Path) -> Path:
    """Turns 0-4 read big.py (lines 200-204, then whole), small.py, a note outside the project, edit small.py;
    the compaction point is before turn 5; turns 5-6 re-read big.py's lines 200-204 and small.py."""
    log = SessionLog()
    log.read("big.py", BIG, offset=200, limit=5)
    log.read("small.py", SMALL_BEFORE)
    log.call("Read", {"file_path": "/home/dev/notes.md"}, "     1→note",
             {"file": {"filePath": "/home/dev/notes.md", "content": "note", "startLine": 1, "numLines": 1,
                       "totalLines": 1}})  # fmt: skip
    log.read("big.py", BIG)
    log.edit("small.py", SMALL_BEFORE, "b = 1", "b = 2")
    log.read("big.py", BIG, offset=200, limit=5)
    log.read("small.py", "a = 0\nb = 2\n")
    log.say("Done.")
    return log.write(tmp_path)


def config(*rankers: RankerSpec) -> EvalConfig:
    return EvalConfig(every_turns=5, token_fractions=(), lookahead_turns=10, rankers=rankers, micro=())


SMALL_FILES = RehydrationSettings(max_files=5, token_budget=50_000, max_tokens_per_file=400)


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        pytest.param(
            RankerSpec(
                "one file", recency_ranker, settings=RehydrationSettings(max_files=1, max_tokens_per_file=5_000)
            ),
            {"rereads": 2, "misses": 1, "full_hits": 1, "partial_covering": 0, "attached_files": 1},
            id="one-file-budget-misses-the-older-file",
        ),
        pytest.param(
            RankerSpec("head", recency_ranker, slices=False, settings=SMALL_FILES),
            {"rereads": 2, "misses": 0, "full_hits": 1, "partial_covering": 0, "partial_short": 1},
            id="head-of-a-big-file-misses-the-lines-read",
        ),
        pytest.param(
            RankerSpec("slices", recency_ranker, slices=True, settings=SMALL_FILES),
            {"rereads": 2, "misses": 0, "full_hits": 1, "partial_covering": 1, "partial_short": 0},
            id="slices-bring-back-the-lines-read",
        ),
        pytest.param(
            RankerSpec("whole", recency_ranker, settings=RehydrationSettings(max_tokens_per_file=50_000)),
            {"rereads": 2, "misses": 0, "full_hits": 2, "attached_files": 3, "strict_misses": 0},
            id="generous-budget-attaches-all-three-whole",
        ),
    ],
)
def test_rankers_at_a_compaction_point(
    tmp_path: Path, counter: TiktokenCounter, spec: RankerSpec, expected: dict[str, int]
) -> None:
    result = replay_session(import_claude_code(rereading_session(tmp_path)), config(spec), counter)
    assert result.points == [11]  # the assistant message of turn 5
    score = result.rankers[spec.name]
    assert score.points == 1
    assert score.needed == score.rereads == 2  # the note in an added directory is not used again
    for name, value in expected.items():
        assert getattr(score, name) == value, name


def test_attached_tokens_are_what_rehydration_would_send(tmp_path: Path, counter: TiktokenCounter) -> None:
    spec_small = RankerSpec("slices", recency_ranker, settings=SMALL_FILES)
    spec_whole = RankerSpec("whole", recency_ranker, settings=RehydrationSettings(max_tokens_per_file=50_000))
    result = replay_session(import_claude_code(rereading_session(tmp_path)), config(spec_small, spec_whole), counter)
    small, whole = result.rankers["slices"].attached_tokens, result.rankers["whole"].attached_tokens
    assert 0 < small <= 400 + 50  # the sliced big file within its cap, plus the tiny small.py
    assert whole > counter.count_text(BIG)  # the whole big file came back from disk


def test_the_workspace_holds_the_files_the_log_showed(tmp_path: Path, counter: TiktokenCounter) -> None:
    result = replay_session(import_claude_code(rereading_session(tmp_path)), config(), counter)
    assert result.files_materialised == 3  # big.py, small.py and the note outside
    assert result.reads_without_content == 0


def clearing_session(tmp_path: Path) -> Path:
    """Three reads of ~1,000-token files, then file one again; the size trigger at 1,500 tokens, keep one."""
    log = SessionLog()
    for name in ("one", "two", "three", "one"):
        log.read(f"{name}.txt", words(1_000, name))
    log.say("Done.")
    return log.write(tmp_path)


def test_microcompaction_counts_rewrites_savings_and_rereads_of_cleared_reads(
    tmp_path: Path, counter: TiktokenCounter
) -> None:
    spec = MicroSpec("tight", MicrocompactSettings(keep_recent=1, idle_minutes=-1, size_threshold_tokens=1_500))
    cfg = EvalConfig(every_turns=0, token_fractions=(), rankers=(), micro=(spec,))
    score = replay_session(import_claude_code(clearing_session(tmp_path)), cfg, counter).micro["tight"]
    # the third read puts the two results outside the kept newest one past 1,500: both go in one rewrite, and the
    # fourth read leaves only one (1,000 tokens) outside the kept one: no rewrite until another 1,500 gather
    assert score.rewrites == 1
    assert score.by_trigger == {"size": 1}
    assert score.cleared_reads == 2
    assert score.cleared_reads_reread == score.cleared_reads_reread_soon == 1  # "one" is read again
    assert 1_800 < score.tokens_saved < 2_200
    assert score.input_tokens_micro < score.input_tokens_plain


def test_default_microcompaction_leaves_a_small_session_alone(tmp_path: Path, counter: TiktokenCounter) -> None:
    cfg = EvalConfig(every_turns=0, token_fractions=(), rankers=(), micro=(MicroSpec("defaults"),))
    score = replay_session(import_claude_code(clearing_session(tmp_path)), cfg, counter).micro["defaults"]
    assert (score.rewrites, score.tokens_saved, score.cleared_reads) == (0, 0, 0)
    assert score.input_tokens_micro == score.input_tokens_plain > 0


@pytest.mark.parametrize(
    ("every", "fractions", "expected_turns"),
    [
        pytest.param(2, (), [2, 4], id="every-two-turns"),
        pytest.param(0, (0.5,), [3], id="half-way-by-size"),
        pytest.param(2, (0.5,), [2, 3, 4], id="both-schedules-merge"),
        pytest.param(0, (), [], id="no-schedule"),
    ],
)
def test_compaction_points(
    tmp_path: Path,
    counter: TiktokenCounter,
    every: int,
    fractions: tuple[float, ...],
    expected_turns: list[int],
) -> None:
    log = SessionLog()
    for name in ("a", "b", "c", "d", "e"):
        log.read(f"{name}.txt", words(200, name))
    messages = import_claude_code(log.write(tmp_path)).session.messages
    assistant_turn = {}
    for i, m in enumerate(messages):
        if m["role"] == "assistant":
            assistant_turn[i] = len(assistant_turn)
    points = compaction_points(messages, counter, every, fractions)
    assert [assistant_turn[p] for p in points] == expected_turns


def sibling_repo_session(tmp_path: Path) -> Path:
    """The agent reads app.py, then works in a sibling repository the user cloned (reads and edits lib.py there);
    after the point (turn 5) it edits lib.py again and writes a new file there."""
    log = SessionLog()
    log.read("app.py", "import lib\n")
    lib = "def helper():\n    return 1\n"
    log.call("Read", {"file_path": "/home/dev/sibling/lib.py"}, "     1→def helper():\n     2→    return 1",
             {"file": {"filePath": "/home/dev/sibling/lib.py", "content": lib.rstrip("\n"), "startLine": 1,
                       "numLines": 2, "totalLines": 2}})  # fmt: skip
    for step in ("Looking.", "Still looking.", "Planning."):
        log.say(step)
        log.user("go on")
    log.call("Edit", {"file_path": "/home/dev/sibling/lib.py", "old_string": "return 1", "new_string": "return 2"},
             "The file has been updated.", {"originalFile": lib})  # fmt: skip
    log.call("Write", {"file_path": "/home/dev/sibling/new.py", "content": "x = 1\n"}, "File created.",
             {"type": "create"})  # fmt: skip
    log.say("Done.")
    return log.write(tmp_path)


def test_a_file_the_agent_worked_on_outside_the_workspace_is_admitted(tmp_path: Path, counter: TiktokenCounter) -> None:
    budget = RehydrationSettings(max_tokens_per_file=5_000)
    admitted = RankerSpec("admitted files", recency_ranker, settings=budget)
    workspace_only = RankerSpec("workspace only", recency_ranker, settings=budget, workspace_only=True)
    result = replay_session(import_claude_code(sibling_repo_session(tmp_path)), config(admitted, workspace_only),
                            counter)  # fmt: skip
    with_file, without = result.rankers["admitted files"], result.rankers["workspace only"]
    # one need: the edit of lib.py (the Write created new.py: not a need); met only where lib.py is admitted,
    # and counted as a miss, not dropped, where it is not
    assert (with_file.needed, with_file.outside_needs, with_file.strict_misses) == (1, 1, 0)
    assert (without.needed, without.outside_needs, without.strict_misses) == (1, 1, 1)


def test_a_read_of_lines_the_log_never_showed_is_undeterminable_not_a_hit(
    tmp_path: Path, counter: TiktokenCounter
) -> None:
    """48 of 1,287 lines seen: rebuilt with padding the file is small enough to go back whole, but the read of
    lines 977-1076 after the point asks for lines no one saw."""
    log = SessionLog()
    log.read("long.py", numbered(1_287), offset=1, limit=48)
    for step in ("Looking.", "Still looking.", "Planning.", "Checking."):
        log.say(step)
        log.user("go on")
    log.read("long.py", numbered(1_287), offset=977, limit=100)
    log.say("Done.")
    spec = RankerSpec("default", recency_ranker, settings=RehydrationSettings())
    score = replay_session(import_claude_code(log.write(tmp_path)), config(spec), counter).rankers["default"]
    assert (score.needed, score.strict_misses, score.undeterminable, score.full_hits) == (1, 0, 1, 0)
    assert score.strict_miss_rate is None and score.strict_miss_rate_worst == 1.0


def test_claude_codes_size_cut_sends_a_big_file_by_name_only(tmp_path: Path, counter: TiktokenCounter) -> None:
    huge = numbered(900)
    assert counter.count_text(huge) > REATTACH_MAX_TOKENS  # past Claude Code's cut: by name only
    log = SessionLog()
    log.read("huge.py", huge)
    log.read("small.py", SMALL_BEFORE)
    for n in range(3):  # five turns before the point
        log.read(f"note{n}.txt", f"note {n}\n")
    log.read("huge.py", huge)
    log.read("small.py", SMALL_BEFORE)
    log.say("Done.")
    cut = RankerSpec(CLAUDE_CODE_NAME, recency_ranker, slices=False, settings=CLAUDE_CODE_RULE, size_cut=True)
    uncut = RankerSpec("uncut", recency_ranker, slices=False, settings=CLAUDE_CODE_RULE)
    result = replay_session(import_claude_code(log.write(tmp_path)), config(cut, uncut), counter)
    assert (result.rankers[CLAUDE_CODE_NAME].needed, result.rankers[CLAUDE_CODE_NAME].strict_misses) == (2, 1)
    assert (result.rankers["uncut"].needed, result.rankers["uncut"].strict_misses) == (2, 0)

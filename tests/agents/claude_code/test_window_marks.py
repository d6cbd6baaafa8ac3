"""What a followed transcript keeps packed of its window's records: stamps and uuids, read back as they were."""

from __future__ import annotations

import pytest

from compact_lsp.agents.claude_code.window_marks import LoggedAt, SeenUuids


def test_stamps_read_back_as_they_were_logged_whatever_their_shape() -> None:
    stamps: list[str | None] = [
        "2026-12-01T12:00:00.000Z",
        None,
        "2026-12-01T12:00:00Z",  # shorter
        "2026-12-01T12:00:00.000+01:00",  # longer
        "2026-12-01T12:00:00.000\u00e9",  # 24 characters, not ASCII
        "\x00" * 24,  # what a stamp left out is packed as
        "",
        "2026-12-01T12:00:01.000Z",
    ]
    kept = LoggedAt()
    kept.extend(stamps[:3])
    kept.extend([])
    kept.extend(stamps[3:])
    assert list(kept) == stamps
    assert len(kept) == len(stamps)
    assert list(LoggedAt()) == []


@pytest.mark.parametrize(
    "uuid",
    [
        pytest.param("0b5e2c1a-1111-4222-8333-944455556666", id="canonical"),
        pytest.param("0B5E2C1A-1111-4222-8333-944455556666", id="upper-case"),
        pytest.param("0b5e2c1a111142228333944455556666", id="no-dashes"),
        pytest.param("summary-1", id="not-a-uuid"),
        pytest.param("0b5e2c1a-1111-4222-8333-94445555666\n", id="trailing-newline"),
    ],
)
def test_a_uuid_is_seen_only_as_itself(uuid: str) -> None:
    others = {
        "0b5e2c1a-1111-4222-8333-944455556666",
        "0B5E2C1A-1111-4222-8333-944455556666",
        "0b5e2c1a111142228333944455556666",
        "summary-1",
        "0b5e2c1a-1111-4222-8333-94445555666\n",
        str(int("0b5e2c1a111142228333944455556666", 16)),  # the number a canonical uuid is kept as, as text
    } - {uuid}
    seen = SeenUuids([uuid])
    assert uuid in seen
    assert not any(other in seen for other in others)
    seen.add(uuid)
    assert len(seen) == 1
    for other in others:
        seen.add(other)
    assert len(seen) == len(others) + 1

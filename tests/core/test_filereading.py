"""read_at_most and read_regular: what ``read(limit)`` of a file object reads, without a buffer of ``limit``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ctxres.filereading import FileTooLarge, read_at_most, read_regular


@settings(max_examples=60, deadline=None)
@given(st.binary(max_size=3000), st.integers(0, 4000), st.integers(0, 4000), st.integers(0, 2000))
def test_read_at_most_reads_what_a_file_object_reads(
    tmp_path_factory: pytest.TempPathFactory, data: bytes, limit: int, expected: int, skip: int
) -> None:
    """Whatever the expected size (the size when opened, smaller when the file grew since), from any offset."""
    path = tmp_path_factory.mktemp("read") / "f"
    path.write_bytes(data)
    with path.open("rb") as handle:
        handle.seek(skip)
        want = handle.read(limit)
    fd = os.open(path, os.O_RDONLY)
    try:
        os.lseek(fd, skip, os.SEEK_SET)
        assert read_at_most(fd, limit, expected) == want
    finally:
        os.close(fd)


def test_read_at_most_reads_past_the_expected_size_in_chunks(tmp_path: Path) -> None:
    path = tmp_path / "grown"
    path.write_bytes(b"x" * 200_000)
    fd = os.open(path, os.O_RDONLY)
    try:
        assert read_at_most(fd, 150_001, 10) == b"x" * 150_001
    finally:
        os.close(fd)


def test_read_regular_refuses_a_file_over_the_limit(tmp_path: Path) -> None:
    path = tmp_path / "f"
    path.write_bytes(b"abc")
    assert read_regular(path, 3) == b"abc"
    assert read_regular(path, 10) == b"abc"
    with pytest.raises(FileTooLarge):
        read_regular(path, 2)

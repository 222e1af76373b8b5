"""Compose: an operation's site -> its draft -> the neutral ``Function`` (docs/architecture.md
stage 7). Private: ``httpllm.compile`` is the way in; nothing is re-exported here."""

from __future__ import annotations

__all__: list[str] = []

"""Tests of `httpllm.toolsets`: token counts, the budget report, groups, deferred loading, lint."""

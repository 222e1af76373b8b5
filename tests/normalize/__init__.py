"""Tests of `httpllm.normalize`: one module per pass, plus the named-schema cache."""

"""Tests of `httpllm.execute`: the way back from a tool call to an HTTP request."""

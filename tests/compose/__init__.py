"""Tests of `httpllm.compose`: names, the keyword parameters object, inlining."""

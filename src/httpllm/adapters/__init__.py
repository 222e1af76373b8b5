"""Adapters: an application's functions as the tools of an agent framework.

Each module is a thin layer over :mod:`httpllm.agent` (the same repair, validation and
sending as ``Application.handle``), imported only when used, each needing its extra:

- :mod:`httpllm.adapters.openai_agents` (``httpllm[openai-agents]``): ``function_tools``,
  a list of the OpenAI Agents SDK's ``FunctionTool``;
- :mod:`httpllm.adapters.pydantic_ai` (``httpllm[pydantic-ai]``): ``toolset``, a
  pydantic-ai ``FunctionToolset``;
- :mod:`httpllm.adapters.langchain` (``httpllm[langchain]``): ``tools``, a list of
  LangChain ``StructuredTool``.

Credentials (``auth=``) and host arguments stay in the tools' closures: the model sees
only each function's parameters.
"""

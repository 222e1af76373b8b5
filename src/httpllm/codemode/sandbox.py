"""Run a model's TypeScript program in Deno with no permission, its only I/O the bindings.

A program is checked, then run, in a folder of its own:

1. **refused** when its text holds ``import`` or ``export`` (the only ways a Deno module
   reads a local file without ``--allow-read``: the initial static module graph, and
   dynamic imports that can be analyzed statically, load without a permission check —
   Deno's security model, "Key principles"), or exceeds :data:`PROGRAM_MAX` characters;
2. **type-checked** by ``deno check`` against the declarations of the operations it
   names (:meth:`Surface.declarations`), compiler errors returned as text with the
   program's own line numbers;
3. **run** by ``deno run`` with no ``--allow-*`` flag and ``--no-prompt`` (no network, file,
   environment, subprocess, FFI or system access), no remote or npm modules, no code
   generated from strings (``eval``, ``Function``), no ``Worker``; its JavaScript heap
   bounded (``--max-old-space-size``), its process's data segment bounded
   (``RLIMIT_DATA``, POSIX: array buffers live outside the heap) and its CPU time
   (``RLIMIT_CPU``), the whole run bounded in wall-clock seconds (the process group is
   killed); the environment it gets holds no variable of the host's.

The program talks to the host over stdin/stdout, one JSON object a line (``runtime.js``);
the host answers each binding call with ``bind(name, arguments)`` (the code mode's check,
credentials and request: :mod:`httpllm.codemode.mode`). Deno comes from the ``deno``
package on PyPI (the ``code`` extra: the Deno authors publish each release there, built
from the release's own archives, checked against their SHA-256 sums) or ``PATH``.

Source: Deno manual, "Security and permissions"; ``deno run --help``; V8 flags
``--max-old-space-size``, ``--disallow-code-generation-from-strings``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import re
import shutil
import signal
import sys
import tempfile
import weakref
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from httpllm.errors import MissingExtra, install_command

__all__ = ["FORBIDDEN", "PROGRAM_MAX", "Limits", "Run", "Sandbox", "find_deno", "forbidden"]

PROGRAM_MAX = 100_000
"""Most characters of one program."""

FORBIDDEN = re.compile(r"(?<![\w$])(import|export)(?![\w$])")
"""The words a program may not hold, even in a string or comment (see the module
docstring): ``import`` and ``export`` statements and ``import()`` load modules."""

_LINE_MAX = 64 * 1024 * 1024
"""Longest protocol line the host reads (a binding call's arguments), in bytes."""

_CALLS_READ = 20
"""Calls a program may ask for, per call it may make (:attr:`Limits.calls`), before it is
stopped: past its limit each is answered ``LimitExceeded``, a task each."""

_STDERR_KEPT = 8192
"""Characters of the sandbox's stderr kept to explain a crash."""

Bind = Callable[[str, Any], Awaitable[dict[str, Any]]]
"""``await bind(function_name, arguments) -> {"ok": True, "value": ...}`` or
``{"ok": False, "error": {"name", "message", "kind"?, "status"?, "body"?, "operation"?}}``."""

_CONFIG = {"compilerOptions": {"strict": True, "noImplicitAny": False,
                               "useUnknownInCatchVariables": False, "lib": ["esnext"]}}
"""The checker's options (``deno.json``): strict null checks, untyped parameters and caught
errors allowed (the types of ``api`` are what the check is for), the language's own
library only (the
globals a program has are declared by :data:`~httpllm.codemode.surface.PRELUDE`; Deno's
and the web's libraries tripled the time of a check)."""


@dataclass(frozen=True, slots=True, kw_only=True)
class Limits:
    """What one program may use.

    Attributes:
        seconds: wall-clock seconds for the run, the API calls included.
        check_seconds: wall-clock seconds for the type check.
        heap_mib: MiB of JavaScript heap (V8 ``--max-old-space-size``).
        data_mib: MiB of data segment for the whole process (``RLIMIT_DATA``, POSIX),
            which bounds array buffers too; Deno itself needs about 200.
        calls: most operations one program calls.
        answer_bytes: most bytes of API answers, all calls together, handed to a program.
        output_chars: most characters of printed output the sandbox passes on.
        concurrency: most calls in flight at once.
    """

    seconds: float = 30.0
    check_seconds: float = 60.0
    heap_mib: int = 128
    data_mib: int = 1024
    calls: int = 50
    answer_bytes: int = 10_000_000
    output_chars: int = 200_000
    concurrency: int = 4


@dataclass(frozen=True, slots=True, kw_only=True)
class Run:
    """What became of one program.

    Attributes:
        output: what it printed, in order (one line per ``console.log``).
        error: why it did not finish, as the model reads it (refused, compiler errors,
            an uncaught exception with its program line, a limit), or ``None``.
        stage: ``"refused"``, ``"check"`` or ``"run"``: how far it got.
        calls: how many binding calls it made.
    """

    output: str = ""
    error: str | None = None
    stage: str = "run"
    calls: int = 0


def find_deno() -> str:
    """The ``deno`` executable: the ``deno`` package's (the ``code`` extra), else the one
    on ``PATH``.

    Raises:
        MissingExtra: neither is there.
    """
    try:
        import deno  # type: ignore[import-not-found,import-untyped,unused-ignore]

        found: str = deno.find_deno_bin()
        return found
    except (ImportError, FileNotFoundError, AttributeError):
        pass
    on_path = shutil.which("deno")
    if on_path is None:
        raise MissingExtra("code mode runs programs in Deno, which is not installed: "
                           + install_command("code"), extra="code", module="deno")
    return on_path


def forbidden(program: str) -> str | None:
    """Why ``program`` cannot run before it is even checked, or ``None``."""
    if len(program) > PROGRAM_MAX:
        return f"the program has {len(program):,} characters; at most {PROGRAM_MAX:,}"
    found = FORBIDDEN.search(program)
    if found is not None:
        line = program.count("\n", 0, found.start()) + 1
        return (f"line {line}: the word {found.group()!r} may not appear in a program, even "
                "in a string or comment: programs load no modules; everything is on `api` "
                "(write the word in parts, 'im' + 'port', where you need it as text)")
    return None


def _environment(deno_dir: str) -> dict[str, str]:
    """The variables Deno runs with: its cache, no update check, no colour; nothing of
    the host's environment (no credential can be found there)."""
    env = {"DENO_DIR": deno_dir, "DENO_NO_UPDATE_CHECK": "1", "NO_COLOR": "1",
           "DENO_NO_PROMPT": "1"}
    if sys.platform == "win32":  # the system needs these to start a process
        env.update({k: os.environ[k] for k in ("SYSTEMROOT", "TEMP", "TMP") if k in os.environ})
    return env


def _limiter(limits: Limits) -> Callable[[], None] | None:
    """The child's ``preexec_fn`` setting its resource limits (POSIX), or ``None``."""
    try:
        import resource
    except ImportError:
        return None

    def limit() -> None:
        data = limits.data_mib * 1024 * 1024
        cpu = int(limits.seconds) + 1
        for which, value in ((resource.RLIMIT_DATA, data), (resource.RLIMIT_CPU, cpu)):
            with contextlib.suppress(ValueError, OSError):
                resource.setrlimit(which, (value, value))

    return limit


@dataclass(slots=True)
class _State:
    output: list[str] = field(default_factory=list)
    end: dict[str, Any] | None = None
    ended: bool = False
    calls: int = 0
    printed: int = 0
    tasks: set[asyncio.Task[None]] = field(default_factory=set)
    stderr: str = ""


class Sandbox:
    """Checks and runs programs in Deno (see the module docstring).

    Args:
        limits: what one program may use.
        deno: the ``deno`` executable (default :func:`find_deno`).

    Raises:
        MissingExtra: Deno is not installed.

    The Deno cache (``DENO_DIR``, compiled and checked modules) is a private temporary
    folder, removed with the sandbox.
    """

    def __init__(self, limits: Limits | None = None, *, deno: str | None = None) -> None:
        self.limits = limits or Limits()
        self.deno = deno or find_deno()
        self._cache = tempfile.mkdtemp(prefix="httpllm-deno-")
        self._cleanup = weakref.finalize(self, shutil.rmtree, self._cache, True)

    def close(self) -> None:
        """Remove the Deno cache (also done when the sandbox is collected)."""
        self._cleanup()

    async def run(self, declarations: str, program: str, table: dict[str, str],
                  bind: Bind) -> Run:
        """Check ``program`` against ``declarations``, then run it with ``api`` built from
        ``table`` (``{"repos.get": "repos_get"}``), each call answered by ``bind``.

        Never raises for what the program does: refusals, compiler errors, exceptions and
        limits are in :attr:`Run.error`.
        """
        refused = forbidden(program)
        if refused is not None:
            return Run(error=f"The program was not run: {refused}.", stage="refused")
        with tempfile.TemporaryDirectory(prefix="httpllm-code-") as folder:
            work = Path(folder)
            offset = declarations.count("\n") + 1
            # a lone surrogate (a document's \ud800 escape without its pair: in a comment or a
            # string literal type) written as that escape, which TypeScript reads alike
            (work / "program.ts").write_text(f"{declarations}\n{program}\n", encoding="utf-8",
                                             errors="backslashreplace")
            (work / "deno.json").write_text(json.dumps(_CONFIG), encoding="utf-8")
            (work / "runtime.js").write_text(
                resources.files("httpllm.codemode").joinpath("runtime.js").read_text("utf-8"),
                encoding="utf-8")
            (work / "main.js").write_text(_main(table, self.limits.output_chars),
                                          encoding="utf-8")
            problems = await self._check(work, offset)
            if problems is not None:
                return Run(error=problems, stage="check")
            return await self._run(work, offset, bind)

    async def _check(self, work: Path, offset: int) -> str | None:
        """The compiler's errors, as the model reads them, or ``None`` when it passes."""
        command = [self.deno, "check", "--quiet", "--config", str(work / "deno.json"),
                   "--no-lock", "--no-remote", "--no-npm", "program.ts"]
        process = await asyncio.create_subprocess_exec(
            *command, cwd=work, env=_environment(self._cache), stdin=asyncio.subprocess.DEVNULL,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT,
            start_new_session=True)
        try:
            out, _ = await asyncio.wait_for(process.communicate(), self.limits.check_seconds)
        except asyncio.TimeoutError:
            _kill(process)
            await process.wait()
            return (f"The program was not run: type-checking it took over "
                    f"{self.limits.check_seconds:g} s.")
        if process.returncode == 0:
            return None
        text = _program_lines(out.decode("utf-8", "replace"), work, offset)
        return "The program does not type-check, so it was not run:\n" + text.strip()

    async def _run(self, work: Path, offset: int, bind: Bind) -> Run:
        limits = self.limits
        v8 = (f"--v8-flags=--max-old-space-size={limits.heap_mib},"
              "--disallow-code-generation-from-strings")
        command = [self.deno, "run", "--no-prompt", "--no-config", "--no-lock", "--no-remote",
                   "--no-npm", "--no-check", v8, "main.js"]
        process = await asyncio.create_subprocess_exec(
            *command, cwd=work, env=_environment(self._cache), stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, limit=_LINE_MAX,
            start_new_session=True, preexec_fn=_limiter(limits))
        state = _State()
        gate = asyncio.Semaphore(limits.concurrency)
        errors = asyncio.ensure_future(_drain(process.stderr, state))
        timed_out = False
        try:
            await asyncio.wait_for(self._talk(process, state, gate, bind), limits.seconds)
        except asyncio.TimeoutError:
            timed_out = True
        finally:
            _kill(process)
            for task in list(state.tasks):
                task.cancel()
            await process.wait()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(errors, 1.0)
        output = "\n".join(state.output)
        if timed_out:
            return Run(output=output, calls=state.calls, error=(
                f"The program was stopped after {limits.seconds:g} s (the time limit); "
                "what it printed before is above."))
        if state.end is not None and state.end.get("error") is None:
            return Run(output=output, calls=state.calls)
        error = (_thrown(state.end["error"], work, offset) if state.end is not None
                 else _crash(process.returncode, state.stderr, limits))
        return Run(output=output, error=error, calls=state.calls)

    async def _talk(self, process: Any, state: _State, gate: asyncio.Semaphore,
                    bind: Bind) -> None:
        """Read the sandbox's messages until it ends or exits, answering each call.

        The program can write these lines itself (``Deno.stdout``), past the runtime's
        checks, so the host holds it to its limits too: printed output is kept to
        :attr:`Limits.output_chars` as the runtime keeps it, and a program that asks for
        more than :data:`_CALLS_READ` times :attr:`Limits.calls` calls is stopped (a flood
        of lines held the host's memory: 400 MB of output, or a task per call line, a
        gigabyte in seconds)."""
        while True:
            try:
                line = await process.stdout.readline()
            except ValueError:  # longer than _LINE_MAX
                state.end = {"error": {"name": "LimitExceeded", "message": (
                    f"a call's arguments exceed {_LINE_MAX // (1024 * 1024)} MiB"),
                    "stack": ""}}
                return
            if not line:
                return
            try:
                message = json.loads(line)
            except ValueError:
                continue  # the program wrote to stdout itself: not the runtime's
            kind = message.get("t") if isinstance(message, dict) else None
            if kind == "out":
                _print(state, str(message.get("s", "")), self.limits.output_chars)
            elif kind == "call":
                if state.calls >= self.limits.calls * _CALLS_READ:
                    state.end = {"error": {"name": "LimitExceeded", "message": (
                        f"the program asked for over {state.calls:,} calls; it may make "
                        f"{self.limits.calls}"), "stack": ""}}
                    return
                state.calls += 1
                task = asyncio.ensure_future(self._answer(process, message, gate, bind))
                state.tasks.add(task)
                task.add_done_callback(state.tasks.discard)
            elif kind == "end":
                state.end = message
                return

    async def _answer(self, process: Any, message: dict[str, Any], gate: asyncio.Semaphore,
                      bind: Bind) -> None:
        async with gate:
            reply = await bind(str(message.get("op")), message.get("args"))
        data = json.dumps({"t": "ret", "id": message.get("id"), **reply},
                          ensure_ascii=False, separators=(",", ":"))
        with contextlib.suppress(ConnectionError, RuntimeError):
            # a lone surrogate in an answer: its JSON escape (a JavaScript string holds it)
            process.stdin.write(data.encode("utf-8", "backslashreplace") + b"\n")
            await process.stdin.drain()


def _print(state: _State, text: str, limit: int) -> None:
    """Keep one printed line as the runtime's ``print`` does: lines until ``limit``
    characters (each counted with its line break), the one that passes it cut to
    ``limit``, none after it."""
    if state.printed > limit:
        return
    state.printed += len(text) + 1
    state.output.append(text[:limit] if state.printed > limit else text)


async def _drain(stream: Any, state: _State) -> None:
    """Keep the last :data:`_STDERR_KEPT` characters of the sandbox's stderr."""
    while True:
        chunk = await stream.read(65536)
        if not chunk:
            return
        state.stderr = (state.stderr + chunk.decode("utf-8", "replace"))[-_STDERR_KEPT:]


def _kill(process: Any) -> None:
    """End the sandbox and anything it started (its process group, POSIX)."""
    if process.returncode is not None:
        return
    with contextlib.suppress(ProcessLookupError, PermissionError, OSError):
        if hasattr(os, "killpg"):
            os.killpg(process.pid, signal.SIGKILL)
        else:
            process.kill()


def _main(table: dict[str, str], output_chars: int) -> str:
    """The entry module: start the runtime, run the program, report how it ended."""
    return (
        'import { start, finish } from "./runtime.js";\n'
        f"start({json.dumps(table)}, {int(output_chars)});\n"
        "try {\n"
        '  await import("./program.ts");\n'
        "  finish(null);\n"
        "} catch (error) {\n"
        "  finish(error);\n"
        "}\n")


_FRAME = re.compile(r"(?:file://)?[^\s()'\"]*?program\.ts:(\d+)(?::(\d+))?")


def _program_lines(text: str, work: Path, offset: int) -> str:
    """``text`` with each place in ``program.ts`` given as the program's own ``line N``
    (col M), and the sandbox's folder left out."""
    def place(match: re.Match[str]) -> str:
        line = int(match.group(1)) - offset
        col = f", column {match.group(2)}" if match.group(2) else ""
        return f"line {line}{col}" if line > 0 else "the API declarations"

    text = _FRAME.sub(place, text)
    for form in (work.as_uri(), str(work)):
        text = text.replace(form + "/", "").replace(form, "")
    return text


def _thrown(error: dict[str, Any], work: Path, offset: int) -> str:
    """An uncaught exception as the model reads it: name, message, and the program lines
    of its stack (frames of the runtime left out)."""
    name, message = str(error.get("name", "Error")), str(error.get("message", ""))
    frames = [_program_lines(line.strip(), work, offset)
              for line in str(error.get("stack", "")).splitlines()[1:]
              if "program.ts" in line]
    if name == "NotCapable":
        message = re.sub(r", run again with the --allow-\w+ flag", "", message)
        message += (" — the sandbox has no network, file system, environment or "
                    "subprocesses; call the API through `api`")
    where = f" ({'; '.join(frames[:3])})" if frames else ""
    return f"Uncaught {name}: {_program_lines(message, work, offset)}{where}"


def _crash(status: int | None, stderr: str, limits: Limits) -> str:
    """Why the sandbox ended without reporting: memory, CPU time, or how it exited."""
    if "out of memory" in stderr.lower() or "heap limit" in stderr.lower():
        return (f"The program ran out of memory (the limit is {limits.heap_mib} MiB of "
                "heap) and was stopped; what it printed before is above.")
    if hasattr(signal, "SIGXCPU") and status == -signal.SIGXCPU:
        return f"The program used more than {limits.seconds:g} s of CPU time and was stopped."
    last = [line for line in stderr.strip().splitlines() if line.strip()][-1:]
    detail = f": {last[0][:300]}" if last else ""
    return f"The program ended without finishing (exit status {status}){detail}."

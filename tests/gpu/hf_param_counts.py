#!/usr/bin/env python3
"""Parameter counts of Hugging Face config.json files as transformers builds them (issue 29).

Usage: python3 tests/gpu/hf_param_counts.py CONFIG.json [...]
Prints JSON {"transformers": version, "torch": version, "params": {file: parameters}}: sum(p.numel() for p in model.parameters()) of the causal-LM model
the config names, built on the meta device (no memory, no weights). A config with a text_config
(gemma3, llama4) is counted for its language model only, as plan-layout reads it. Needs a
transformers that knows each model_type (qwen3_next: 4.57 or later). Compare with the exact
counts pinned in tests/unit/test_hf_config_families.cpp.
"""
import json
import sys

import torch
from transformers import AutoConfig, AutoModelForCausalLM


def count(path):
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    if raw.get("model_type") == "kimi_k2":  # transformers reads it as DeepSeek-V3
        raw["model_type"] = "deepseek_v3"
    text = raw.get("text_config")
    if text is not None and "hidden_size" not in raw:
        raw = dict(text, tie_word_embeddings=raw.get("tie_word_embeddings", text.get("tie_word_embeddings")))
        if raw.get("tie_word_embeddings") is None:
            raw.pop("tie_word_embeddings")
    config = AutoConfig.for_model(raw.pop("model_type"), **raw)
    with torch.device("meta"):
        model = AutoModelForCausalLM.from_config(config)
    return sum(p.numel() for p in model.parameters())


def main():
    import transformers
    out = {"transformers": transformers.__version__, "torch": torch.__version__, "params": {}}
    for path in sys.argv[1:]:
        try:
            out["params"][path] = count(path)
        except Exception as e:  # one config transformers cannot build does not hide the others
            out["params"][path] = f"error: {type(e).__name__}: {e}"[:300]
    print(json.dumps(out, indent=1))


if __name__ == "__main__":
    main()

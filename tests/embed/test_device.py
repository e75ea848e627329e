"""Device and precision choices: auto picks fp16 on CUDA and fp32 on CPU; half on CPU is refused."""

from __future__ import annotations

import pytest

from yaksa.embed.device import DTYPES, resolve_device, resolve_dtype, torch_dtype


def test_auto_dtype_follows_the_device() -> None:
    assert resolve_dtype("auto", "cuda") == "float16"
    assert resolve_dtype("auto", "cuda:1") == "float16"
    assert resolve_dtype("auto", "cpu") == "float32"


@pytest.mark.parametrize("dtype", ["float32", "float16", "bfloat16"])
def test_explicit_dtype_on_cuda_is_kept(dtype: str) -> None:
    assert resolve_dtype(dtype, "cuda") == dtype


@pytest.mark.parametrize("dtype", ["float16", "bfloat16"])
def test_half_precision_on_cpu_is_an_error(dtype: str) -> None:
    with pytest.raises(ValueError, match=f"dtype {dtype} needs a CUDA device"):
        resolve_dtype(dtype, "cpu")


def test_unknown_dtype_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown dtype 'fp8'"):
        resolve_dtype("fp8", "cuda")


def test_auto_device(monkeypatch: pytest.MonkeyPatch) -> None:
    import torch

    assert resolve_device("cpu") == "cpu" and resolve_device("cuda:1") == "cuda:1"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    assert resolve_device("auto") == "cpu"
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    assert resolve_device("auto") == "cuda"


def test_torch_dtype_names() -> None:
    import torch

    assert [torch_dtype(d) for d in DTYPES if d != "auto"] == [torch.float32, torch.float16, torch.bfloat16]
    with pytest.raises(ValueError, match="not a resolved dtype"):
        torch_dtype("auto")


def test_attention_backends_leave_the_cpu_alone_and_drop_cudnn_on_cuda() -> None:
    """On CUDA the context excludes cuDNN's attention (its per-shape planning left an H200 idle, module
    doc); on a CPU it changes nothing. Entering the CUDA one needs no GPU: it only sets the allowed kernels."""
    import contextlib

    torch = pytest.importorskip("torch")

    from yaksa.embed.device import attention_backends

    assert isinstance(attention_backends("cpu"), contextlib.nullcontext)
    assert torch.backends.cuda.cudnn_sdp_enabled()
    with attention_backends("cuda:0"):
        assert not torch.backends.cuda.cudnn_sdp_enabled()
        assert torch.backends.cuda.flash_sdp_enabled() and torch.backends.cuda.mem_efficient_sdp_enabled()
        q = torch.zeros(1, 1, 2, 4)
        assert torch.nn.functional.scaled_dot_product_attention(q, q, q).shape == q.shape
    assert torch.backends.cuda.cudnn_sdp_enabled()

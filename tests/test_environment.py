"""Every environment variable is read in yaksa.environment, declared there, and documented."""

from __future__ import annotations

import re
from pathlib import Path

from yaksa import environment

ROOT = Path(__file__).resolve().parents[1]
# a read of the process environment: .get / os.getenv / os.environ[...] outside an assignment, or the
# mapping itself handed on (`os.environ if env is None`)
READ = re.compile(r"os\.getenv\(|os\.environ\.get\(|(?<!del )os\.environ\[[^\]]+\](?!\s*=)|os\.environ if ")


def test_only_the_environment_module_reads_the_environment() -> None:
    readers = []
    for package in ("yaksa", "serving", "yaksa_cli", "flows", "tasks"):
        for path in sorted((ROOT / package).rglob("*.py")):
            if path == ROOT / "yaksa" / "environment.py":
                continue
            for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                if READ.search(line) and not line.lstrip().startswith("#"):
                    readers.append(f"{path.relative_to(ROOT)}:{n}: {line.strip()}")
    assert not readers, "read the environment through yaksa.environment:\n" + "\n".join(readers)


def test_every_variable_is_in_the_configuration_page() -> None:
    page = (ROOT / "docs" / "configuration.md").read_text(encoding="utf-8")
    missing = [v.name for v in environment.VARIABLES if v.name not in page]
    assert not missing, f"docs/configuration.md does not list {missing}"


def test_readers(tmp_path: Path) -> None:
    assert environment.shared_data_dir(tmp_path, {}) == tmp_path.parent / "shared" / "data"
    assert environment.shared_data_dir(tmp_path, {environment.SHARED_DATA: " /data/x "}) == Path("/data/x")
    assert environment.content_reuse({}) and not environment.content_reuse({environment.REUSE_CONTENT: "0"})
    assert environment.worker_threads({}) is None
    assert environment.worker_threads({environment.WORKER_THREADS: "3"}) == 3
    assert environment.worker_threads({environment.WORKER_THREADS: "0"}) is None
    assert environment.worker_threads({environment.WORKER_THREADS: "many"}) is None

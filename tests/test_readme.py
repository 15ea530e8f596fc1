"""The README's commands and Python example stay true."""

from __future__ import annotations

import re
from pathlib import Path

README = (Path(__file__).resolve().parents[1] / "README.md").read_text()


def test_readme_opens_with_the_two_commands():
    first_block = re.search(r"```bash\n(.*?)```", README, re.S).group(1).strip().splitlines()
    assert [line.split("#")[0].strip() for line in first_block] == [
        'python -m pip install -e ".[all]" && relmc project',
        'python -m pip install -e ".[all]" && python -m pytest',
    ]


def test_readme_python_example_runs(capsys):
    # the ```python blocks (the ```py one needs a Slurm: tests/integration/test_slurm.py)
    blocks = re.findall(r"```python\n(.*?)```", README, re.S)
    assert blocks, "README has no Python example"
    for code in blocks:
        exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    # the example prints ETTR quantiles at two sizes, then one mean ETTR in (0, 1)
    assert "quantile" in out
    assert 0 < float(out.strip().splitlines()[-1]) < 1

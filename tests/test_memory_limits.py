"""Memory available from every limit that binds: the machine, cgroup v2 and v1, Slurm, ulimit -v.

Each test builds a fake ``/proc`` and cgroup tree in ``tmp_path`` (and a fake environment)
and passes their roots to :func:`relmc._io.memory_limit`; nothing here depends on the machine
the tests run on. Every source is tested alone, the smallest wins in combinations, "no limit"
values and garbled files are skipped, and the refusal message names the limit that applied.
"""

from __future__ import annotations

import ast
import functools
import pickle
import resource
import subprocess
import sys
from pathlib import Path

import pytest

import relmc._io as io_mod
from relmc._io import MemoryBytes, available_memory, memory_limit
from relmc.cli import main
from relmc.errors import FieldError

MiB, GiB = 2**20, 2**30
#: what cgroup v1 writes for "no limit" (2**63 rounded down to a 4 KiB page)
V1_UNLIMITED = "9223372036854771712"


class Machine:
    """A fake ``/proc`` and ``/sys/fs/cgroup`` under one folder, and a fake environment."""

    def __init__(self, root: Path):
        self.proc = root / "proc"
        self.cgroup = root / "cgroup"
        (self.proc / "self").mkdir(parents=True)
        self.cgroup.mkdir()
        self.environ: dict[str, str] = {}
        self.address: int | None = None  # RLIMIT_AS in bytes; None: none

    def meminfo(self, available_kib: int | str) -> Machine:
        (self.proc / "meminfo").write_text(
            f"MemTotal:       65536000 kB\nMemFree:         1000000 kB\n"
            f"MemAvailable:   {available_kib} kB\nBuffers:          100000 kB\n"
        )
        return self

    def rss(self, kib: int | str, vm_kib: int | str = 0) -> Machine:
        (self.proc / "self" / "status").write_text(
            f"Name:\tpython\nVmSize:\t{vm_kib} kB\nVmRSS:\t{kib} kB\nThreads:\t4\n"
        )
        return self

    def ulimit(self, address_bytes: int | None) -> Machine:
        self.address = address_bytes
        return self

    def cgroups(self, *lines: str) -> Machine:
        (self.proc / "self" / "cgroup").write_text("".join(line + "\n" for line in lines))
        return self

    def files(self, **texts: str) -> Machine:
        """Write files under the cgroup root: ``files(**{"job/memory.max": "1024"})``."""
        for rel, text in texts.items():
            path = self.cgroup / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text)
        return self

    def env(self, **values: str) -> Machine:
        self.environ.update(values)
        return self

    def limit(self) -> tuple[int, str] | None:
        return memory_limit(
            proc=self.proc, cgroup_root=self.cgroup, environ=self.environ,
            address_limit=self.address,
        )  # fmt: skip

    def available(self) -> int | None:
        return available_memory(
            proc=self.proc, cgroup_root=self.cgroup, environ=self.environ,
            address_limit=self.address,
        )  # fmt: skip


@pytest.fixture()
def m(tmp_path) -> Machine:
    return Machine(tmp_path)


# ------------------------------------------------------------------ each source alone


def test_nothing_readable_is_unknown(m):
    assert m.limit() is None and m.available() is None


def test_mem_available_alone(m):
    m.meminfo(8 * 1024 * 1024)
    assert m.limit() == (8 * GiB, "MemAvailable (/proc/meminfo)")
    avail = m.available()
    assert avail == 8 * GiB and isinstance(avail, int)
    assert avail.source == "MemAvailable (/proc/meminfo)"


def test_cgroup_v2_limit_minus_usage_without_droppable_cache(m):
    m.cgroups("0::/job/step").files(
        **{
            "job/step/memory.max": f"{GiB}\n",
            "job/step/memory.current": f"{256 * MiB}\n",
            # the kernel drops inactive file cache before it runs out: not used up
            "job/step/memory.stat": f"anon {150 * MiB}\nfile {100 * MiB}\n"
            f"inactive_file {56 * MiB}\nactive_file {44 * MiB}\n",
        }
    )
    where = m.cgroup / "job" / "step" / "memory.max"
    assert m.limit() == (GiB - 200 * MiB, f"cgroup memory.max ({where})")


def test_cgroup_v2_a_parents_smaller_limit_binds(m):
    m.cgroups("0::/job/step").files(
        **{
            "job/step/memory.max": "max\n",  # no limit of its own
            "job/step/memory.current": f"{100 * MiB}\n",
            "job/memory.max": f"{512 * MiB}\n",
            "job/memory.current": f"{112 * MiB}\n",
            "memory.max": f"{64 * GiB}\n",  # a larger limit above: not the one that binds
            "memory.current": f"{GiB}\n",
        }
    )
    assert m.limit() == (400 * MiB, f"cgroup memory.max ({m.cgroup / 'job' / 'memory.max'})")
    # and a child's smaller limit binds below a larger parent's
    m.files(**{"job/step/memory.max": f"{300 * MiB}\n"})
    assert m.limit() == (
        200 * MiB,
        f"cgroup memory.max ({m.cgroup / 'job' / 'step' / 'memory.max'})",
    )


def test_cgroup_v2_max_everywhere_is_no_limit(m):
    m.cgroups("0::/user.slice/session").files(
        **{
            "user.slice/session/memory.max": "max\n",
            "user.slice/session/memory.current": "123456\n",
            "user.slice/memory.max": "max\n",
            "user.slice/memory.current": "123456\n",
        }
    )
    assert m.limit() is None
    m.meminfo(1024)
    assert m.limit() == (MiB, "MemAvailable (/proc/meminfo)")


def test_cgroup_v2_container_whose_own_cgroup_is_the_mount_root(m):
    # /proc names the host path; inside the container that folder does not exist, and the
    # container's own cgroup (with its limit) is mounted at the root
    m.cgroups("0::/system.slice/docker-abc.scope").files(
        **{"memory.max": f"{2 * GiB}\n", "memory.current": f"{GiB}\n"}
    )
    assert m.limit() == (GiB, f"cgroup memory.max ({m.cgroup / 'memory.max'})")


def test_cgroup_v1_limit_minus_usage(m):
    m.cgroups(
        "12:pids:/slurm/uid_1/job_2",
        "4:memory:/slurm/uid_1/job_2",
        "3:cpu,cpuacct:/slurm/uid_1/job_2",
        "0::/",  # a hybrid machine also lists the (controller-less) unified hierarchy
    ).files(
        **{
            "memory/slurm/uid_1/job_2/memory.limit_in_bytes": f"{2 * GiB}\n",
            "memory/slurm/uid_1/job_2/memory.usage_in_bytes": f"{GiB}\n",
            "memory/slurm/uid_1/job_2/memory.stat": f"cache 1\ninactive_file {MiB}\n"
            f"total_inactive_file {GiB // 2}\n",
            "memory/slurm/uid_1/memory.limit_in_bytes": V1_UNLIMITED + "\n",
            "memory/slurm/uid_1/memory.usage_in_bytes": f"{GiB}\n",
            "memory/memory.limit_in_bytes": V1_UNLIMITED + "\n",
            "memory/memory.usage_in_bytes": f"{9 * GiB}\n",
        }
    )
    where = m.cgroup / "memory" / "slurm" / "uid_1" / "job_2" / "memory.limit_in_bytes"
    assert m.limit() == (GiB + GiB // 2, f"cgroup v1 memory.limit_in_bytes ({where})")


def test_cgroup_v1_unlimited_everywhere_is_no_limit(m):
    m.cgroups("4:memory:/process_api/abc").files(
        **{
            "memory/process_api/abc/memory.limit_in_bytes": V1_UNLIMITED,
            "memory/process_api/abc/memory.usage_in_bytes": "1639997440",
            "memory/memory.limit_in_bytes": V1_UNLIMITED,
            "memory/memory.usage_in_bytes": "1639997440",
        }
    )
    assert m.limit() is None


def test_slurm_mem_per_node_less_this_process(m):
    m.env(SLURM_MEM_PER_NODE="4096").rss(100 * 1024)
    assert m.limit() == (
        4096 * MiB - 100 * MiB,
        "SLURM_MEM_PER_NODE=4096 MiB, less this process's memory",
    )
    m.env(SLURM_MEM_PER_NODE="0")  # all of the node's memory: no limit of the job's own
    assert m.limit() is None


def test_slurm_mem_per_cpu_times_the_cpus(m):
    m.env(SLURM_MEM_PER_CPU="1000", SLURM_CPUS_ON_NODE="4", SLURM_CPUS_PER_TASK="2").rss(0)
    assert m.limit() == (
        4000 * MiB,
        "SLURM_MEM_PER_CPU=1000 MiB x SLURM_CPUS_ON_NODE=4, less this process's memory",
    )
    del m.environ["SLURM_CPUS_ON_NODE"]
    assert m.limit() == (
        2000 * MiB,
        "SLURM_MEM_PER_CPU=1000 MiB x SLURM_CPUS_PER_TASK=2, less this process's memory",
    )
    del m.environ["SLURM_CPUS_PER_TASK"]
    assert m.limit() is None  # per CPU, but no count of CPUs: unknown, skipped


def test_slurm_request_without_a_readable_rss_is_the_whole_request(m):
    m.env(SLURM_MEM_PER_NODE="2048")
    assert m.limit() == (2 * GiB, "SLURM_MEM_PER_NODE=2048 MiB, less this process's memory")


def test_address_space_limit_less_this_process(m):
    m.ulimit(6 * GiB).rss(100 * 1024, vm_kib=1024 * 1024)
    assert m.limit() == (
        5 * GiB,
        "RLIMIT_AS (ulimit -v) of 6144 MiB, less this process's address space",
    )
    m.rss(0, vm_kib=8 * 1024 * 1024)  # more mapped than the limit: nothing left
    assert m.limit()[0] == 0
    m.ulimit(None)
    assert m.limit() is None  # no address-space limit (and no other source)


def test_this_process_address_limit_is_read(tmp_path):
    """``ulimit -v`` set on a real child process is found and named (no fake tree)."""
    code = (
        "import resource\n"
        "resource.setrlimit(resource.RLIMIT_AS, (3 * 2**30, resource.RLIM_INFINITY))\n"
        "from relmc._io import memory_limit; print(memory_limit(proc='/nonexistent', "
        "cgroup_root='/nonexistent', environ={}))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    got = ast.literal_eval(out.stdout.strip())
    assert got[1] == "RLIMIT_AS (ulimit -v) of 3072 MiB, less this process's address space"
    assert got[0] == 3 * GiB  # /proc unreadable here: no VmSize to take off
    code_none = code.replace("resource.setrlimit", "(lambda *a: None)")
    out = subprocess.run(
        [sys.executable, "-c", code_none], capture_output=True, text=True, check=True
    )
    limit = resource.getrlimit(resource.RLIMIT_AS)[0]
    expect = "None" if limit == resource.RLIM_INFINITY else "RLIMIT_AS"
    assert expect in out.stdout


# ------------------------------------------------------------------ together: the smallest wins


@pytest.mark.parametrize(
    "smallest", ["MemAvailable", "cgroup memory.max", "cgroup v1", "SLURM", "RLIMIT_AS"]
)
def test_the_smallest_limit_wins(m, smallest):
    sizes = {"MemAvailable": 8 * GiB, "cgroup memory.max": 6 * GiB, "cgroup v1": 5 * GiB}
    sizes["SLURM"] = 7 * GiB
    sizes["RLIMIT_AS"] = 9 * GiB
    sizes[smallest] = GiB
    m.meminfo(sizes["MemAvailable"] // 1024).rss(0).ulimit(sizes["RLIMIT_AS"])
    m.cgroups("4:memory:/job", "0::/job").files(
        **{
            "job/memory.max": str(sizes["cgroup memory.max"] + GiB),
            "job/memory.current": str(GiB),
            "memory/job/memory.limit_in_bytes": str(sizes["cgroup v1"] + 2 * GiB),
            "memory/job/memory.usage_in_bytes": str(2 * GiB),
        }
    )
    m.env(SLURM_MEM_PER_NODE=str(sizes["SLURM"] // MiB))
    got, source = m.limit()
    assert got == GiB and source.startswith(smallest)
    assert m.available().source == source


# ------------------------------------------------------------------ garbage is skipped


@pytest.mark.parametrize(
    "garbage",
    ["", "lots\n", "-5\n", "12abc\n", "1e9\n", "\u00b2\n", "9" * 5000, "max max\n"],
    ids=["empty", "word", "negative", "suffix", "float", "superscript", "huge", "two"],
)
def test_garbled_files_and_variables_are_skipped(m, garbage):
    m.meminfo(garbage.strip() or "x")
    m.cgroups("0::/job", "4:memory:/job").files(
        **{
            "job/memory.max": garbage,
            "job/memory.current": "1",
            "memory/job/memory.limit_in_bytes": garbage,
            "memory/job/memory.usage_in_bytes": "1",
        }
    )
    m.env(SLURM_MEM_PER_NODE=garbage, SLURM_MEM_PER_CPU="100", SLURM_CPUS_ON_NODE=garbage)
    assert m.limit() is None
    # one good source among the garbage still counts
    m.files(**{"job/memory.max": str(3 * GiB)})
    assert m.limit() == (3 * GiB - 1, f"cgroup memory.max ({m.cgroup / 'job' / 'memory.max'})")


def test_unreadable_files_are_skipped(m):
    m.cgroups("0::/job").files(**{"job/memory.current": "1"})
    (m.cgroup / "job" / "memory.max").mkdir()  # a folder where a file belongs
    (m.proc / "meminfo").write_bytes(b"MemAvailable: \xff\xfe kB\n")  # not text
    (m.proc / "self" / "status").mkdir()
    m.env(SLURM_MEM_PER_NODE="1024")
    assert m.limit() == (GiB, "SLURM_MEM_PER_NODE=1024 MiB, less this process's memory")
    (m.proc / "self" / "cgroup").write_bytes(b"\x00\xff garbage")
    assert m.limit()[0] == GiB


def test_garbled_usage_or_stat_lines_skip_only_what_they_garble(m):
    m.cgroups("0::/job").files(
        **{
            "job/memory.max": str(GiB),
            "job/memory.current": str(GiB // 2),
            "job/memory.stat": "inactive_file lots\nnot a line at all\n",
        }
    )
    assert m.limit()[0] == GiB // 2  # the cache figure is garbled: usage counts whole
    m.files(**{"job/memory.current": "?"})
    assert m.limit() is None  # a limit without a usage says nothing


# ------------------------------------------------------------------ the message names the limit


def test_memory_bytes_is_an_int_that_pickles():
    b = MemoryBytes(5, "cgroup memory.max (x)")
    assert b == 5 and b + 1 == 6 and type(b + 1) is int
    c = pickle.loads(pickle.dumps(b))
    assert c == 5 and c.source == b.source


@pytest.fixture()
def limited(m, monkeypatch) -> Machine:
    """A machine with plenty of MemAvailable in a 1 GiB cgroup, seen by every memory check."""
    m.meminfo(64 * 1024 * 1024).cgroups("0::/job").files(
        **{"job/memory.max": str(GiB + 10 * MiB), "job/memory.current": str(10 * MiB)}
    )
    bound = functools.partial(
        available_memory, proc=m.proc, cgroup_root=m.cgroup, environ=m.environ, address_limit=None
    )
    monkeypatch.setattr(io_mod, "available_memory", bound)
    return m


def test_the_refusal_names_the_limit_that_applied(limited, monkeypatch):
    where = limited.cgroup / "job" / "memory.max"
    with pytest.raises(FieldError) as e:
        io_mod.check_trial_memory(10**8, 3)
    text = str(e.value)
    assert e.value.field == "n_trials"
    assert f"1.0 GiB is available (limit: cgroup memory.max ({where}))" in text
    assert text.endswith("trials here")
    # Slurm's smaller request takes over, and is named
    limited.env(SLURM_MEM_PER_NODE="512").rss(0)
    with pytest.raises(FieldError, match=r"0\.5 GiB is available \(limit: SLURM_MEM_PER_NODE="):
        io_mod.check_trial_memory(10**8, 3)
    # a replacement that returns a plain int (as tests elsewhere install) still works
    monkeypatch.setattr(io_mod, "available_memory", lambda: GiB)
    with pytest.raises(FieldError, match=r"1\.0 GiB is available; use at most"):
        io_mod.check_trial_memory(10**8, 3)


def test_the_command_line_names_the_limit(limited, tmp_path, capsys):
    argv = ["project", "--n-trials", "10000000", "--out", str(tmp_path / "o")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "n_trials=10,000,000 needs about" in err[0]
    assert "(limit: cgroup memory.max (" in err[0] and err[0].endswith("(option --n-trials)")
    assert not (tmp_path / "o").exists()


def test_this_machine_gives_a_named_limit_or_none():
    got = memory_limit()  # the real /proc, /sys/fs/cgroup and environment
    if got is None:
        assert available_memory() is None
    else:
        assert got[0] >= 0 and got[1].startswith(("MemAvailable", "cgroup", "SLURM_MEM_PER_"))


# ------------------------------------------------------------------ a fit's posterior draws


def test_posterior_draws_beyond_memory_are_refused_naming_the_limit(limited):
    where = limited.cgroup / "job" / "memory.max"
    # 72 values a draw (18 categories), 8 bytes, one copy: 576 bytes; 1 GiB holds 1,864,135
    with pytest.raises(FieldError) as e:
        io_mod.check_posterior_memory(2_000_000, 1, 72)
    assert e.value.field == "n_draws"
    text = str(e.value)
    assert text.startswith(
        "n_draws x n_chains = 2,000,000 x 1 posterior draws of 72 values each need about "
        "1.1 GiB of memory"  # 2e6 x 576 bytes = 1.07 GiB
    )
    assert f"1.0 GiB is available (limit: cgroup memory.max ({where}))" in text
    assert text.endswith(f"use at most {GiB // 576:,} draws in all")
    # negative controls: the largest count that fits passes, as does the same at half the copies
    io_mod.check_posterior_memory(GiB // 576, 1, 72)
    io_mod.check_posterior_memory(2_000_000, 1, 72, copies=0.5)
    with pytest.raises(FieldError, match=r"x 4 posterior draws"):  # chains count
        io_mod.check_posterior_memory(500_000, 4, 72)
    with pytest.raises(FieldError, match=r"use at most 932,067 draws"):  # copies count
        io_mod.check_posterior_memory(1_000_000, 1, 72, copies=2.0)


def test_fits_check_their_draws_before_any_work(limited, monkeypatch):
    import relmc
    from relmc.models import conjugate

    data = relmc.load_dataset("llama3-405b")  # 18 categories: 72 values a draw
    drawn = []
    monkeypatch.setattr(conjugate, "child_seed", lambda *a: drawn.append(a))
    with pytest.raises(FieldError, match=r"2,000,000 x 1 posterior draws of 72 values"):
        relmc.fit_conjugate(data, n_draws=2_000_000, n_chains=1)
    assert drawn == []  # refused before any drawing
    # the hierarchical fit counts its hyperparameters and NUTS's statistics too (94 values)
    with pytest.raises(FieldError, match=r"of 94 values each"):
        relmc.fit_hierarchical(data, n_draws=2_000_000, n_chains=1)


@pytest.mark.parametrize(
    ("command", "model", "fits"),
    [
        ("fit", "conjugate", 932_067),  # 72 values a draw, 2 copies
        ("project", "conjugate", 828_504),  # 2.25 copies
        ("fit", "hierarchical", 713_924),  # 94 values: alpha, beta and NUTS's statistics
    ],
)
def test_the_command_line_refuses_draws_before_the_fit(
    limited, tmp_path, capsys, command, model, fits
):
    """``relmc fit`` and ``project`` count the posterior's netCDF copy (2 and 2.25 copies)."""
    out = tmp_path / "o"
    argv = [command, "--model", model, "--n-draws", str(fits + 1), "--n-chains", "1"]
    assert main([*argv, "--out", str(out)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and f"use at most {fits:,} draws in all" in err[0]
    assert err[0].endswith("(option --n-draws)") and not out.exists()


def test_trial_bytes_are_the_kernel_outputs_of_a_trial_plus_the_fixed_extra():
    """``trial_bytes`` against the outputs the kernel allocates for one trial, measured.

    The arrays of ``allocate_outputs(1, n)`` (what a trial's kernel outputs take) plus the
    documented fixed extra, for 1, 18 and 57 categories; the outputs alone are short of it (a
    mutant that divided by the extra made every run look small and let a test run a
    simulation the memory check should refuse, until the runner's time limit).
    """
    from relmc.sim.inputs import allocate_outputs

    for n in (1, 18, 57):
        measured = sum(a.nbytes for a in allocate_outputs(1, n).values())
        assert io_mod.trial_bytes(n) == measured + io_mod._TRIAL_EXTRA_BYTES, n
        assert io_mod.trial_bytes(n) > measured

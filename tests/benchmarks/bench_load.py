"""A class at once: N sessions over Streamlit's own websocket protocol, each moving a page's main control.

`python -m tests.benchmarks.bench_load [--n 1,10,30,60] [--pages manifolds,words,sets] [--changes 5]
[--reference LAB_SOLVE_WORKERS=0]` from the
project root. The table is printed and written to tests/.artifacts/bench_load.txt; :func:`run` returns
harness Results for tests/benchmarks/run.py (``run.py load``; the default classes take about 25 minutes).

No browser: a browser per student, not the server, was the bottleneck of earlier measurements. Each
session is a :class:`tests.streamlit_ws.Session`. For each page and each N a server is started
(``streamlit run`` on a free port, no file watcher) and warmed by one session, then N sessions start
within one think time of each other; each opens the page on a seed of its own (``?seed=``: its own
points, corpus sample or item vectors, so no session finds another's cache entries) and makes
:data:`CHANGES` changes of the page's main control to values of its own, spread over the control's
range, waiting a think time of about :data:`THINK_S` s (uniform jitter of a third) after each answer.

What is reported, per page and N:

* **change latency** (p50, p95, max): from sending the rerun to its ``script_finished``: the whole run
  of the page, everything the page draws at that value. The reference is the p50 at N = 1 of the same
  page in the same run; the ratio p95 / that p50 says how much a class slows one change.
* **errors**: runs that raised (an exception element), did not finish in :data:`RUN_TIMEOUT_S`, or lost
  their socket.
* **server RSS**: peak and at the end (psutil, else /proc), **server CPU**: the process's CPU time over
  the changes' wall time, in cores (2.0 = both of this machine's cores busy) and the load average.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import socket
import statistics
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tests.benchmarks.harness import Result
from tests.conftest import APP, ARTIFACTS, ROOT
from tests.serving import wait_healthy
from tests.streamlit_ws import ScriptError, Session

#: Changes each session makes.
CHANGES = 5
#: Mean think time between a change's answer and the next change (uniform jitter of a third either way).
THINK_S = 3.0
#: One page run, to script_finished.
RUN_TIMEOUT_S = 180.0
#: Classes measured by default.
N_DEFAULT = (1, 10, 30, 60)


@dataclass(frozen=True)
class Control:
    """A control by its user key, the values it can take (in its order) and its default (never moved to)."""

    key: str
    values: tuple
    default: object


@dataclass(frozen=True)
class Scenario:
    """A page and its main controls, moved in turn (the first, the second, the first, ...)."""

    page: str
    title: str
    controls: tuple[Control, ...]


SCENARIOS = {
    "manifolds": Scenario("manifolds", "Manifolds B", (Control("man.B", tuple(range(3, 61)), 12),)),
    "words": Scenario("words", "Words window", (Control("words.window", tuple(range(1, 11)), 5),)),
    "sets": Scenario("sets", "Sets K/N", (Control("sets.K", tuple(range(1, 13)), 4),
                                          Control("sets.N", (1, 2, 3, 4, 6, 8, 10, 12, 20, 24, 30, 32, 48, 64), 16))),
}


def plan(s: Scenario, session: int, changes: int) -> list[tuple[str, object]]:
    """The (key, value) changes of session ``session``: ``changes`` of them, the controls in turn, each control's
    values spread over its range and shifted per session, never its default.

    >>> plan(SCENARIOS["manifolds"], 0, 5)
    [('man.B', 3), ('man.B', 15), ('man.B', 26), ('man.B', 37), ('man.B', 48)]
    >>> [v for _, v in plan(SCENARIOS["manifolds"], 1, 5)]
    [4, 16, 27, 38, 49]
    >>> plan(SCENARIOS["sets"], 0, 3)
    [('sets.K', 1), ('sets.N', 1), ('sets.K', 7)]
    """
    out = []
    for i in range(changes):
        c = s.controls[i % len(s.controls)]
        values = [v for v in c.values if v != c.default]
        turns = -(-changes // len(s.controls))  # the changes this control gets
        step = max(1, len(values) // turns)
        out.append((c.key, values[(session + (i // len(s.controls)) * step) % len(values)]))
    return out


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def server(log_name: str, env: dict[str, str] | None = None):
    """``streamlit run`` of the app on a free port (with ``env`` added to its environment) until /_stcore/health
    answers: yields (url, pid)."""
    port = _free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    with open(ARTIFACTS / log_name, "w") as log:
        proc = subprocess.Popen(
            [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
             "--server.headless", "true", "--server.fileWatcherType", "none",
             "--browser.gatherUsageStats", "false"],
            cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})})
        url = f"http://127.0.0.1:{port}"
        try:
            problem = wait_healthy(url, proc)
            if problem:
                raise RuntimeError(f"{problem}; see {log.name}")
            yield url, proc.pid
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


class Probe:
    """The server process's RSS and CPU time (psutil if installed, else /proc)."""

    def __init__(self, pid: int):
        self.pid = pid
        try:
            import psutil

            self._proc = psutil.Process(pid)
        except ImportError:
            self._proc = None

    def rss_mb(self) -> float:
        if self._proc is not None:
            return self._proc.memory_info().rss / 2**20
        with open(f"/proc/{self.pid}/status") as f:
            line = next(x for x in f if x.startswith("VmRSS:"))
        return int(line.split()[1]) / 1024

    def cpu_s(self) -> float:
        """User + system CPU seconds of the server and its children (a worker pool counts)."""
        if self._proc is not None:
            t = self._proc.cpu_times()
            total = t.user + t.system
            for child in self._proc.children(recursive=True):
                try:
                    c = child.cpu_times()
                    total += c.user + c.system
                except Exception:  # a child that ended meanwhile
                    pass
            return total
        with open(f"/proc/{self.pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12]) + int(fields[13]) + int(fields[14])) / os.sysconf("SC_CLK_TCK")

    def rss_total_mb(self) -> float:
        """RSS of the server and its children."""
        rss = self.rss_mb()
        if self._proc is not None:
            for child in self._proc.children(recursive=True):
                try:
                    rss += child.memory_info().rss / 2**20
                except Exception:
                    pass
        return rss


@dataclass
class Measured:
    page: str  # with the reference setting, if any, after it
    n: int
    latencies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    opens: list[float] = field(default_factory=list)
    rss_peak_mb: float = 0.0
    rss_end_mb: float = 0.0
    cores: float = 0.0
    load: float = 0.0
    wall_s: float = 0.0

    def q(self, p: float) -> float:
        xs = sorted(self.latencies)
        if not xs:
            return float("nan")
        return xs[min(len(xs) - 1, max(0, int(round(p * (len(xs) - 1)))))]


async def _session(url: str, s: Scenario, i: int, seed: int, changes: int, think: float, out: Measured,
                   rng: random.Random) -> None:
    await asyncio.sleep(rng.uniform(0, think))  # a class does not press Enter at the same instant
    try:
        async with await Session.connect(url) as ses:
            first = await ses.open(s.page, f"seed={seed}", timeout=RUN_TIMEOUT_S)
            out.opens.append(first.seconds)
            if first.exceptions:
                out.errors.append(f"open: {first.exceptions[0][:120]}")
            for key, value in plan(s, i, changes):
                await asyncio.sleep(think * rng.uniform(2 / 3, 4 / 3))
                run = await ses.change(key, value, timeout=RUN_TIMEOUT_S)
                if run.exceptions:
                    out.errors.append(f"{key}={value}: {run.exceptions[0][:120]}")
                else:
                    out.latencies.append(run.seconds)
    except (ScriptError, OSError, KeyError) as err:
        out.errors.append(f"session {i}: {type(err).__name__}: {str(err)[:160]}")


async def _class(url: str, probe: Probe, s: Scenario, n: int, changes: int, think: float, seed0: int) -> Measured:
    out = Measured(s.title, n)
    rng = random.Random(seed0)
    done = asyncio.Event()

    async def sample() -> None:
        while not done.is_set():
            out.rss_peak_mb = max(out.rss_peak_mb, probe.rss_total_mb())
            await asyncio.sleep(0.25)

    sampler = asyncio.create_task(sample())
    cpu0, t0 = probe.cpu_s(), time.perf_counter()
    load0 = os.getloadavg()[0]
    await asyncio.gather(*(_session(url, s, i, seed0 + i, changes, think, out, random.Random(seed0 * 1000 + i))
                           for i in range(n)))
    out.wall_s = time.perf_counter() - t0
    out.cores = (probe.cpu_s() - cpu0) / out.wall_s
    out.load = max(load0, os.getloadavg()[0])
    done.set()
    await sampler
    out.rss_end_mb = probe.rss_total_mb()
    return out


def measure(s: Scenario, ns: list[int], changes: int = CHANGES, think: float = THINK_S,
            reference: dict[str, str] | None = None) -> list[Measured]:
    """Each N of ``ns`` on a server of its own (warmed by one session, not measured); with ``reference`` (an
    environment, e.g. ``LAB_SOLVE_WORKERS=0``), each N is measured first on a server with it, then without."""
    results = []
    for n in ns:
        for env in ([reference] if reference else []) + [None]:
            label = s.title + ("" if env is None else " (" + ",".join(f"{k}={v}" for k, v in env.items()) + ")")
            print(f"{label}: N = {n} ...", file=sys.stderr, flush=True)
            tag = "" if env is None else "-reference"
            with server(f"bench_load-{s.page}-{n}{tag}.log", env) as (url, pid):
                probe = Probe(pid)

                async def warm() -> None:
                    async with await Session.connect(url) as ses:
                        await ses.open(s.page, "seed=9999", timeout=RUN_TIMEOUT_S)
                        for key, value in plan(s, 0, len(s.controls)):
                            await ses.change(key, value, timeout=RUN_TIMEOUT_S)

                asyncio.run(warm())
                m = asyncio.run(_class(url, probe, s, n, changes, think, seed0=100))
                m.page = label
                results.append(m)
                print(row(m, None), file=sys.stderr, flush=True)
    return results


HEAD = (f"{'page':36s} {'N':>3s} {'changes':>7s} {'p50 s':>7s} {'p95 s':>7s} {'max s':>7s} {'p95/N=1 p50':>11s} "
        f"{'errors':>6s} {'RSS peak':>9s} {'RSS end':>8s} {'cores':>6s} {'load':>5s} {'open p50':>8s}")


def row(m: Measured, ref: float | None) -> str:
    ratio = "" if not ref else f"{m.q(0.95) / ref:10.1f}x"
    opens = statistics.median(m.opens) if m.opens else float("nan")
    return (f"{m.page:36s} {m.n:3d} {len(m.latencies):7d} {m.q(0.5):7.2f} {m.q(0.95):7.2f} {m.q(1.0):7.2f} "
            f"{ratio:>11s} {len(m.errors):6d} {m.rss_peak_mb:7.0f}MB {m.rss_end_mb:6.0f}MB {m.cores:6.2f} "
            f"{m.load:5.1f} {opens:7.2f}s")


def _refs(results: list[Measured]) -> dict[str, float]:
    """Each setting's p50 at N = 1: the reference of its rows."""
    return {m.page: m.q(0.5) for m in results if m.n == 1}


def table(all_results: list[list[Measured]]) -> str:
    lines = [HEAD, "-" * len(HEAD)]
    for results in all_results:
        refs = _refs(results)
        lines += [row(m, refs.get(m.page)) for m in results]
    errors = [f"  {m.page} N={m.n}: {e}" for results in all_results for m in results for e in m.errors[:3]]
    if errors:
        lines += ["", "errors (first three of each):", *errors]
    return "\n".join(lines)


def run(pages: list[str] | None = None, ns: list[int] | None = None, changes: int = CHANGES,
        think: float = THINK_S, reference: dict[str, str] | None = None) -> list[Result]:
    """Measure, print and save the table; harness Results of the p95 at each N against the reference setting's
    p95 at the same N when there is one, else against the N = 1 p50."""
    ns = ns or list(N_DEFAULT)
    all_results = [measure(SCENARIOS[p], ns, changes, think, reference) for p in (pages or list(SCENARIOS))]
    text = f"load average before: {os.getloadavg()[0]:.1f}; {os.cpu_count()} cores\n" + table(all_results)
    print(text)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    (ARTIFACTS / "bench_load.txt").write_text(text + "\n")
    out = []
    for results in all_results:
        refs = _refs(results)
        ours = [m for m in results if "(" not in m.page]
        for m in ours:
            same_n = next((r for r in results if r.n == m.n and r is not m), None)
            ref_name, ref = ((f"p95 with {same_n.page[len(m.page):].strip()}", same_n.q(0.95)) if same_n
                             else ("the same change's p50 at N=1", refs.get(m.page)))
            out.append(Result(f"load: {m.page} change p95, N={m.n}", m.q(0.95), ref_name, ref,
                              f"p50 {m.q(0.5):.2f} s, max {m.q(1.0):.2f} s, {len(m.errors)} errors, "
                              f"{m.cores:.2f} cores, RSS {m.rss_peak_mb:.0f} MB"))
    return out


def main(argv: list[str]) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", default=",".join(map(str, N_DEFAULT)), help="class sizes, comma-separated")
    ap.add_argument("--pages", default=",".join(SCENARIOS), help=f"of {', '.join(SCENARIOS)}")
    ap.add_argument("--changes", type=int, default=CHANGES, help="changes per session")
    ap.add_argument("--think", type=float, default=THINK_S, help="mean think time, seconds")
    ap.add_argument("--reference", default="", help="NAME=VALUE[,...]: each N is measured first on a server with "
                    "this environment (e.g. LAB_SOLVE_WORKERS=0, the solves in the server's threads)")
    a = ap.parse_args(argv)
    reference = dict(kv.split("=", 1) for kv in a.reference.split(",") if kv) or None
    run([p for p in a.pages.split(",") if p], [int(x) for x in a.n.split(",")], a.changes, a.think, reference)


if __name__ == "__main__":
    main(sys.argv[1:])

"""Two lab servers behind nginx, as app/deploy/compose.yaml runs N of them: sticky sessions, websockets, uploads.

nginx comes from Debian's package (tests/run.sh installs it). Its configuration is the shipped
app/deploy/nginx.conf with only the upstream servers, the listen port and the temp directory replaced,
so what passes here is the file a class is served with. Docker cannot run here: compose.yaml is parsed and
held to the Dockerfile and nginx.conf, and the Dockerfile is checked line by line, not built.

Sessions are driven over Streamlit's websocket protocol (tests/streamlit_ws.py) the way a browser drives
them: the page first (nginx answers with its cookie), /_stcore/health (Streamlit's XSRF cookie), then the
websocket with both cookies, the XSRF token and an Origin naming the address the class typed.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
import uuid
from contextlib import ExitStack, contextmanager
from http.cookies import SimpleCookie
from pathlib import Path

import pytest

from tests.conftest import APP, ARTIFACTS, ROOT
from tests.e2e.test_browser import _free_port
from tests.serving import wait_healthy
from tests.streamlit_ws import Session

DEPLOY = ROOT / "app" / "deploy"
XSRF = "_streamlit_xsrf"
STICKY = "lab_replica"
# A name no allow-list holds: the websocket is accepted only if nginx passes the browser's Host on unchanged
# (Streamlit accepts an Origin equal to the Host it was sent, or localhost and the machine's own addresses).
CLASS_HOST = "lab.school.test"
SETS_WIDTH = "sketch width N·2^K"  # the Sets page's metric: N·2^K, N = 16 unless changed


def _nginx() -> str | None:
    return shutil.which("nginx") or next(
        (p for p in ("/usr/sbin/nginx", "/usr/local/sbin/nginx") if os.access(p, os.X_OK)), None)


def nginx_conf(servers: list[str], port: int, temp: Path) -> str:
    """The shipped nginx.conf with these upstream servers, this port and this temp directory (nothing else)."""
    text = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    swaps = [
        (r"^(\s*)server app:8501;", lambda m: "".join(f"{m[1]}server {s};\n" for s in servers).rstrip("\n")),
        (r"^(\s*)listen 80;", lambda m: f"{m[1]}listen 127.0.0.1:{port};"),
        (r"/var/cache/nginx/", lambda m: f"{temp}/"),
    ]
    for pattern, repl in swaps:
        text, n = re.subn(pattern, repl, text, flags=re.M)
        assert n >= 1, f"app/deploy/nginx.conf no longer has {pattern!r}: the test cannot run the shipped file"
    return text


@contextmanager
def lab_servers(n: int):
    """``n`` lab servers started together, each on a free port, until every /_stcore/health answers."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    procs, logs, ports = [], [], []
    try:
        for i in range(n):
            port = _free_port()
            log = open(ARTIFACTS / f"replica-{i}.log", "w")
            logs.append(log)
            ports.append(port)
            procs.append(subprocess.Popen(
                [sys.executable, "-m", "streamlit", "run", str(APP), "--server.port", str(port),
                 "--server.address", "127.0.0.1", "--server.headless", "true",
                 "--browser.gatherUsageStats", "false"],
                cwd=ROOT, stdout=log, stderr=subprocess.STDOUT))
        for proc, port, log in zip(procs, ports, logs):
            _wait_health(f"http://127.0.0.1:{port}", proc, log.name)
        yield ports
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        for log in logs:
            log.close()


def _wait_health(url: str, proc: subprocess.Popen, log: str) -> None:
    problem = wait_healthy(url, proc, tries=1200)
    if problem:
        pytest.fail(f"{problem}; see {log}")


@contextmanager
def nginx_in_front(binary: str, ports: list[int]):
    """nginx from the shipped nginx.conf in front of the servers on ``ports``: yields (its url, its access log)."""
    with tempfile.TemporaryDirectory(prefix="lab-nginx-") as tmp:
        tmp = Path(tmp)
        os.chmod(tmp, 0o755)  # run as root, nginx's workers are another user and keep their temp files here
        port = _free_port()
        conf = tmp / "nginx.conf"
        conf.write_text(nginx_conf([f"127.0.0.1:{p}" for p in ports], port, tmp), encoding="utf-8")
        (ARTIFACTS / "replicas-nginx.conf").write_text(conf.read_text(encoding="utf-8"), encoding="utf-8")
        access, error = ARTIFACTS / "replicas-nginx-access.log", ARTIFACTS / "replicas-nginx-error.log"
        error.unlink(missing_ok=True)  # nginx appends to its error log
        globals_ = f"daemon off; pid {tmp}/nginx.pid; error_log {error} info;"
        check = subprocess.run([binary, "-t", "-p", str(tmp), "-c", str(conf), "-g", globals_],
                               capture_output=True, text=True)
        assert check.returncode == 0, f"nginx -t refuses app/deploy/nginx.conf:\n{check.stderr}"
        with open(access, "w") as out:
            proc = subprocess.Popen([binary, "-p", str(tmp), "-c", str(conf), "-g", globals_],
                                    stdout=out, stderr=subprocess.STDOUT)
            try:
                url = f"http://127.0.0.1:{port}"
                _wait_health(url, proc, str(error))
                yield url, access
            finally:
                proc.terminate()  # SIGTERM: nginx's fast shutdown, workers included
                try:
                    proc.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    proc.kill()
                    proc.wait()


@pytest.fixture(scope="module")
def proxied():
    binary = _nginx()
    if binary is None:
        pytest.skip("no nginx binary: install Debian's nginx-light (tests/run.sh does) to test the replicas' proxy")
    with ExitStack() as stack:
        ports = stack.enter_context(lab_servers(2))
        url, access = stack.enter_context(nginx_in_front(binary, ports))
        yield url, ports, access


def _get(url: str, cookies: dict[str, str], host: str | None = None):
    """GET ``url`` with ``cookies``: (status, the cookies it set, its X-Upstream header)."""
    req = urllib.request.Request(url, headers={"Cookie": "; ".join(f"{k}={v}" for k, v in cookies.items())})
    if host:
        req.add_header("Host", host)
    with urllib.request.urlopen(req, timeout=30) as r:
        jar = SimpleCookie()
        for raw in r.headers.get_all("Set-Cookie") or []:
            jar.load(raw)
        return r.status, {k: m.value for k, m in jar.items()}, r.headers.get("X-Upstream")


def _put_file(url: str, session_id: str, cookies: dict[str, str], xsrf: str | None, host: str | None = None,
              rows: int = 1) -> int:
    """PUT a CSV of ``rows`` rows into ``session_id``'s uploads at ``url``, as the uploader does: the HTTP status.

    Streamlit answers 204 only on the server that holds the session (400 "Invalid session_id" on another),
    and 403 without a matching XSRF token."""
    boundary = uuid.uuid4().hex
    body = (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"probe.csv\"\r\n"
            f"Content-Type: text/csv\r\n\r\nx,y\n{'1,2' * rows}\n\r\n--{boundary}--\r\n").encode()
    req = urllib.request.Request(f"{url}/_stcore/upload_file/{session_id}/{uuid.uuid4().hex}", data=body,
                                 method="PUT", headers={"Content-Type": f"multipart/form-data; boundary={boundary}"})
    req.add_header("Cookie", "; ".join(f"{k}={v}" for k, v in cookies.items()))
    if xsrf:
        req.add_header("X-Xsrftoken", xsrf)
    if host:
        req.add_header("Host", host)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code


def _declared_too_large(url: str, host: str) -> int:
    """The status nginx answers to an upload that declares 250 MB (none of it is sent)."""
    port = int(url.rsplit(":", 1)[1])
    with socket.create_connection(("127.0.0.1", port), timeout=30) as sock:
        sock.sendall(f"PUT /_stcore/upload_file/s/f HTTP/1.1\r\nHost: {host}\r\nContent-Length: {250 << 20}\r\n"
                     "Content-Type: multipart/form-data; boundary=b\r\n\r\n".encode())
        return int(sock.recv(4096).split(b" ", 2)[1])


def _width(run) -> str:
    return next(el.metric.body for el in run.kinds("metric") if el.metric.label == SETS_WIDTH)


class Visitor:
    """One browser tab of the class, through nginx."""

    def __init__(self, proxy: str, k: int):
        self.proxy, self.k = proxy, k
        port = proxy.rsplit(":", 1)[1]
        self.host = f"{CLASS_HOST}:{port}"  # the address the class typed, resolved here to 127.0.0.1
        self.cookies: dict[str, str] = {}
        self.upstreams: set[str] = set()
        self.session: Session | None = None

    def arrive(self) -> None:
        """The page, then Streamlit's health check, as the browser loads the app: both cookies."""
        status, set_, upstream = _get(self.proxy + "/sets", {}, self.host)
        assert status == 200 and STICKY in set_, f"nginx set no {STICKY} cookie: {set_}"
        self.cookies.update(set_)
        self.upstreams.add(upstream)
        status, set_, upstream = _get(self.proxy + "/_stcore/health", self.cookies, self.host)
        assert status == 200 and XSRF in set_, f"Streamlit's XSRF cookie did not pass nginx: {set_}"
        assert STICKY not in set_, "nginx set its cookie again on a request that carried it"
        self.cookies.update(set_)
        self.upstreams.add(upstream)

    async def connect(self, session_id: str | None = None) -> Session:
        self.session = await Session.connect(
            self.proxy, cookies=self.cookies, session_id=session_id, xsrf_token=self.cookies[XSRF],
            headers={"Host": self.host, "Origin": f"http://{self.host}"})
        return self.session


def test_two_replicas_behind_nginx_keep_each_session(proxied):
    proxy, ports, access = proxied
    replicas = {f"127.0.0.1:{p}": f"http://127.0.0.1:{p}" for p in ports}

    async def drive():
        # Visitors arrive until each replica holds at least two sessions (nginx's random cookie decides; that
        # 24 arrivals leave a replica with fewer has a chance of 50 in 2**24).
        visitors: list[Visitor] = []
        held: dict[str, list[Visitor]] = {r: [] for r in replicas}
        while min(map(len, held.values())) < 2:
            assert len(visitors) < 24, f"24 visitors and a replica held fewer than two: {held}"
            v = Visitor(proxy, k=5 + len(visitors) % 6)  # K = 5..10, neighbours differ; the default is 4
            v.arrive()
            assert len(v.upstreams) == 1, f"one browser's requests went to {v.upstreams}"
            s = await v.connect()
            first = await s.open("sets")
            assert not first.exceptions, first.exceptions
            assert _width(first) == "256"
            visitors.append(v)
            held[next(iter(v.upstreams))].append(v)

        # Each moves K to its own value; then each reruns (moving the seed), the others' changes in between.
        for v in visitors:
            run = await v.session.change("sets.K", v.k)
            assert _width(run) == f"{16 * 2 ** v.k:,}"
        for i, v in enumerate(visitors):
            run = await v.session.change("global.seed", 100 + i)
            assert not run.exceptions, run.exceptions
            assert list(v.session.widgets["sets.K"].proto.value) in ([], [v.k])
            assert _width(run) == f"{16 * 2 ** v.k:,}", "a rerun lost the session's K"

        # Each session sits on the replica nginx named, and only there: an upload is taken there (and through
        # nginx, with the XSRF token) and refused by the other replica.
        for v in visitors:
            sid = v.session.session_id
            (mine,) = v.upstreams
            assert _put_file(proxy, sid, v.cookies, v.cookies[XSRF], v.host) == 204
            for name, url in replicas.items():
                assert _put_file(url, sid, v.cookies, v.cookies[XSRF]) == (204 if name == mine else 400)
        v = visitors[0]
        assert _put_file(proxy, v.session.session_id, v.cookies, None, v.host) == 403, "the XSRF check is off"
        # a 3 MB upload passes nginx (its default limit is 1 MB); a body past Streamlit's 200 MB is refused by nginx
        assert _put_file(proxy, v.session.session_id, v.cookies, v.cookies[XSRF], v.host, rows=1_000_000) == 204
        assert _declared_too_large(proxy, v.host) == 413

        # The sockets drop (a laptop's Wi-Fi): each tab reconnects with its cookies and its session's id, and
        # sends no widget values at all (a browser would send them): only the server holding the session can
        # give its K back; a new session would open on the default K = 4.
        ids = {}
        for v in visitors:
            ids[id(v)] = v.session.session_id
            v.session.close()
        for v in visitors:
            s = await v.connect(session_id=ids[id(v)])
            run = await s.open("sets")
            assert not run.exceptions, run.exceptions
            assert s.session_id == ids[id(v)], "the reconnect opened a new session"
            assert list(s.widgets["sets.K"].proto.value) == [v.k]
            assert _width(run) == f"{16 * 2 ** v.k:,}", "the session's K was lost on reconnect"
            s.close()

        # The control: the same reconnect sent to the other replica, not through nginx, finds no such session.
        (mine,) = v.upstreams
        other = next(url for name, url in replicas.items() if name != mine)
        async with await Session.connect(other, session_id=ids[id(v)]) as stray:
            run = await stray.open("sets")
            assert stray.session_id != ids[id(v)] and _width(run) == "256"
        return {r: len(vs) for r, vs in held.items()}

    counts = asyncio.run(drive())
    print(f"\nsessions per replica: {counts}")
    assert all(n >= 2 for n in counts.values()), counts
    # nginx's own log agrees: both replicas answered websockets
    logged = re.findall(r'"GET /_stcore/stream [^"]*" 101 .*?upstream=(\S+)', access.read_text())
    assert set(logged) == set(replicas), logged


def test_compose_and_dockerfile_ship_what_is_tested():
    """The compose file runs replicas of the Dockerfile's image behind nginx with the tested nginx.conf.

    Docker cannot run here: the compose file is parsed as YAML and the Dockerfile read, neither is built."""
    import yaml

    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text(encoding="utf-8"))
    app, proxy = compose["services"]["app"], compose["services"]["proxy"]
    assert (DEPLOY / app["build"]["context"] / app["build"]["dockerfile"]).resolve() == DEPLOY / "Dockerfile"
    assert "replicas" in app["deploy"], "the app service names no number of replicas"
    assert "8501" in [str(p) for p in app["expose"]]
    assert proxy["image"].startswith("nginx")
    assert any(v.split(":")[:2] == ["./nginx.conf", "/etc/nginx/nginx.conf"] for v in proxy["volumes"])
    assert proxy["depends_on"]["app"]["condition"] == "service_healthy"
    conf = (DEPLOY / "nginx.conf").read_text(encoding="utf-8")
    assert re.search(r"^\s*server app:8501;", conf, re.M), "nginx.conf's upstream is not the compose service"

    lines = [ln.strip() for ln in (DEPLOY / "Dockerfile").read_text(encoding="utf-8").replace("\\\n", " ").splitlines()]
    lines = [ln for ln in lines if ln and not ln.startswith("#")]
    assert lines[0] == "FROM python:3.11-slim"
    assert any(ln.startswith("RUN") and 'pip install ".[app]"' in ln for ln in lines)
    for ln in lines:
        if ln.startswith("COPY"):
            for src in ln.split()[1:-1]:
                assert (ROOT / src).exists(), f"the Dockerfile copies {src}, which the project does not have"
    health = next(ln for ln in lines if ln.startswith("HEALTHCHECK"))
    assert "/_stcore/health" in health and "8501" in health
    cmd = next(ln for ln in lines if ln.startswith("CMD"))
    for word in ("streamlit", "run", "app/streamlit_app.py", "--server.port=8501", "--server.headless=true"):
        assert f'"{word}"' in cmd, f"the image's command lacks {word}"
    # the maxUploadSize nginx's client_max_body_size is set for
    max_mb = int(re.search(r"^maxUploadSize\s*=\s*(\d+)", (ROOT / ".streamlit" / "config.toml").read_text(), re.M)[1])
    assert re.search(rf"client_max_body_size {max_mb + 1}m;", conf), "nginx's body limit is not Streamlit's + 1 MB"

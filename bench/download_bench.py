#!/usr/bin/env python3
"""Download benchmark: flowrun against curl --parallel and aria2c over loopback from nginx.

Two shapes: 200 files of 1 MiB, and one 1 GiB file, each written to disk. nginx (Debian's
package) is started on 127.0.0.1 by this script with a configuration of its own and stopped
after; the tools run in turns, `--repeat` times each, and the table gives the median wall
time, MB/s, peak RSS and each tool's time over curl's.

    python3 bench/download_bench.py                       # builds flowrun (release) first
    python3 bench/download_bench.py --flowrun .build/release/flowrun --repeat 1 --big-mib 256

Needs nginx, curl and aria2c: `apt-get install nginx aria2` (curl is there already).
Python 3.11 standard library only; files under bench/out/download/ (git-ignored).
"""
import argparse
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import measure

OUT = measure.REPO / "bench" / "out" / "download"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def make_files(www, count, big_mib):
    """The served files, made once and kept: small/f0..f{count-1} (1 MiB each) and big.bin."""
    (www / "small").mkdir(parents=True, exist_ok=True)
    for index in range(count):
        path = www / "small" / f"f{index}"
        if not path.exists() or path.stat().st_size != 1 << 20:
            path.write_bytes(os.urandom(1 << 20))
    big = www / "big.bin"
    if not big.exists() or big.stat().st_size != big_mib << 20:
        measure.log(f"writing {big_mib} MiB to {big}")
        with open(big, "wb") as f:
            chunk = os.urandom(8 << 20)
            for _ in range(big_mib // 8):
                f.write(chunk)
            f.write(chunk[: (big_mib % 8) << 20])


def start_nginx(www, port):
    nginx = shutil.which("nginx") or "/usr/sbin/nginx"
    prefix = OUT / "nginx"
    prefix.mkdir(parents=True, exist_ok=True)
    conf = prefix / "nginx.conf"
    conf.write_text(f"""
daemon off;
worker_processes 2;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    tcp_nopush on;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    server {{ listen 127.0.0.1:{port}; root {www}; }}
}}
""")
    process = subprocess.Popen([nginx, "-c", str(conf), "-p", str(prefix)], stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit("nginx did not start: see " + str(prefix / "error.log"))


def commands(shape, base, urls, dest, flowrun):
    """The command of each tool for one shape, writing into dest."""
    work = OUT / "work"
    work.mkdir(parents=True, exist_ok=True)
    names = [f"f{i}" for i in range(len(urls))] if shape == "small" else ["big.bin"]
    flow = work / f"{shape}.flow.yaml"
    lines = ["version: 1", f"name: download-{shape}", "concurrency: 8", "tasks:"]
    lines += [f"  d{i}: {{download: {{url: '{url}', to: '{dest}/{name}'}}}}" for i, (url, name) in enumerate(zip(urls, names))]
    flow.write_text("\n".join(lines) + "\n")
    curl_config = work / f"{shape}.curl"
    curl_config.write_text("".join(f'url = "{url}"\noutput = "{dest}/{name}"\n' for url, name in zip(urls, names)))
    aria_input = work / f"{shape}.aria2"
    aria_input.write_text("".join(f"{url}\n  out={name}\n" for url, name in zip(urls, names)))
    return {
        "flowrun": [str(flowrun), "run", "--events", "plain", str(flow)],
        "curl": ["curl", "--parallel", "--parallel-max", "8", "-s", "-K", str(curl_config)],
        "aria2c": ["aria2c", "-j8", "-q", "-d", str(dest), "-i", str(aria_input), "--allow-overwrite=true",
                   "--auto-file-renaming=false", "--file-allocation=none"],
    }


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flowrun", help="flowrun binary (default: build release)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--big-mib", type=int, default=1024)
    parser.add_argument("--timeout", type=float, default=300)
    args = parser.parse_args()
    missing = [tool for tool in ("curl", "aria2c") if not shutil.which(tool)]
    if missing or not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        sys.exit("needs nginx, curl and aria2c: apt-get install nginx aria2 curl")
    flowrun = Path(args.flowrun) if args.flowrun else measure.build_flowrun()
    www = OUT / "www"
    make_files(www, args.files, args.big_mib)
    port = free_port()
    nginx = start_nginx(www, port)
    os.environ["FLOWRUN_CACHE_DIR"] = str(OUT / "cache")  # no sha256 given: never used
    base = f"http://127.0.0.1:{port}"
    shapes = {
        "small": ([f"{base}/small/f{i}" for i in range(args.files)], args.files << 20),
        "big": ([f"{base}/big.bin"], args.big_mib << 20),
    }
    results = {}
    try:
        for shape, (urls, total) in shapes.items():
            dest = OUT / "dest"
            tools = commands(shape, base, urls, dest, flowrun)
            runs = {tool: [] for tool in tools}
            for _ in range(args.repeat):
                for tool, cmd in tools.items():  # in turns, so that a slow phase of the machine hits all
                    shutil.rmtree(dest, ignore_errors=True)
                    dest.mkdir(parents=True)
                    run = measure.run_once(cmd, args.timeout)
                    if run is None or run[2] != 0:
                        measure.log(f"{tool} {shape}: failed {run}")
                        continue
                    written = sum(p.stat().st_size for p in dest.iterdir())
                    if written != total:
                        measure.log(f"{tool} {shape}: wrote {written} bytes, expected {total}")
                        continue
                    runs[tool].append(run)
            results[shape] = (total, {tool: measure.summarize(r) for tool, r in runs.items() if r})
            shutil.rmtree(dest, ignore_errors=True)
    finally:
        nginx.send_signal(signal.SIGTERM)
        nginx.wait(timeout=10)
    print(f"{'shape':<8} {'tool':<8} {'wall s':>8} {'MB/s':>8} {'peak RSS MB':>12} {'x curl':>7}")
    for shape, (total, tools) in results.items():
        curl = tools.get("curl", {}).get("wall")
        for tool, summary in tools.items():
            wall = summary["wall"]
            ratio = f"{wall / curl:.2f}" if curl else "-"
            print(f"{shape:<8} {tool:<8} {wall:>8.3f} {total / wall / 1e6:>8.0f} {summary['rss']:>12.1f} {ratio:>7}")


if __name__ == "__main__":
    main()

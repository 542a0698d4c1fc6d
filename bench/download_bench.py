#!/usr/bin/env python3
"""Download benchmark: flowrun against curl --parallel (and aria2c) over loopback from nginx.

Two shapes: 200 files of 1 MiB, and one 1 GiB file, each written to disk. nginx (Debian's
package) is started on 127.0.0.1 by this script with a configuration of its own and stopped
after; the tools run in turns (the order rotated each round), `--repeat` times each, and the
table gives the median wall time, MB/s, peak RSS, the median user+sys CPU (the machine is
shared: the wall includes waiting for a core) and each tool's time over curl's, with the load
average before and after.

flowrun runs twice per round: `flowrun` as the issue measured it (no sha256 in the tasks: every
byte is still hashed and recorded), and `flowrun+sha` with each task's sha256, so that it is
checked and the file is stored in the download cache (a fresh, empty one each run).

    python3 bench/download_bench.py                       # builds flowrun (release) first
    python3 bench/download_bench.py --flowrun .build/release/flowrun --repeat 1 --big-mib 256

`--realtime` runs nginx and every tool under `chrt -r 50` (root only): on a machine that other
builds keep busy (load 10-18) their walls then stay within a few percent of a quiet machine's,
where without it they swing by 2x; the other work waits meanwhile.

`--prototype BINARY` adds bench/dlproto (a stand-alone plain-http reader with flowrun's write path:
bench/README.md, "s41-dl") to the turns: `swift build -c release --package-path bench/dlproto`,
then `--prototype bench/dlproto/.build/release/dlproto`. `--no-sha` leaves out flowrun+sha;
`--baseline BINARY` adds `flowrun-base` (and `flowrun-base+sha`), another flowrun binary (main's,
say) on the same workflows, to the turns. `--pipes` adds, for the 1 GiB file, `curl -s URL | tee FILE
| openssl dgst -sha256` and the same with coreutils' `sha256sum`: a peer hashing the body as it is
written (not durable, not checked). `--file-urls` adds flowrun-file and curl-file, the same transfers with `file://` URLs (each tool
without its HTTP reader, and without nginx's CPU beside it).

Needs nginx and curl: `apt-get install nginx-light curl`; aria2c is measured when installed.
Python 3.11 standard library only; files under bench/out/download/ (git-ignored).
"""
import argparse
import hashlib
import os
import resource
import shutil
import signal
import socket
import statistics
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


def start_nginx(www, port, prefix_command=()):
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
    process = subprocess.Popen([*prefix_command, nginx, "-c", str(conf), "-p", str(prefix)], stderr=subprocess.DEVNULL)
    for _ in range(100):
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process
        except OSError:
            time.sleep(0.05)
    process.kill()
    sys.exit("nginx did not start: see " + str(prefix / "error.log"))


def sha256(path):
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(8 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def commands(shape, urls, digests, dest, flowrun, prototype=None, local_files=None, baseline=None, pipes=False):
    """The command of each tool for one shape, writing into dest."""
    work = OUT / "work"
    work.mkdir(parents=True, exist_ok=True)
    names = [f"f{i}" for i in range(len(urls))] if shape == "small" else ["big.bin"]
    tools = {}
    for label, pinned in (("flowrun", False), ("flowrun+sha", True)):
        flow = work / f"{shape}{'-sha' if pinned else ''}.flow.yaml"
        lines = ["version: 1", f"name: download-{shape}", "concurrency: 8", "tasks:"]
        for i, (url, name, digest) in enumerate(zip(urls, names, digests)):
            sha = f", sha256: {digest}" if pinned else ""
            lines.append(f"  d{i}: {{download: {{url: '{url}', to: '{dest}/{name}'{sha}}}}}")
        flow.write_text("\n".join(lines) + "\n")
        tools[label] = [str(flowrun), "run", "--events", "plain", str(flow)]
        if baseline:
            # A file of its own: the state and the compiled plan are kept per workflow file.
            suffix = "+sha" if pinned else ""
            base_flow = work / f"{shape}-base{'-sha' if pinned else ''}.flow.yaml"
            base_flow.write_text(flow.read_text())
            tools["flowrun-base" + suffix] = [str(baseline), "run", "--events", "plain", str(base_flow)]
    if local_files:
        # The same workflow with file:// URLs of the served files: flowrun's engine and write path
        # (PartialFile: blocks, XXH3, O_DIRECT, fdatasync, rename) with no HTTP reader at all.
        flow = work / f"{shape}-file.flow.yaml"
        lines = ["version: 1", f"name: download-{shape}-file", "concurrency: 8", "tasks:"]
        for i, (path, name) in enumerate(zip(local_files, names)):
            lines.append(f"  d{i}: {{download: {{url: 'file://{path}', to: '{dest}/{name}'}}}}")
        flow.write_text("\n".join(lines) + "\n")
        tools["flowrun-file"] = [str(flowrun), "run", "--events", "plain", str(flow)]
        if baseline:
            base_flow = work / f"{shape}-base-file.flow.yaml"
            base_flow.write_text(flow.read_text())
            tools["flowrun-base-file"] = [str(baseline), "run", "--events", "plain", str(base_flow)]
        curl_files = work / f"{shape}-file.curl"
        curl_files.write_text("".join(f'url = "file://{path}"\noutput = "{dest}/{name}"\n' for path, name in zip(local_files, names)))
        tools["curl-file"] = ["curl", "--parallel", "--parallel-max", "8", "-s", "-K", str(curl_files)]
    curl_config = work / f"{shape}.curl"
    curl_config.write_text("".join(f'url = "{url}"\noutput = "{dest}/{name}"\n' for url, name in zip(urls, names)))
    tools["curl"] = ["curl", "--parallel", "--parallel-max", "8", "-s", "-K", str(curl_config)]
    if pipes and shape == "big":
        # A peer doing flowrun+sha's work: the body written and its SHA-256 computed at once, by
        # curl, tee and a hasher in one pipeline (neither checks the digest nor makes the file
        # durable). coreutils' sha256sum has no SHA-NI here; openssl's does.
        for label, hasher in (("curl|tee|openssl", "openssl dgst -sha256"), ("curl|tee|sha256sum", "sha256sum")):
            tools[label] = ["bash", "-c", f"set -o pipefail; curl -s '{urls[0]}' | tee '{dest}/{names[0]}' | {hasher} >/dev/null"]
    if prototype:
        listing = work / f"{shape}.list"
        listing.write_text("".join(f"{url}\t{dest}/{name}\n" for url, name in zip(urls, names)))
        tools["dlproto"] = [str(prototype), "8", str(listing)]
        tools["dlproto-pipe"] = [str(prototype), "--pipelined", "8", str(listing)]
    if shutil.which("aria2c"):
        aria_input = work / f"{shape}.aria2"
        aria_input.write_text("".join(f"{url}\n  out={name}\n" for url, name in zip(urls, names)))
        tools["aria2c"] = ["aria2c", "-j8", "-q", "-d", str(dest), "-i", str(aria_input), "--allow-overwrite=true",
                           "--auto-file-renaming=false", "--file-allocation=none"]
    return tools


def run_measured(cmd, timeout):
    """run_once, plus the user+sys CPU seconds and the context switches of the command (and of
    the ~20 ms launcher)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    run = measure.run_once(cmd, timeout)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    switches = after.ru_nvcsw - before.ru_nvcsw + after.ru_nivcsw - before.ru_nivcsw
    return None if run is None else (*run, cpu, switches)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--flowrun", help="flowrun binary (default: build release)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--files", type=int, default=200)
    parser.add_argument("--big-mib", type=int, default=1024)
    parser.add_argument("--timeout", type=float, default=300)
    parser.add_argument("--only", choices=["small", "big"], help="one shape only")
    parser.add_argument("--prototype", help="also measure bench/dlproto's binary (a plain-http reader's floor)")
    parser.add_argument("--file-urls", action="store_true", help="also flowrun and curl with file:// URLs of the served files")
    parser.add_argument("--no-sha", action="store_true", help="leave out flowrun+sha")
    parser.add_argument("--realtime", action="store_true", help="nginx and the tools under chrt -r 50 (root)")
    parser.add_argument("--baseline", help="another flowrun binary (say main's), measured in the same turns as flowrun-base")
    parser.add_argument("--pipes", action="store_true",
                        help="1 GiB: also curl | tee FILE | openssl dgst -sha256 (and | sha256sum), a peer hashing as it writes")
    args = parser.parse_args()
    if not shutil.which("curl") or not (shutil.which("nginx") or Path("/usr/sbin/nginx").exists()):
        sys.exit("needs nginx and curl: apt-get install nginx-light curl")
    flowrun = Path(args.flowrun).resolve() if args.flowrun else measure.build_flowrun()
    www = OUT / "www"
    make_files(www, args.files, args.big_mib)
    port = free_port()
    realtime = ("chrt", "-r", "50") if args.realtime else ()
    nginx = start_nginx(www, port, realtime)
    # Inside a folder of its own: a flowrun before 693ca36 narrowed the folder above the cache
    # to 0700, and nginx's workers must read www/ beside it.
    cache = OUT / "private" / "cache"
    os.environ["FLOWRUN_CACHE_DIR"] = str(cache)  # emptied before each run: never a hit
    base = f"http://127.0.0.1:{port}"
    shapes = {
        "small": ([f"{base}/small/f{i}" for i in range(args.files)], [www / "small" / f"f{i}" for i in range(args.files)],
                  args.files << 20, f"{args.files} x 1 MiB"),
        "big": ([f"{base}/big.bin"], [www / "big.bin"], args.big_mib << 20, f"{args.big_mib} MiB"),
    }
    if args.only:
        shapes = {args.only: shapes[args.only]}
    results = {}
    load_before = os.getloadavg()
    try:
        for shape, (urls, files, total, _) in shapes.items():
            dest = OUT / "dest"
            tools = commands(shape, urls, [sha256(f) for f in files], dest, flowrun, args.prototype,
                             files if args.file_urls else None, Path(args.baseline).resolve() if args.baseline else None,
                             args.pipes)
            if args.no_sha:
                for tool in ("flowrun+sha", "flowrun-base+sha"):
                    tools.pop(tool, None)
            runs = {tool: [] for tool in tools}
            order = list(tools)
            for round_index in range(args.repeat):
                shift = round_index % len(order)  # in turns, rotated, so that a slow phase hits all
                for tool in order[shift:] + order[:shift]:
                    shutil.rmtree(dest, ignore_errors=True)
                    shutil.rmtree(cache, ignore_errors=True)
                    dest.mkdir(parents=True)
                    run = run_measured([*realtime, *tools[tool]], args.timeout)
                    if run is None or run[2] != 0:
                        measure.log(f"{tool} {shape}: failed {run}")
                        continue
                    written = sum(p.stat().st_size for p in dest.iterdir())
                    if written != total:
                        measure.log(f"{tool} {shape}: wrote {written} bytes, expected {total}")
                        continue
                    measure.log(f"{shape} {tool}: {run[0]:.3f} s, {run[4]:.3f} s CPU")
                    runs[tool].append(run)
            results[shape] = {tool: (measure.summarize([r[:4] for r in rs]), statistics.median(r[4] for r in rs),
                                     statistics.median(r[5] for r in rs))
                              for tool, rs in runs.items() if rs}
            shutil.rmtree(dest, ignore_errors=True)
    finally:
        nginx.send_signal(signal.SIGTERM)
        nginx.wait(timeout=10)
    print(f"download benchmark: {os.cpu_count()} CPUs, load average {load_before[0]:.2f} before, "
          f"{os.getloadavg()[0]:.2f} after; repeat {args.repeat}; flowrun {flowrun}"
          f"{'; chrt -r 50' if args.realtime else ''}\n")
    print("| shape | tool | wall s | MB/s | peak RSS MB | user+sys s | ctx switches | x curl |")
    print("|---|---|---|---|---|---|---|---|")
    for shape, tools in results.items():
        total, label = shapes[shape][2], shapes[shape][3]
        curl = tools.get("curl", ({},))[0].get("wall")
        for tool, (summary, cpu, switches) in tools.items():
            wall = summary["wall"]
            ratio = f"{wall / curl:.2f}" if curl else "-"
            print(f"| {label} | {tool} | {wall:.3f} | {total / wall / 1e6:.0f} | {summary['rss']:.1f} | {cpu:.3f} | {switches:.0f} | {ratio} |")


if __name__ == "__main__":
    main()

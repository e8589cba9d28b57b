#!/usr/bin/env python3
"""Watching one long thumbs process, for bench.sh's scale section (stdlib only).

    scale_probe.py trace TRACE [--watch PATH]... -- CMD...
        Runs CMD (stdout and stderr inherited) and samples it every
        TRACE_INTERVAL seconds (1): elapsed s, RSS KiB, CPU s (user + system
        of the process), bytes read and written (/proc/PID/io rchar, wchar)
        and the size of each watched PATH (a folder: the files under it),
        one tab-separated line per sample
        in TRACE. The last line is "# peak_kib K exit RC cpu_s C wall_s W":
        the process's peak RSS as wait4 reports it (the figure
        /usr/bin/time -f %M prints), its user + system CPU seconds (its own
        and its waited-for children's, not this probe's) and its wall
        seconds. Exits with CMD's status.
    scale_probe.py peak TRACE
        The peak RSS of a trace in MiB (n/a when the command did not finish).
    scale_probe.py end TRACE KEY
        A field of the trace's last line (cpu_s, wall_s, exit, peak_kib).
    scale_probe.py rss-at TRACE P...
        RSS in MiB at each fraction P (0..1) of the traced run's time.
    scale_probe.py timeline TRACE [ROWS]
        About ROWS (10) evenly spaced rows of the trace: time, RSS, CPU use
        in %, read and write MB/s, watched sizes in MB: where the time went.
    scale_probe.py rates OUTDIR START END [SHARE]
        Throughput at the start and the end of a run, from its thumbnails'
        modification times: every regular file under OUTDIR (the run's
        OUT/SIZE folder) in time order; START and END are the epoch seconds
        the command started and ended. Prints, tab-separated: files, seconds
        from START to the first file, images/s over the first SHARE (0.1)
        of the files, images/s over the last SHARE, seconds from the last
        file to END.

The thumbnails' modification times cost the run nothing (no per-item log
line to format and write) and hold at any size; a file's time is when its
bytes were written, which the kernel keeps to its clock tick (a few ms).
"""
import os
import select
import subprocess
import sys
import time


def proc_sample(pid):
    """(rss KiB, cpu s, rchar, wchar) of a live process, or None."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        with open(f"/proc/{pid}/status") as f:
            rss = next((int(l.split()[1]) for l in f if l.startswith("VmRSS:")), 0)
        io = {}
        try:
            with open(f"/proc/{pid}/io") as f:
                for line in f:
                    k, v = line.split(":")
                    io[k] = int(v)
        except OSError:
            pass
    except (OSError, StopIteration, IndexError):
        return None
    hz = os.sysconf("SC_CLK_TCK")
    cpu = (int(fields[11]) + int(fields[12])) / hz  # utime, stime (fields 14, 15)
    return rss, cpu, io.get("rchar", 0), io.get("wchar", 0)


def size_of(path):
    """A file's size; a folder's: every file under it (watch small folders)."""
    try:
        if not os.path.isdir(path):
            return os.stat(path).st_size
        total = 0
        for d, _, files in os.walk(path):
            for f in files:
                try:
                    total += os.lstat(os.path.join(d, f)).st_size
                except OSError:
                    pass
        return total
    except OSError:
        return 0


def cmd_trace(trace, args):
    watch = []
    while args and args[0] == "--watch":
        watch.append(args[1])
        args = args[2:]
    if not args or args[0] != "--":
        sys.exit("usage: scale_probe.py trace TRACE [--watch PATH]... -- CMD...")
    cmd = args[1:]
    interval = float(os.environ.get("TRACE_INTERVAL", "1"))
    t0 = time.monotonic()
    child = subprocess.Popen(cmd)
    pidfd = os.pidfd_open(child.pid)
    with open(trace, "w") as out:
        out.write("# t_s\trss_kib\tcpu_s\trchar\twchar" + "".join(f"\t{w}" for w in watch) + "\n")
        while True:
            try:
                pid, status, usage = os.wait4(child.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status, usage = child.pid, 0, None
            if pid == child.pid:
                break
            s = proc_sample(child.pid)
            if s is not None:
                out.write(f"{time.monotonic() - t0:.2f}\t{s[0]}\t{s[1]:.2f}\t{s[2]}\t{s[3]}"
                          + "".join(f"\t{size_of(w)}" for w in watch) + "\n")
                out.flush()
            # wakes at once when the child ends, so the wall time is exact
            select.select([pidfd], [], [], interval)
        wall = time.monotonic() - t0
        rc = os.waitstatus_to_exitcode(status) if usage is not None else 1
        if usage is not None:
            out.write(f"# peak_kib {usage.ru_maxrss} exit {rc} cpu_s {usage.ru_utime + usage.ru_stime:.3f} wall_s {wall:.3f}\n")
        else:
            out.write(f"# peak_kib n/a exit {rc}\n")
    child.returncode = rc
    sys.exit(rc if rc >= 0 else 128 - rc)


def end_fields(path):
    """The trace's last line as a dict: peak_kib, exit, cpu_s, wall_s."""
    with open(path) as f:
        for line in f:
            if line.startswith("# peak_kib"):
                w = line[2:].split()
                return dict(zip(w[::2], w[1::2]))
    return {}


def read_trace(path):
    rows, peak = [], None
    with open(path) as f:
        for line in f:
            if line.startswith("# peak_kib"):
                p = line.split()[2]
                peak = int(p) if p.isdigit() else None
            elif line.startswith("#"):
                continue
            else:
                rows.append([float(x) for x in line.split("\t")])
    return rows, peak


def cmd_peak(path):
    try:
        _, peak = read_trace(path)
    except OSError:
        peak = None
    print(f"{peak / 1024:.1f}" if peak else "n/a")


def cmd_end(path, key):
    try:
        v = end_fields(path).get(key, "n/a")
    except OSError:
        v = "n/a"
    print(v)


def cmd_rss_at(path, fractions):
    rows, _ = read_trace(path)
    out = []
    for p in fractions:
        if not rows:
            out.append("n/a")
            continue
        t = float(p) * rows[-1][0]
        row = min(rows, key=lambda r: abs(r[0] - t))
        out.append(f"{row[1] / 1024:.1f}")
    print("\t".join(out))


def cmd_timeline(path, nrows=10):
    rows, peak = read_trace(path)
    if len(rows) < 2:
        print("  (trace too short)")
        return
    step = max(1, len(rows) // nrows)
    picks = rows[::step]
    if picks[-1] is not rows[-1]:
        picks.append(rows[-1])
    with open(path) as f:
        names = f.readline().lstrip("# ").rstrip("\n").split("\t")[5:]
    print("    t (s)  RSS MiB  CPU %  read MB/s  write MB/s" + "".join(f"  {os.path.basename(n)} MB" for n in names))
    prev = None
    for r in picks:
        if prev is None:
            cpu = rd = wr = 0.0
        else:
            dt = max(r[0] - prev[0], 1e-9)
            cpu, rd, wr = 100 * (r[2] - prev[2]) / dt, (r[3] - prev[3]) / dt / 1e6, (r[4] - prev[4]) / dt / 1e6
        print(f"  {r[0]:7.0f}  {r[1] / 1024:7.1f}  {cpu:5.0f}  {rd:9.1f}  {wr:10.1f}"
              + "".join(f"  {w / 1e6:{len(os.path.basename(n)) + 3}.0f}" for n, w in zip(names, r[5:])))
        prev = r
    if peak:
        print(f"  peak RSS {peak / 1024:.1f} MiB")


def mtimes(root):
    out, stack = [], [root]
    while stack:
        d = stack.pop()
        try:
            entries = os.scandir(d)
        except OSError:
            continue
        with entries:
            for e in entries:
                if e.is_dir(follow_symlinks=False):
                    stack.append(e.path)
                elif e.is_file(follow_symlinks=False):
                    out.append(e.stat(follow_symlinks=False).st_mtime_ns)
    out.sort()
    return out


def cmd_rates(outdir, start, end, share=0.1):
    t = mtimes(outdir)
    n = len(t)
    k = int(n * share)
    if n < 20 or k < 2:
        print(f"{n}\tn/a\tn/a\tn/a\tn/a")
        return
    first = (t[k - 1] - t[0]) / 1e9
    last = (t[-1] - t[n - k]) / 1e9
    ips_first = f"{(k - 1) / first:.1f}" if first > 0 else "n/a"
    ips_last = f"{(k - 1) / last:.1f}" if last > 0 else "n/a"
    print(f"{n}\t{t[0] / 1e9 - start:.2f}\t{ips_first}\t{ips_last}\t{end - t[-1] / 1e9:.2f}")


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    cmd, rest = sys.argv[1], sys.argv[2:]
    if cmd == "trace":
        cmd_trace(rest[0], rest[1:])
    elif cmd == "peak":
        cmd_peak(rest[0])
    elif cmd == "end":
        cmd_end(rest[0], rest[1])
    elif cmd == "rss-at":
        cmd_rss_at(rest[0], rest[1:])
    elif cmd == "timeline":
        cmd_timeline(rest[0], *(int(x) for x in rest[1:2]))
    elif cmd == "rates":
        cmd_rates(rest[0], float(rest[1]), float(rest[2]), *(float(x) for x in rest[3:4]))
    else:
        sys.exit(f"unknown command {cmd}")

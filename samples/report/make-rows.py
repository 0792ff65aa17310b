#!/usr/bin/env python3
"""Writes samples/report/rows.jsonl: the rows behind the example report of the speed-budget seed
(section 6, build 125 against 124) and the Speed panel of its section 8 (builds 121 to 125).

The rows are what the phone and `payload-tool rows` write: `interval` histograms per phone and
hour, `memory` samples, MetricKit `metrics` rows per phone and day, and `hang` diagnostics whose
stacks point into the YuiApp test build (dsyms-fixtures/builds/131, linked as samples/dsyms/125).
Each interval's merged histogram is solved for so that p50 and p95, computed the way the report
computes them (18 buckets, interpolated inside the bucket, capped at the max), print the seed's
numbers. Deterministic: the same file every run. Run from anywhere: python3 samples/report/make-rows.py
"""
import json
import os
import uuid

EDGES = [2, 4, 8, 12, 16, 24, 33, 50, 75, 100, 150, 250, 400, 600, 1000, 2000, 5000]
NAMESPACE = uuid.UUID("5a3c1f0e-8b2d-4e6f-9a1b-2c3d4e5f6a7b")
USER = "0b9c7d3e-1f2a-4b5c-8d6e-7f8091a2b3c4"
PHONES = [("iPhone16,2", True), ("iPhone14,7", False), ("iPhone17,2", True)]
YUIAPP_UUID = "4C4C4C4C-5555-3144-A1B2-000000000131"


def percentile(counts, mx, q):
    """The report's rule (PayloadDecode BucketHistogram.percentile)."""
    total = sum(counts)
    if total == 0:
        return None
    rank = q * total
    cumulative = 0
    for index, count in enumerate(counts):
        if count == 0:
            continue
        if cumulative + count >= rank:
            lower = 0 if index == 0 else EDGES[index - 1]
            upper = max(mx, lower) if index == 17 else EDGES[index]
            fraction = (rank - cumulative) / count
            return min(lower + (upper - lower) * max(0, fraction), mx)
        cumulative += count
    return mx


def bucket(value):
    for index, edge in enumerate(EDGES):
        if value <= edge:
            return index
    return 17


def rounds_to(value, target):
    return value is not None and int(value + 0.5) == target


def solve(n, p50, p95):
    """Counts and max of a histogram of n samples whose p50 and p95 print as p50 and p95.

    A samples sit in the bucket below p50's, X in p50's bucket, Y between, Z in p95's bucket and
    W above it. p50 depends only on A and X, p95 only on C = A + X + Y and Z, so each is a search
    along one line."""
    b50, b95 = bucket(p50), bucket(p95)
    top = min(b95 + 1, 17)
    lo50, hi50 = (0 if b50 == 0 else EDGES[b50 - 1]), EDGES[b50]
    lo95, hi95 = EDGES[b95 - 1], EDGES[b95]
    f50 = (p50 - lo50) / (hi50 - lo50)
    f95 = (p95 - lo95) / (hi95 - lo95)

    def histogram(a, x, y, z):
        w = n - a - x - y - z
        if min(a, x, y, w) < 0 or (a and b50 == 0) or (y and b95 - b50 <= 1):
            return None
        counts = [0] * 18
        if a:
            counts[b50 - 1] += a
        counts[b50] += x
        if y:
            counts[b95 - 1] += y
        counts[b95] += z
        counts[top] += w
        # With nothing above p95's bucket the max may be the p95 sample itself: the cap then
        # makes p95 exact where interpolation near the bucket's lower edge cannot reach it.
        for mx in ([(EDGES[top - 1] + EDGES[top]) / 2] if w else [float(hi95), float(p95)]):
            if rounds_to(percentile(counts, mx, 0.5), p50) and rounds_to(percentile(counts, mx, 0.95), p95):
                return counts, mx
        return None

    if n < 20:
        # Too few samples for the report to print numbers (it prints -): any honest spread will do.
        counts = [0] * 18
        counts[b50] += n - n // 3
        counts[b95] += n // 3
        return counts, float(p95)
    for x in range(1, n + 1):
        a = round(0.5 * n - f50 * x)
        if b50 == b95:
            found = histogram(a, x, 0, 0)
            if found:
                return found
            continue
        for z in range(1, n - a - x + 1):
            c = round(0.95 * n - f95 * z)
            found = histogram(a, x, c - a - x, z) or histogram(a, x, 0, z)
            if found:
                return found
    raise SystemExit(f"no histogram of {n} samples gives p50 {p50} and p95 {p95}")


def split(counts, parts):
    """Deals the merged counts out to `parts` rows, each bucket as evenly as it goes."""
    rows = [[0] * 18 for _ in range(parts)]
    turn = 0
    for index, count in enumerate(counts):
        for _ in range(count):
            rows[turn % parts][index] += 1
            turn += 1
    return rows


def iso(day, hour, minute=0):
    return f"2026-11-{day:02d}T{hour:02d}:{minute:02d}:00Z"


def row(build, kind, name, phone, start, end, n=0, buckets=None, mx=None, value=None, stack=None, p50=None, p95=None, salt=""):
    device, promotion = phone
    if buckets is not None:
        p50 = percentile(buckets, mx, 0.5)
        p95 = percentile(buckets, mx, 0.95)
    key = uuid.uuid5(NAMESPACE, f"{build}/{kind}/{name}/{device}/{start}/{end}/{salt}")
    return {
        "user_id": USER, "row_key": str(key), "kind": kind, "name": name, "app_build": build,
        "app_version": f"2.{build - 100}.0", "os": "26.1", "device": device, "promotion": promotion,
        "low_power": False, "thermal": 0, "period_start": start, "period_end": end, "n": n, "buckets": buckets,
        "p50": None if p50 is None else round(p50, 3), "p95": None if p95 is None else round(p95, 3),
        "max": mx, "value": value, "stack": stack,
    }


# Per build: the day its rows end on (November 2026), and per interval (n, p50, p95).
BUILDS = {
    121: (21, {"keystroke_render": (5200, 12, 31), "send_bubble": (160, 15, 58), "arrive_drawn": (150, 36, 131)}),
    122: (23, {"keystroke_render": (6100, 12, 29), "send_bubble": (170, 15, 52), "arrive_drawn": (160, 36, 126)}),
    123: (25, {"keystroke_render": (6900, 12, 28), "send_bubble": (180, 15, 47), "arrive_drawn": (170, 36, 130)}),
    124: (27, {
        "keystroke_render": (7900, 12, 28), "send_bubble": (230, 14, 38), "arrive_drawn": (205, 37, 128),
        "swipe": (300, 372, 410), "fullscreen_open": (41, 45, 94), "thread_open": (150, 131, 293),
        "thread_open_cold": (12, 530, 804), "launch": (5, 400, 890)}),
    125: (29, {
        "keystroke_render": (8412, 11, 22), "send_bubble": (214, 14, 41), "arrive_drawn": (198, 38, 172),
        "swipe": (321, 371, 402), "fullscreen_open": (37, 44, 96), "thread_open": (143, 128, 281),
        "thread_open_cold": (9, 512, 744), "launch": (6, 388, 910)}),
}
# Per build and phone: foreground hours, hang s/h, hitch ms/s, memory peak and steady MB.
RATES = {
    121: [(3.0, 2.6, 6.2, 251, 140), (3.5, 2.6, 6.2, 240, 138), (2.5, 2.6, 6.2, 233, 139)],
    122: [(3.0, 2.2, 5.8, 246, 140), (3.5, 2.2, 5.8, 239, 138), (2.5, 2.2, 5.8, 230, 139)],
    123: [(3.0, 2.4, 5.1, 240, 137), (3.5, 2.4, 5.1, 231, 136), (2.5, 2.4, 5.1, 229, 135)],
    124: [(3.0, 1.9, 4.5, 238, 135), (3.5, 1.9, 4.5, 221, 133), (2.5, 1.9, 4.5, 219, 134)],
    125: [(4.0, 0.5, 2.8, 212, 128), (4.2, 1.1, 3.4, 198, 134), (3.0, 0.8, 3.1, 205, 131)],
}
# Build 125's hang diagnostics: 3 × 0.4 s in YuiLines.parse, 2 × 0.2 s in the inlined `plus`.
PARSE_STACK = [0x40B0, 0x4138, 0x41F8, 0x4078, 0x4038]
PLUS_STACK = [0x40C8, 0x4138, 0x41F8, 0x4078, 0x4038]


def build_rows(build):
    day, intervals = BUILDS[build]
    out = []
    periods = [(day - 1, 10), (day - 1, 16), (day - 1, 22), (day, 6)]  # (day, hour) the hour ends
    for name, (n, p50, p95) in intervals.items():
        counts, mx = solve(n, p50, p95)
        parts = split(counts, len(PHONES) * len(periods))
        for index, part in enumerate(parts):
            if sum(part) == 0:
                continue
            phone = PHONES[index % len(PHONES)]
            d, h = periods[index // len(PHONES)]
            highest = max(i for i, c in enumerate(part) if c)
            part_max = mx if highest == max(i for i, c in enumerate(counts) if c) else EDGES[highest]
            out.append(row(build, "interval", name, phone, iso(d, h - 1), iso(d, h), n=sum(part), buckets=part, mx=part_max))
    for phone, (hours, hangs, hitches, peak, steady) in zip(PHONES, RATES[build]):
        start, end = iso(day - 1, 8), iso(day, 7, 59)
        seconds = hours * 3600
        # MetricKit's day: foreground time, hang rate (its hangs: 0.4 s each, none of 1 s), hitches,
        # peak memory, CPU (1.4% of foreground time).
        hang_count = max(1, round(hangs * hours / 0.4))
        hang_buckets = [0] * 18
        hang_buckets[bucket(400)] = hang_count
        out.append(row(build, "metrics", "fg_time", phone, start, end, n=1, value=seconds))
        out.append(row(build, "metrics", "hang_rate", phone, start, end, n=hang_count, buckets=hang_buckets, mx=400.0, value=hangs))
        out.append(row(build, "metrics", "hitch_ratio", phone, start, end, n=1, value=hitches))
        out.append(row(build, "metrics", "mem_peak", phone, start, end, n=1, value=float(peak)))
        out.append(row(build, "metrics", "cpu_time", phone, start, end, n=1, value=round(seconds * 0.014, 3)))
        # The phone's memory samples: every 30 s in the foreground (here 90% of it), median and peak.
        samples = int(seconds / 30 * 0.9)
        for index, (d, h) in enumerate(periods):
            share = samples // len(periods) + (1 if index < samples % len(periods) else 0)
            out.append(row(build, "memory", "mem_footprint", phone, iso(d, h - 1), iso(d, h), n=share,
                           value=float(steady), p50=float(steady), mx=float(peak - 3)))
    if build == 125:
        out.append(row(build, "memory", "mem_growth", PHONES[0], iso(day - 1, 12), iso(day - 1, 12, 30), n=1, value=6.0))
        for index, (stack, seconds, times) in enumerate([(PARSE_STACK, 0.4, 3), (PLUS_STACK, 0.2, 2)]):
            for time in range(times):
                phone = PHONES[(index + time) % len(PHONES)]
                frames = [{"image": "YuiApp", "uuid": YUIAPP_UUID, "offset": offset} for offset in stack]
                start = iso(day - 1, 13 + index * 3 + time, 17)
                out.append(row(build, "diagnostic", "hang", phone, start, start, n=1, value=seconds, stack=frames, salt=str(time)))
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    rows = [r for build in sorted(BUILDS) for r in build_rows(build)]
    with open(os.path.join(here, "rows.jsonl"), "w") as out:
        for r in rows:
            out.write(json.dumps(r, separators=(",", ":")) + "\n")
    print(f"samples/report/rows.jsonl: {len(rows)} rows")


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Bad and heavy HTTP clients for ibsmd's endpoint (tests/it_http.sh).

  httpabuse.py PORT bad          malformed, oversized and refused requests: statuses
  httpabuse.py PORT slow N       N clients sending a byte a second: closed by the server
  httpabuse.py PORT cap N        N idle connections: those over http_max_clients get 503
  httpabuse.py PORT flood N PATH N concurrent GETs: every one answered (200 or 503), none hangs

Every socket has a timeout and every loop a bound; loopback only.  Prints one
line per check ("ok: ..." / "FAIL: ...") and exits 1 when any failed.
"""
import asyncio
import resource
import socket
import sys
import threading
import time

HOST = "127.0.0.1"
failed = 0


def result(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failed += 1


def exchange(port, data, timeout=5.0, shut=True):
    """Send raw bytes, read until the server closes; (status or None, head, body, seconds)."""
    t0 = time.monotonic()
    s = socket.create_connection((HOST, port), timeout=timeout)
    try:
        try:
            s.sendall(data)
            if shut:
                s.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the server answered (a 503, a 431) and closed before all was sent
        buf = b""
        while len(buf) < 64 << 20:
            try:
                chunk = s.recv(65536)
            except (ConnectionResetError, BrokenPipeError):
                break
            if not chunk:
                break
            buf += chunk
    except socket.timeout:
        return None, b"", b"", time.monotonic() - t0
    finally:
        s.close()
    head, _, body = buf.partition(b"\r\n\r\n")
    status = None
    if head.startswith(b"HTTP/1.1 "):
        try:
            status = int(head[9:12])
        except ValueError:
            pass
    return status, head, body, time.monotonic() - t0


def bad(port):
    cases = [
        ("a head over 8 KiB", b"GET / HTTP/1.1\r\nX-Fill: " + b"a" * 20000 + b"\r\n\r\n", 431),
        ("no head end, 16 KiB of header", b"GET / HTTP/1.1\r\n" + b"X: y\r\n" * 3000, 431),
        ("not HTTP", b"GARBAGE\r\n\r\n", 400),
        ("binary", bytes(range(1, 200)) + b"\r\n\r\n", 400),
        ("a NUL in the head", b"GET / HTTP/1.1\r\nX: a\x00b\r\n\r\n", 400),
        ("HTTP/9.9", b"GET /metrics HTTP/9.9\r\n\r\n", 505),
        ("lower-case method", b"get / HTTP/1.1\r\n\r\n", 400),
        ("DELETE", b"DELETE /api/status HTTP/1.1\r\n\r\n", 405),
        ("POST with a body", b"POST /api/sweep HTTP/1.1\r\nContent-Length: 5\r\n\r\nhello", 413),
        ("chunked", b"GET / HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n", 413),
        ("a header without a colon", b"GET / HTTP/1.1\r\nnonsense\r\n\r\n", 400),
        ("a 3000-byte target", b"GET /" + b"a" * 3000 + b" HTTP/1.1\r\n\r\n", 414),
        ("an absolute-form target", b"GET http://x/metrics HTTP/1.1\r\n\r\n", 400),
        ("../ out of the web root", b"GET /../../etc/passwd HTTP/1.1\r\n\r\n", 404),
        ("%2e%2e out of the web root", b"GET /%2e%2e/%2e%2e/etc/passwd HTTP/1.1\r\n\r\n", 404),
        ("a hidden file", b"GET /.htaccess HTTP/1.1\r\n\r\n", 404),
        ("an unknown type", b"GET /Makefile HTTP/1.1\r\n\r\n", 404),
        ("an order: sweep", b"GET /api/sweep HTTP/1.1\r\n\r\n", 403),
        ("an order: port", b"GET /api/port?action=disable&node=1&port=1 HTTP/1.1\r\n\r\n", 403),
        ("events (a stream) over HTTP", b"GET /api/events HTTP/1.1\r\n\r\n", 400),
        ("an unknown command", b"GET /api/nope HTTP/1.1\r\n\r\n", 404),
        ("an unknown argument", b"GET /api/status?x=1 HTTP/1.1\r\n\r\n", 400),
        ("bad UTF-8 in an argument", b"GET /api/node?id=%ff%fe HTTP/1.1\r\n\r\n", 400),
        ("17 arguments", b"GET /api/node?" + b"&".join(b"a%d=1" % i for i in range(17)) +
         b" HTTP/1.1\r\n\r\n", 400),
        ("a node that does not exist", b"GET /api/node?id=nosuchnode HTTP/1.1\r\n\r\n", 404),
        ("a LID that is not unicast", b"GET /api/node?id=70000 HTTP/1.1\r\n\r\n", 400),
        ("counters port without node", b"GET /api/counters?port=1 HTTP/1.1\r\n\r\n", 400),
        ("a good request, HTTP/1.0", b"GET /api/status HTTP/1.0\r\n\r\n", 200),
        ("a bare-LF head", b"GET /api/status HTTP/1.1\n\n", 200),
    ]
    for what, data, want in cases:
        st, head, body, secs = exchange(port, data)
        result(st == want and secs < 5, f"{what}: {st} (want {want}) in {secs:.2f} s")
    st, head, body, _ = exchange(port, b"HEAD /metrics HTTP/1.1\r\n\r\n")
    result(st == 200 and body == b"" and b"Content-Length: " in head, f"HEAD /metrics: {st}, no body")
    st, head, body, _ = exchange(port, b"GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n")
    result(st == 200 and b"version=0.0.4" in head and body.startswith(b"# HELP"),
           f"GET /metrics: {st}, text/plain version=0.0.4")
    st, head, body, _ = exchange(port, b"GET / HTTP/1.1\r\n\r\n")
    result(st == 200 and b"Content-Security-Policy" in head and b"<html" in body,
           f"GET /: {st}, the page, with a Content-Security-Policy")
    st, head, body, _ = exchange(port, b"GET /api/ HTTP/1.1\r\n\r\n")
    result(st == 200 and b'"counters"' in body and b'"sweep"' not in body,
           f"GET /api/: {st}, read commands only")


def slow(port, n):
    """n clients trickle a request head a byte a second; the server must drop each,
    and answer another client while they all still hang on."""
    closed_after = [None] * n
    connected = [False] * n
    head = b"GET /api/status HTTP/1.1\r\nX-Slow: " + b"s" * 100

    def one(i):
        t0 = time.monotonic()
        try:
            s = socket.create_connection((HOST, port), timeout=2)
        except OSError:
            closed_after[i] = 0.0
            return
        connected[i] = True
        s.settimeout(1.0)
        try:
            for b in head:
                if time.monotonic() - t0 > 25:
                    return
                try:
                    s.send(bytes([b]))
                except OSError:
                    break
                try:
                    if s.recv(4096) == b"":
                        break
                except socket.timeout:
                    continue
                except OSError:
                    break
            closed_after[i] = time.monotonic() - t0
        finally:
            s.close()

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    end = time.monotonic() + 30
    while time.monotonic() < end and not all(c or d is not None for c, d in zip(connected, closed_after)):
        time.sleep(0.05)
    st, _, _, secs = exchange(port, b"GET /api/status HTTP/1.1\r\n\r\n")
    hanging = sum(1 for c, d in zip(connected, closed_after) if c and d is None)
    # answered before the server dropped any of them (it does at the head deadline, 10 s)
    result(st == 200 and hanging == n,
           f"while {hanging} of {n} slow clients hang on: GET /api/status {st} in {secs:.2f} s")
    for t in threads:
        t.join(40)
    dropped = [c for c in closed_after if c is not None and c < 20]
    result(len(dropped) == n,
           f"{len(dropped)}/{n} slow clients dropped by the server, the last after "
           f"{max(dropped) if dropped else 0:.1f} s (head deadline 10 s)")


def cap(port, n):
    """n connections that send nothing: beyond the cap each gets 503 at once."""
    socks, refused = [], set()
    for _ in range(n):
        s = socket.create_connection((HOST, port), timeout=3)
        socks.append(s)
    for s in socks:
        s.setblocking(False)
    # the server refuses those over the cap as it accepts them: poll (bounded) until it has
    end = time.monotonic() + 10
    while len(refused) < n - 64 and time.monotonic() < end:
        for i, s in enumerate(socks):
            if i in refused:
                continue
            try:
                data = s.recv(4096)
                if data.startswith(b"HTTP/1.1 503"):
                    refused.add(i)
            except BlockingIOError:
                pass
            except OSError:
                refused.add(i)
        time.sleep(0.05)
    result(len(refused) == n - 64, f"{n} idle connections: {len(refused)} refused with 503 (cap 64)")
    st, _, _, _ = exchange(port, b"GET /api/status HTTP/1.1\r\n\r\n")
    result(st == 503, f"one more while the cap is full: {st} (want 503)")
    for s in socks:
        s.close()
    # once the server has seen them go (bounded)
    end = time.monotonic() + 10
    while True:
        st, _, _, _ = exchange(port, b"GET /api/status HTTP/1.1\r\n\r\n")
        if st == 200 or time.monotonic() > end:
            break
        time.sleep(0.1)
    result(st == 200, f"once they are gone: {st} (want 200)")


async def one_get(port, path, stats):
    try:
        r, w = await asyncio.wait_for(asyncio.open_connection(HOST, port), 20)
        w.write(b"GET " + path.encode() + b" HTTP/1.1\r\nHost: x\r\n\r\n")
        await w.drain()
        data = await asyncio.wait_for(r.read(), 30)
        w.close()
        code = data[9:12].decode() if data.startswith(b"HTTP/1.1 ") else "short"
        if code == "200":
            stats["bytes"] += len(data)
    except (ConnectionError, OSError):
        code = "reset"
    except asyncio.TimeoutError:
        code = "timeout"
    stats[code] = stats.get(code, 0) + 1


async def flood_all(port, n, path):
    stats = {"bytes": 0}
    await asyncio.gather(*(one_get(port, path, stats) for _ in range(n)))
    return stats


def flood(port, n, path):
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, max(soft, n + 64)), hard))
    t0 = time.monotonic()
    stats = asyncio.run(flood_all(port, n, path))
    secs = time.monotonic() - t0
    ok = stats.get("200", 0)
    answered = ok + stats.get("503", 0) + stats.get("reset", 0)
    print(f"flood: {n} GET {path} in {secs:.2f} s: {dict(sorted(stats.items()))}")
    result(answered == n and not stats.get("timeout") and ok >= 64,
           f"{n} concurrent GET {path}: {ok} answered 200, the rest 503 or refused, none hung")


def main():
    port = int(sys.argv[1])
    what = sys.argv[2]
    if what == "bad":
        bad(port)
    elif what == "slow":
        slow(port, int(sys.argv[3]))
    elif what == "cap":
        cap(port, int(sys.argv[3]))
    elif what == "flood":
        flood(port, int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit("usage: httpabuse.py PORT bad|slow N|cap N|flood N PATH")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""The web page in a real browser: headless Chromium driven by Selenium.

  webcheck.py URL CONSOLE_FIFO OUTDIR

Loads the page served by a daemon on an ibsim k=4 fat tree (14 nodes) and
asserts: the node count, the validation panel (no plan), the switch table, a port row, the topology drawing,
sorting and filtering; then writes `Error` for sw-L1-2[1] to ibsim's console
and waits for that port's row and node to turn unhealthy; writes `Unlink`
for ca-7[1] and waits for a live event about it; loads ?view=heatmap and
finds the heat map; and finds no error in the browser console.  Every wait is
bounded.  Prints ok:/FAIL: lines, screenshots into OUTDIR; exit 1 on a failure.

The page polls the daemon every 2 s and may redraw while a check reads it
(on a loaded machine a check can take longer than that): tables are read in
one script run inside the page (its JavaScript cannot run in between), and
every check is retried, finding its elements again, until its bound.
"""
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By

URL, FIFO, OUT = sys.argv[1], sys.argv[2], sys.argv[3]
failed = 0


def result(ok, what):
    global failed
    print(("ok: " if ok else "FAIL: ") + what, flush=True)
    if not ok:
        failed += 1


def wait(driver, what, fn, seconds=30):
    end = time.monotonic() + seconds
    last = None
    while time.monotonic() < end:
        try:
            last = fn(driver)
            if last:
                result(True, what)
                return last
        except Exception as e:  # the page is being redrawn
            last = e
        time.sleep(0.25)
    result(False, f"{what} (last: {last!r})")
    driver.save_screenshot(f"{OUT}/page-fail-{failed}.png")
    return None


def sim(cmd):
    with open(FIFO, "w") as f:
        f.write(cmd + "\n")


def css(d, sel):
    return d.find_elements(By.CSS_SELECTOR, sel)


def rows(d, table):
    """The rows of a table as the page holds them now, read in one go:
    [{"node", "port", "cls", "cells": [text, ...]}, ...]."""
    return d.execute_script(
        "return Array.from(document.querySelectorAll(arguments[0] + ' tbody tr'), (r) => ({"
        "node: r.dataset.node, port: r.dataset.port, cls: r.className,"
        "cells: Array.from(r.cells, (c) => c.textContent)}));", "#" + table)


def port_row(d, node, port):
    """The ports table's row of node[port], or None."""
    for r in rows(d, "ports-table"):
        if r["node"] == node and r["port"] == str(port):
            return r
    return None


def event_texts(d):
    """The event list's items as [type, text], read in one go."""
    return d.execute_script(
        "return Array.from(document.querySelectorAll('#events li'), (li) => [li.dataset.type, li.textContent]);")


def main():
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
              "--disable-background-networking", "--disable-component-update", "--disable-sync",
              "--disable-dev-shm-usage", "--window-size=1400,1800",
              "--user-data-dir=" + tempfile.mkdtemp(prefix="ibsmd-chromium-", dir=OUT)):
        opts.add_argument(a)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    driver.set_page_load_timeout(30)
    try:
        driver.get(URL)
        wait(driver, "the node count is 14", lambda d: d.find_element(By.ID, "node-count").text == "14")
        wait(driver, "the validation panel: no plan, no finding",
             lambda d: d.find_element(By.ID, "validation-summary").text.startswith("no plan: 0 errors, 0 warnings"))
        wait(driver, "the SM state is MASTER", lambda d: d.find_element(By.ID, "sm-state").text == "MASTER")
        wait(driver, "the switch table has 6 switches", lambda d: len(rows(d, "switches-table")) == 6)
        wait(driver, "a port row: ca-3 port 1, ACTIVE", lambda d: "ACTIVE" in port_row(d, "ca-3", 1)["cells"])
        wait(driver, "32 linked ports listed", lambda d: len(rows(d, "ports-table")) == 32)
        wait(driver, "the topology drawing has 14 nodes and 16 links",
             lambda d: len(css(d, "#topology g.node")) == 14 and len(css(d, "#topology line.link")) == 16)
        wait(driver, "counters are shown (bytes sent on ca-0[1])",
             lambda d: "B" in port_row(d, "ca-0", 1)["cells"][8])
        # a row and the drawing stay the same elements across refreshes of a quiet
        # fabric: two polls later they are not stale
        first = css(driver, '#ports-table tbody tr[data-node="ca-3"][data-port="1"]')[0]
        drawing = driver.find_element(By.ID, "topology")
        polled = driver.find_element(By.ID, "updated").text
        for n in (1, 2):
            polled = wait(driver, f"the page polled the daemon again ({n})",
                          lambda d: d.find_element(By.ID, "updated").text not in ("", polled) and
                          d.find_element(By.ID, "updated").text)
        for what, el, attr, want in (("ca-3[1]'s row", first, "data-port", "1"),
                                     ("the drawing", drawing, "id", "topology")):
            try:
                kept = el.get_attribute(attr) == want
            except StaleElementReferenceException:
                kept = False
            result(kept, f"a refresh keeps what did not change: {what} is the same element")
        # sort by LID (descending first for numbers), then filter
        wait(driver, "the LID header is clicked",
             lambda d: d.find_element(By.CSS_SELECTOR, '#ports-table th[data-key="lid"]').click() or True, 10)

        def lids_sorted(d):
            lids = [int(r["cells"][3]) for r in rows(d, "ports-table")]
            return len(lids) == 32 and lids == sorted(lids, reverse=True)

        wait(driver, "sorting by LID", lids_sorted, 10)
        wait(driver, "the filter is typed", lambda d: d.find_element(By.ID, "port-filter").send_keys("sw-L2") or True, 10)
        # the spines' 8 ports and the 8 ports linked to them
        wait(driver, "filtering: sw-L2 leaves the 16 ports on or facing the spines",
             lambda d: len(rows(d, "ports-table")) == 16 and
             all(any("sw-L2" in c for c in r["cells"]) for r in rows(d, "ports-table")), 10)

        def clear_filter(d):
            f = d.find_element(By.ID, "port-filter")
            f.clear()
            f.send_keys("\b")
            return True

        wait(driver, "the filter is cleared", clear_filter, 10)
        wait(driver, "an empty filter shows every port again", lambda d: len(rows(d, "ports-table")) == 32, 10)

        # a misbehaving port
        sim('Error "sw-L1-2"[1] 60')
        wait(driver, "after Error: sw-L1-2 port 1 is highlighted unhealthy",
             lambda d: "unhealthy" in port_row(d, "sw-L1-2", 1)["cls"], 40)
        wait(driver, "after Error: the health column says rcv_errors",
             lambda d: "rcv_errors" in port_row(d, "sw-L1-2", 1)["cells"][14])
        wait(driver, "after Error: the unhealthy count is at least 1",
             lambda d: int(d.find_element(By.ID, "unhealthy-count").text) >= 1)
        wait(driver, "after Error: the drawing marks the switch and its link",
             lambda d: len(css(d, "#topology g.node.unhealthy")) >= 1 and len(css(d, "#topology line.link.unhealthy")) >= 1)
        wait(driver, "after Error: a live port_unhealthy event",
             lambda d: any(t == "port_unhealthy" and "sw-L1-2[1]" in text for t, text in event_texts(d)))
        driver.save_screenshot(f"{OUT}/page-unhealthy.png")
        sim('Error "sw-L1-2"[1] 0')

        # a link that goes
        sim('Unlink "ca-7"[1]')
        wait(driver, "after Unlink: a live event about ca-7",
             lambda d: any("ca-7" in text for t, text in event_texts(d)
                           if t in ("link_down", "node_removed", "port_down")), 40)
        wait(driver, "after Unlink: 13 nodes", lambda d: d.find_element(By.ID, "node-count").text == "13", 30)
        driver.save_screenshot(f"{OUT}/page-unlinked.png")

        driver.get(URL + "?view=heatmap")
        wait(driver, "?view=heatmap: a heat map of 6 switches",
             lambda d: css(d, "canvas#heatmap") and "6 switches" in d.find_element(By.ID, "picture-title").text)
        driver.save_screenshot(f"{OUT}/page-heatmap.png")

        logs = driver.get_log("browser")
        bad = [l for l in logs if l.get("level") in ("SEVERE", "ERROR")]
        for l in bad[:10]:
            print("  console:", l.get("level"), l.get("message"))
        result(not bad, f"no errors in the browser console ({len(logs)} messages in all)")
    finally:
        driver.quit()
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

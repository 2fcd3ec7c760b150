#!/usr/bin/python3
"""The web page in a real browser: headless Chromium driven by Selenium.

  webcheck.py URL CONSOLE_FIFO OUTDIR

Loads the page served by a daemon on an ibsim k=4 fat tree (14 nodes) and
asserts: the node count, the switch table, a port row, the topology drawing,
sorting and filtering; then writes `Error` for sw-L1-2[1] to ibsim's console
and waits for that port's row and node to turn unhealthy; writes `Unlink`
for ca-7[1] and waits for a live event about it; loads ?view=heatmap and
finds the heat map; and finds no error in the browser console.  Every wait is
bounded.  Prints ok:/FAIL: lines, screenshots into OUTDIR; exit 1 on a failure.
"""
import sys
import tempfile
import time

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
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
        wait(driver, "the SM state is MASTER", lambda d: d.find_element(By.ID, "sm-state").text == "MASTER")
        wait(driver, "the switch table has 6 switches",
             lambda d: len(css(d, "#switches-table tbody tr")) == 6)
        wait(driver, "a port row: ca-3 port 1, ACTIVE",
             lambda d: "ACTIVE" in css(d, '#ports-table tbody tr[data-node="ca-3"][data-port="1"]')[0].text)
        wait(driver, "32 linked ports listed", lambda d: len(css(d, "#ports-table tbody tr")) == 32)
        wait(driver, "the topology drawing has 14 nodes and 16 links",
             lambda d: len(css(d, "#topology g.node")) == 14 and len(css(d, "#topology line.link")) == 16)
        wait(driver, "counters are shown (bytes sent on ca-0[1])",
             lambda d: "B" in css(d, '#ports-table tbody tr[data-node="ca-0"][data-port="1"] td')[8].text)
        # sort by LID (descending first for numbers), then filter
        driver.find_element(By.CSS_SELECTOR, '#ports-table th[data-key="lid"]').click()

        def lids_sorted(d):
            lids = [int(r.find_elements(By.TAG_NAME, "td")[3].text) for r in css(d, "#ports-table tbody tr")]
            return len(lids) == 32 and lids == sorted(lids, reverse=True)

        wait(driver, "sorting by LID", lids_sorted, 10)
        f = driver.find_element(By.ID, "port-filter")
        f.send_keys("sw-L2")
        # the spines' 8 ports and the 8 ports linked to them
        wait(driver, "filtering: sw-L2 leaves the 16 ports on or facing the spines",
             lambda d: len(css(d, "#ports-table tbody tr")) == 16 and
             all("sw-L2" in r.text for r in css(d, "#ports-table tbody tr")), 10)
        f.clear()
        f.send_keys("\b")
        wait(driver, "an empty filter shows every port again", lambda d: len(css(d, "#ports-table tbody tr")) == 32, 10)

        # a misbehaving port
        sim('Error "sw-L1-2"[1] 60')
        wait(driver, "after Error: sw-L1-2 port 1 is highlighted unhealthy",
             lambda d: "unhealthy" in css(d, '#ports-table tbody tr[data-node="sw-L1-2"][data-port="1"]')[0]
             .get_attribute("class"), 40)
        wait(driver, "after Error: the health column says rcv_errors",
             lambda d: "rcv_errors" in css(d, '#ports-table tbody tr[data-node="sw-L1-2"][data-port="1"] td.health')[0].text)
        wait(driver, "after Error: the unhealthy count is at least 1",
             lambda d: int(d.find_element(By.ID, "unhealthy-count").text) >= 1)
        wait(driver, "after Error: the drawing marks the switch and its link",
             lambda d: len(css(d, "#topology g.node.unhealthy")) >= 1 and len(css(d, "#topology line.link.unhealthy")) >= 1)
        wait(driver, "after Error: a live port_unhealthy event",
             lambda d: any("sw-L1-2[1]" in li.text for li in css(d, '#events li[data-type="port_unhealthy"]')))
        driver.save_screenshot(f"{OUT}/page-unhealthy.png")
        sim('Error "sw-L1-2"[1] 0')

        # a link that goes
        sim('Unlink "ca-7"[1]')
        wait(driver, "after Unlink: a live event about ca-7",
             lambda d: any("ca-7" in li.text for li in css(d, "#events li")
                           if li.get_attribute("data-type") in ("link_down", "node_removed", "port_down")), 40)
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

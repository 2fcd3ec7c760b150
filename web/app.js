/*
 * ibsmd's web page: reads the daemon's read-only JSON API (GET /api/CMD, the
 * control socket's read commands) and draws the subnet summary, the SM's
 * state, a topology drawing (small fabrics) or a per-switch/per-port heat
 * map (large ones), sortable and filterable tables of switches and ports
 * with unhealthy ports highlighted, and the live event log (polled).
 * Plain browser JavaScript: no build step, nothing fetched from elsewhere.
 *
 * A refresh touches only what changed: table rows keep their elements
 * (keyed by node GUID and port) and a cell is written only when its text
 * differs; the drawing and the heat map are redrawn only when what they show
 * changed.  So an operator selecting text, or a script reading a row, keeps
 * it across the polls.
 */
"use strict";

const POLL_MS = 2000;
const EVENTS_MS = 1000;
const SMALL_FABRIC = 64; /* nodes: at most this many get a drawing, more a heat map */
const MAX_ROWS = 2000; /* table rows drawn at once; filter to see others */
const MAX_EVENTS = 200;
/* ?view=heatmap or ?view=topology picks the picture whatever the size */
const VIEW = new URLSearchParams(location.search).get("view");

const state = {
	status: null,
	generation: -1,
	nodes: [],
	nodeByGuid: new Map(),
	ports: [],
	links: [],
	counters: new Map(), /* "guid/port" -> counters row */
	seq: 0,
	sort: {
		"ports-table": { key: "node_desc", dir: 1 },
		"switches-table": { key: "desc", dir: 1 },
	},
};

function $(id) {
	return document.getElementById(id);
}

async function api(cmd, args) {
	const q = args ? "?" + new URLSearchParams(args).toString() : "";
	const r = await fetch("api/" + cmd + q, { cache: "no-store" });
	const j = await r.json();
	if (!j.ok)
		throw new Error(j.error.code + ": " + j.error.message);
	return j.result;
}

function key(guid, port) {
	return guid + "/" + port;
}

function fmtBytes(v) {
	if (v === undefined || v === null || v === "")
		return "–";
	const u = ["B", "KiB", "MiB", "GiB", "TiB", "PiB"];
	let i = 0;
	while (v >= 1024 && i < u.length - 1) {
		v /= 1024;
		i++;
	}
	return (i ? v.toFixed(1) : String(Math.round(v))) + " " + u[i];
}

function fmtNum(v) {
	return v === undefined || v === null || v === "" ? "–" : String(v);
}

function fmtTime(t) {
	const d = new Date(t * 1000);
	return d.toLocaleTimeString();
}

/* Write an element's text (and class) only when they differ. */
function setText(id, text, cls) {
	const e = $(id);
	if (e.textContent !== text)
		e.textContent = text;
	if (cls !== undefined && e.className !== cls)
		e.className = cls;
}

/* ---- summary --------------------------------------------------------- */

function renderSummary() {
	const s = state.status;
	const state_cls = s.state === "MASTER" ? "badge ok" : s.state === "STANDBY" ? "badge warn" : "badge";
	setText("sm-state", s.state, state_cls);
	setText("subnet-up", s.subnet_up ? "subnet up" : "subnet not up", s.subnet_up ? "badge ok" : "badge bad");
	setText("node-count", String(s.nodes));
	setText("switch-count", String(s.switches));
	setText("ca-count", String(s.cas));
	setText("ports-active", String(s.ports_active));
	setText("link-count", String(s.links));
	setText("sweep-count", String(s.sweeps));
	const pm = s.perfmgr || {};
	setText("unhealthy-count", pm.enabled ? String(pm.unhealthy) : "–", pm.unhealthy ? "num bad" : "num");
	setText("sweep-info",
		`last sweep: ${s.last_sweep_status}, ${s.last_sweep_ms} ms${s.last_sweep_reason ? " (" + s.last_sweep_reason + ")" : ""}; ` +
		`generation ${s.generation}; ${s.routing_engine} routing; SM LID ${s.sm_lid}, priority ${s.priority}; ` +
		`${s.light_sweeps} light sweeps; up ${s.uptime_s} s`);
	setText("perf-info", pm.enabled
		? `counters: every ${pm.sweep_time_s} s, ${pm.cycles} sweeps, last ${pm.last_cycle_ms.toFixed(1)} ms, ` +
		  `${pm.ports} ports, ${pm.mads} MADs (${pm.failures} failed)`
		: "counters: the performance manager is off (perfmgr = false)");
	setText("updated", "updated " + new Date().toLocaleTimeString());
}

/* ---- tables --------------------------------------------------------------- */

function portRows() {
	const rows = [];
	for (const p of state.ports) {
		const c = state.counters.get(key(p.node_guid, p.port)) || {};
		const n = state.nodeByGuid.get(p.node_guid);
		rows.push({
			node_guid: p.node_guid,
			node_desc: p.node_desc,
			node_type: n ? n.type : "",
			port: p.port,
			lid: p.lid,
			state: p.state,
			width: p.width,
			speed: p.speed,
			rate_gbps: p.rate_gbps,
			rate: p.rate_gbps === undefined || p.speed === "?" ? "–"
				: `${p.rate_gbps} Gb/s` + (p.below_enabled ? " (below)" : ""),
			peer: p.peer_desc !== undefined ? `${p.peer_desc}[${p.peer_port}]` : "",
			linked: p.peer_guid !== undefined,
			xmit_bytes: c.xmit_bytes,
			rcv_bytes: c.rcv_bytes,
			xmit_bytes_per_s: c.xmit_bytes_per_s,
			rcv_bytes_per_s: c.rcv_bytes_per_s,
			errors: c.errors,
			errors_last: c.errors_last,
			unhealthy: c.healthy === false,
			health: c.healthy === undefined ? "–" : c.healthy ? "ok" : "unhealthy: " + c.reasons.join(", "),
		});
	}
	return rows;
}

function switchRows() {
	const by = new Map();
	for (const n of state.nodes)
		if (n.type === "Switch")
			by.set(n.guid, { desc: n.desc, guid: n.guid, lid: n.lid, nports: n.ports, active: 0, unhealthy: 0, traffic: 0 });
	for (const p of state.ports) {
		const s = by.get(p.node_guid);
		if (!s)
			continue;
		if (p.state === "ACTIVE")
			s.active++;
		const c = state.counters.get(key(p.node_guid, p.port));
		if (c) {
			if (c.healthy === false)
				s.unhealthy++;
			s.traffic += (c.xmit_bytes_per_s || 0);
		}
	}
	return [...by.values()];
}

function compare(a, b, k, num) {
	let x = a[k], y = b[k];
	if (num) {
		x = x === undefined ? -1 : Number(x);
		y = y === undefined ? -1 : Number(y);
		return x - y;
	}
	return String(x === undefined ? "" : x).localeCompare(String(y === undefined ? "" : y), undefined, { numeric: true });
}

function sortRows(tableId, rows) {
	const s = state.sort[tableId];
	const th = document.querySelector(`#${tableId} th[data-key="${s.key}"]`);
	const num = th && th.dataset.num === "1";
	rows.sort((a, b) => s.dir * compare(a, b, s.key, num) || compare(a, b, "node_desc") || compare(a, b, "port", true));
	return rows;
}

function matches(row, text) {
	if (!text)
		return true;
	for (const v of Object.values(row))
		if (v !== undefined && String(v).toLowerCase().includes(text))
			return true;
	return false;
}

/*
 * Bring tbody's rows to `rows`, each {key, cls, data, cells: [[text, class], ...]},
 * in that order, touching only what differs: a row keeps its element while
 * its key is listed, its attributes and cells are written only when they
 * changed, and rows move only when the order changed.
 */
function syncRows(tbody, rows) {
	const old = new Map();
	for (const tr of tbody.children)
		old.set(tr.dataset.key, tr);
	let at = tbody.firstElementChild;
	for (const r of rows) {
		let tr = old.get(r.key);
		if (tr) {
			old.delete(r.key);
		} else {
			tr = document.createElement("tr");
			tr.dataset.key = r.key;
		}
		for (const [k, v] of Object.entries(r.data))
			if (tr.dataset[k] !== v)
				tr.dataset[k] = v;
		if (tr.className !== r.cls)
			tr.className = r.cls;
		r.cells.forEach(([text, cls], i) => {
			let td = tr.children[i];
			if (!td)
				td = tr.appendChild(document.createElement("td"));
			text = String(text);
			if (td.textContent !== text)
				td.textContent = text;
			if (td.className !== (cls || ""))
				td.className = cls || "";
		});
		if (tr === at)
			at = at.nextElementSibling;
		else
			tbody.insertBefore(tr, at);
	}
	for (const tr of old.values())
		tr.remove();
}

function renderPorts() {
	const text = $("port-filter").value.trim().toLowerCase();
	const onlyBad = $("only-unhealthy").checked;
	const onlyLinked = $("only-linked").checked;
	const rows = sortRows("ports-table", portRows().filter(
		(r) => (!onlyBad || r.unhealthy) && (!onlyLinked || r.linked) && matches(r, text)));
	syncRows(document.querySelector("#ports-table tbody"), rows.slice(0, MAX_ROWS).map((r) => ({
		key: key(r.node_guid, r.port),
		cls: r.unhealthy ? "unhealthy" : r.state !== "ACTIVE" ? "down" : "",
		data: { node: r.node_desc, guid: r.node_guid, port: String(r.port) },
		cells: [
			[r.node_desc],
			[r.node_type],
			[String(r.port), "num"],
			[String(r.lid), "num"],
			[r.state],
			[r.width],
			[r.rate === "–" ? r.speed : `${r.speed} ${r.rate}`],
			[r.peer],
			[fmtBytes(r.xmit_bytes), "num"],
			[fmtBytes(r.rcv_bytes), "num"],
			[r.xmit_bytes_per_s === undefined ? "–" : fmtBytes(r.xmit_bytes_per_s) + "/s", "num"],
			[r.rcv_bytes_per_s === undefined ? "–" : fmtBytes(r.rcv_bytes_per_s) + "/s", "num"],
			[fmtNum(r.errors), "num"],
			[fmtNum(r.errors_last), "num"],
			[r.health, "health"],
		],
	})));
	setText("port-shown", rows.length > MAX_ROWS
		? `showing ${MAX_ROWS} of ${rows.length} (filter to narrow)` : `${rows.length} ports`);
}

function renderSwitches() {
	const text = $("switch-filter").value.trim().toLowerCase();
	const rows = sortRows("switches-table", switchRows().filter((r) => matches(r, text)));
	syncRows(document.querySelector("#switches-table tbody"), rows.slice(0, MAX_ROWS).map((r) => ({
		key: r.guid,
		cls: r.unhealthy ? "unhealthy" : "",
		data: { guid: r.guid },
		cells: [
			[r.desc],
			[r.guid],
			[String(r.lid), "num"],
			[String(r.nports), "num"],
			[String(r.active), "num"],
			[String(r.unhealthy), "num"],
			[fmtBytes(r.traffic) + "/s", "num"],
		],
	})));
}

function setupSort(tableId, render) {
	for (const th of document.querySelectorAll(`#${tableId} th`)) {
		th.addEventListener("click", () => {
			const s = state.sort[tableId];
			if (s.key === th.dataset.key)
				s.dir = -s.dir;
			else
				state.sort[tableId] = { key: th.dataset.key, dir: th.dataset.num === "1" ? -1 : 1 };
			for (const o of document.querySelectorAll(`#${tableId} th`))
				o.classList.remove("asc", "desc");
			th.classList.add(state.sort[tableId].dir > 0 ? "asc" : "desc");
			render();
		});
	}
}

/* ---- pictures ------------------------------------------------------------ */

const SVG = "http://www.w3.org/2000/svg";

function svgEl(name, attrs, parent) {
	const e = document.createElementNS(SVG, name);
	for (const [k, v] of Object.entries(attrs))
		e.setAttribute(k, String(v));
	if (parent)
		parent.appendChild(e);
	return e;
}

function portUnhealthy(guid, port) {
	const c = state.counters.get(key(guid, port));
	return c !== undefined && c.healthy === false;
}

/* Layers by hop distance from the CAs: CAs at the bottom, spines on top. */
function drawTopology() {
	const nodes = state.nodes;
	const adj = new Map(nodes.map((n) => [n.guid, []]));
	for (const l of state.links) {
		if (adj.has(l.a_guid) && adj.has(l.b_guid)) {
			adj.get(l.a_guid).push(l.b_guid);
			adj.get(l.b_guid).push(l.a_guid);
		}
	}
	const level = new Map();
	let queue = nodes.filter((n) => n.type !== "Switch").map((n) => n.guid);
	for (const g of queue)
		level.set(g, 0);
	while (queue.length) {
		const next = [];
		for (const g of queue)
			for (const h of adj.get(g))
				if (!level.has(h)) {
					level.set(h, level.get(g) + 1);
					next.push(h);
				}
		queue = next;
	}
	for (const n of nodes)
		if (!level.has(n.guid))
			level.set(n.guid, 1);
	const top = Math.max(0, ...level.values());
	const layers = [];
	for (let i = 0; i <= top; i++)
		layers.push([]);
	for (const n of nodes)
		layers[level.get(n.guid)].push(n);
	for (const l of layers)
		l.sort((a, b) => a.desc.localeCompare(b.desc, undefined, { numeric: true }));
	const colW = 96, rowH = 110, widest = Math.max(1, ...layers.map((l) => l.length));
	const width = widest * colW + 40, height = (top + 1) * rowH + 30;
	const pos = new Map();
	layers.forEach((l, i) => {
		const y = 30 + (top - i) * rowH;
		const gap = (width - 40) / l.length;
		l.forEach((n, j) => pos.set(n.guid, { x: 20 + gap * (j + 0.5), y: y }));
	});
	const svg = svgEl("svg", { width: width, height: height, viewBox: `0 0 ${width} ${height}`, id: "topology" });
	for (const l of state.links) {
		const a = pos.get(l.a_guid), b = pos.get(l.b_guid);
		if (!a || !b)
			continue;
		const bad = portUnhealthy(l.a_guid, l.a_port) || portUnhealthy(l.b_guid, l.b_port);
		const line = svgEl("line", {
			x1: a.x, y1: a.y, x2: b.x, y2: b.y,
			stroke: bad ? "#c62828" : l.below_enabled ? "#e09a1a" : "#8a9aa8",
			"stroke-width": bad || l.below_enabled ? 3 : 1.3,
			class: bad ? "link unhealthy" : l.below_enabled ? "link below" : "link",
		}, svg);
		if (l.state !== "ACTIVE")
			line.setAttribute("stroke-dasharray", "4 3");
		svgEl("title", {}, line).textContent =
			`${l.a_desc}[${l.a_port}] — ${l.b_desc}[${l.b_port}] ${l.width} ${l.speed}` +
			(l.rate_gbps !== undefined ? ` ${l.rate_gbps} Gb/s` : "") +
			(l.below_enabled ? " (below what both ends enable)" : "") + ` ${l.state}`;
	}
	for (const n of nodes) {
		const p = pos.get(n.guid);
		let bad = false;
		for (let i = 1; i <= n.ports; i++)
			bad = bad || portUnhealthy(n.guid, i);
		const g = svgEl("g", { class: bad ? "node unhealthy" : "node", "data-guid": n.guid }, svg);
		const fill = bad ? "#c62828" : n.type === "Switch" ? "#2b5b84" : "#5f8f3e";
		if (n.type === "Switch")
			svgEl("rect", { x: p.x - 14, y: p.y - 10, width: 28, height: 20, rx: 3, fill: fill }, g);
		else
			svgEl("circle", { cx: p.x, cy: p.y, r: 9, fill: fill }, g);
		const label = n.desc.length > 14 ? n.desc.slice(0, 13) + "…" : n.desc;
		svgEl("text", { x: p.x, y: p.y + 24, "text-anchor": "middle", "font-size": 10, fill: "#1d2226" }, g)
			.textContent = label;
		svgEl("title", {}, g).textContent = `${n.desc}\n${n.type} ${n.guid}\nLID ${n.lid}, ${n.ports} ports`;
	}
	$("picture").replaceChildren(svg);
	setText("picture-title", `Fabric (${nodes.length} nodes)`);
	$("picture-controls").classList.add("hidden");
}

function heatValue(c, metric) {
	if (!c)
		return null;
	if (metric === "traffic")
		return (c.xmit_bytes_per_s || 0) + (c.rcv_bytes_per_s || 0);
	return c[metric] || 0;
}

function heatColour(v, max) {
	if (v === null)
		return "#e9eaeb";
	if (v <= 0 || max <= 0)
		return "#cfe8cf";
	const t = Math.min(1, Math.log1p(v) / Math.log1p(max));
	const r = 255, g = Math.round(215 - 175 * t), b = Math.round(80 - 60 * t);
	return `rgb(${r},${g},${b})`;
}

/* The heat map's canvas (made once) and the layout its tooltip reads. */
const heat = { canvas: null, sw: [], perRow: 1, tileW: 1, tileH: 1, cellW: 1 };

function heatCanvas() {
	if (heat.canvas)
		return heat.canvas;
	const canvas = document.createElement("canvas");
	const tip = $("tooltip");
	canvas.id = "heatmap";
	canvas.addEventListener("mousemove", (e) => {
		const r = canvas.getBoundingClientRect();
		const x = e.clientX - r.left - 2, y = e.clientY - r.top - 2;
		const tc = Math.floor(x / heat.tileW), tr = Math.floor(y / heat.tileH);
		const n = tc < heat.perRow ? heat.sw[tr * heat.perRow + tc] : undefined;
		const port = Math.floor((x - tc * heat.tileW) / heat.cellW) + 1;
		if (!n || x < 0 || y < 0 || port > n.ports) {
			tip.classList.add("hidden");
			return;
		}
		const c = state.counters.get(key(n.guid, port));
		tip.textContent = `${n.desc} port ${port}\n` + (c
			? `errors ${c.errors} (last ${c.errors_last})\n${fmtBytes(c.xmit_bytes_per_s)}/s out, ` +
			  `${fmtBytes(c.rcv_bytes_per_s)}/s in${c.healthy ? "" : "\nUNHEALTHY: " + c.reasons.join(", ")}`
			: "not read (not ACTIVE, or the performance manager is off)");
		tip.style.left = e.clientX + 12 + "px";
		tip.style.top = e.clientY + 12 + "px";
		tip.classList.remove("hidden");
	});
	canvas.addEventListener("mouseleave", () => tip.classList.add("hidden"));
	heat.canvas = canvas;
	return canvas;
}

/*
 * One tile per switch (in name order, left to right, top to bottom), one cell
 * per port in it, coloured by errors or traffic.
 */
function drawHeatMap() {
	const metric = $("heat-metric").value;
	const sw = state.nodes.filter((n) => n.type === "Switch")
		.sort((a, b) => a.desc.localeCompare(b.desc, undefined, { numeric: true }));
	const cols = Math.max(1, ...sw.map((n) => n.ports));
	const cellW = cols <= 16 ? 8 : cols <= 40 ? 5 : 3, cellH = 8;
	const labels = sw.length <= 400;
	const tileW = cols * cellW + 8, tileH = cellH + (labels ? 14 : 4);
	const perRow = Math.max(1, Math.floor(1160 / tileW));
	const rows = Math.ceil(sw.length / perRow);
	const canvas = heatCanvas();
	Object.assign(heat, { sw: sw, perRow: perRow, tileW: tileW, tileH: tileH, cellW: cellW });
	/* setting the size clears the canvas, even to the same size */
	canvas.width = perRow * tileW + 4;
	canvas.height = rows * tileH + 4;
	const ctx = canvas.getContext("2d");
	let max = 0;
	for (const n of sw)
		for (let p = 1; p <= n.ports; p++) {
			const v = heatValue(state.counters.get(key(n.guid, p)), metric);
			if (v !== null && v > max)
				max = v;
		}
	const origin = (i) => ({ x: 2 + (i % perRow) * tileW, y: 2 + Math.floor(i / perRow) * tileH });
	sw.forEach((n, i) => {
		const o = origin(i);
		if (labels) {
			ctx.fillStyle = "#1d2226";
			ctx.font = "9px sans-serif";
			let t = n.desc;
			while (t.length > 1 && ctx.measureText(t).width > tileW - 6)
				t = t.slice(0, -1);
			ctx.fillText(t, o.x, o.y + 9);
		}
		const y = o.y + (labels ? 12 : 0);
		for (let p = 1; p <= n.ports; p++) {
			const c = state.counters.get(key(n.guid, p));
			ctx.fillStyle = c && c.healthy === false ? "#8b0000" : heatColour(heatValue(c, metric), max);
			ctx.fillRect(o.x + (p - 1) * cellW, y, cellW - 1, cellH - 1);
		}
	});
	if ($("picture").firstChild !== canvas)
		$("picture").replaceChildren(canvas);
	setText("picture-title", `Heat map: ${sw.length} switches × ${cols} ports`);
	$("picture-controls").classList.remove("hidden");
	setText("heat-legend", `green 0, yellow to red up to ${metric === "traffic" ? fmtBytes(max) + "/s" : max}; dark red: unhealthy`);
}

/*
 * What the picture shows, as a string: the fabric and, per port, what
 * colours it (health; for the heat map the metric's value).  The picture is
 * redrawn only when this changed.
 */
function pictureSig(heatmap) {
	const metric = heatmap ? $("heat-metric").value : "";
	const parts = [heatmap ? "heat " + metric : "topo"];
	for (const n of state.nodes)
		parts.push(`${n.guid} ${n.desc} ${n.type} ${n.lid} ${n.ports}`);
	if (!heatmap)
		for (const l of state.links)
			parts.push(`${l.a_guid}/${l.a_port} ${l.b_guid}/${l.b_port} ${l.state} ${l.width} ${l.speed}`);
	for (const [k, c] of state.counters)
		parts.push(`${k} ${c.healthy}` + (heatmap ? ` ${heatValue(c, metric)}` : ""));
	return parts.join("\n");
}

let pictureDrawn = "";

function drawPicture() {
	if (!state.nodes.length)
		return;
	const heatmap = !(VIEW === "topology" || (VIEW !== "heatmap" && state.nodes.length <= SMALL_FABRIC));
	const sig = pictureSig(heatmap);
	if (sig === pictureDrawn)
		return;
	pictureDrawn = sig;
	if (heatmap)
		drawHeatMap();
	else
		drawTopology();
}

/* ---- validation ------------------------------------------------------------ */

/* The findings of `validate` (the fabric against the cabling plan), one row each. */
function renderValidation(v) {
	const tbody = $("findings-table").querySelector("tbody");
	const plan = v.plan ? `plan ${v.plan}` : "no plan";
	$("validation-summary").textContent =
		`${plan}: ${v.errors} errors, ${v.warnings} warnings, ${v.isolated} ports isolated` +
		(v.load_error ? ` (load error: ${v.load_error})` : "");
	tbody.textContent = "";
	for (const f of v.findings) {
		const tr = document.createElement("tr");
		tr.className = f.severity === "error" ? "bad" : "";
		for (const text of [f.severity, f.kind, f.text, f.isolated ? "yes" : ""]) {
			const td = document.createElement("td");
			td.textContent = text;
			tr.appendChild(td);
		}
		tbody.appendChild(tr);
	}
}

/* ---- events ------------------------------------------------------------ */

const BAD_EVENTS = new Set(["link_down", "port_down", "node_removed", "port_unhealthy", "routing_fallback"]);
const GOOD_EVENTS = new Set(["link_up", "port_up", "node_added", "port_healthy", "subnet_up"]);

function eventText(ev) {
	switch (ev.type) {
	case "link_down":
	case "link_up":
		return `${ev.type === "link_down" ? "link down" : "link up"}: ${ev.desc}[${ev.port}] — ${ev.peer_desc}[${ev.peer_port}]`;
	case "port_down":
	case "port_up":
		return `${ev.type.replace("_", " ")}: ${ev.desc}[${ev.port}] ${ev.state}`;
	case "node_added":
	case "node_removed":
		return `${ev.type.replace("_", " ")}: ${ev.desc} (${ev.node_type}, ${ev.guid})`;
	case "port_unhealthy":
		return `unhealthy: ${ev.desc}[${ev.port}] (${ev.reasons.join(", ")}; ${ev.errors_last} errors last interval)`;
	case "port_healthy":
		return `healthy again: ${ev.desc}[${ev.port}]`;
	case "port_quarantined":
		return `quarantined: ${ev.guid}[${ev.port}] (${ev.reason})`;
	case "port_released":
		return `quarantine over: ${ev.guid}[${ev.port}]`;
	case "sweep_start":
		return `${ev.heavy ? "heavy" : "incremental"} sweep started (${ev.reason})`;
	case "sweep_end":
		return `${ev.heavy ? "heavy" : "incremental"} sweep ${ev.status}: ${ev.nodes} nodes, ${ev.duration_ms} ms, ${ev.sets} Sets`;
	case "state":
		return `SM state ${ev.previous} → ${ev.state}`;
	case "subnet_up":
		return `subnet up: ${ev.nodes} nodes, ${ev.ports_active} ports active`;
	case "lid_changed":
		return `LID of ${ev.desc}[${ev.port}]: ${ev.previous} → ${ev.lid}`;
	case "routing_fallback":
		return `routing: ${ev.engine} refused (${ev.reason})`;
	case "validation":
		return `validation ${ev.state}: ${ev.text}`;
	default:
		return ev.type;
	}
}

function addEvent(ev) {
	const li = document.createElement("li");
	li.dataset.type = ev.type;
	li.dataset.seq = String(ev.seq);
	if (BAD_EVENTS.has(ev.type) || ev.status === "failed" ||
	    (ev.type === "validation" && (ev.state === "new" || ev.state === "isolated")))
		li.className = "bad";
	else if (GOOD_EVENTS.has(ev.type) || (ev.type === "validation" && ev.state === "cleared"))
		li.className = "good";
	const t = document.createElement("span");
	t.className = "t";
	t.textContent = fmtTime(ev.unix_time);
	li.appendChild(t);
	li.appendChild(document.createTextNode(eventText(ev)));
	const ul = $("events");
	ul.insertBefore(li, ul.firstChild);
	while (ul.children.length > MAX_EVENTS)
		ul.removeChild(ul.lastChild);
}

async function pollEvents() {
	try {
		const r = await api("eventlog", { after: state.seq });
		if (r.seq < state.seq) {
			/* the daemon restarted: its numbers start again */
			state.seq = 0;
		} else {
			for (const ev of r.events)
				addEvent(ev);
			state.seq = r.seq;
		}
	} catch (e) {
		/* shown by the status poll */
	}
	setTimeout(pollEvents, EVENTS_MS);
}

/* ---- the poll ------------------------------------------------------------- */

async function refresh() {
	try {
		const s = await api("status");
		state.status = s;
		renderSummary();
		if (s.generation && s.generation !== state.generation) {
			const [nodes, ports, links] = await Promise.all([api("nodes"), api("ports"), api("links")]);
			state.nodes = nodes;
			state.nodeByGuid = new Map(nodes.map((n) => [n.guid, n]));
			state.ports = ports;
			state.links = links;
			state.generation = s.generation;
			renderValidation(await api("validate"));
		}
		const c = await api("counters");
		state.counters = new Map(c.port_counters.map((p) => [key(p.node_guid, p.port), p]));
		renderPorts();
		renderSwitches();
		drawPicture();
		$("conn-error").classList.add("hidden");
	} catch (e) {
		$("conn-error").classList.remove("hidden");
	}
	setTimeout(refresh, state.ports.length > 5000 ? 4 * POLL_MS : POLL_MS);
}

function start() {
	setupSort("ports-table", renderPorts);
	setupSort("switches-table", renderSwitches);
	for (const id of ["port-filter", "only-unhealthy", "only-linked"])
		$(id).addEventListener("input", renderPorts);
	$("switch-filter").addEventListener("input", renderSwitches);
	$("heat-metric").addEventListener("change", drawPicture);
	refresh();
	pollEvents();
}

document.addEventListener("DOMContentLoaded", start);

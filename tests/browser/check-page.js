#!/usr/bin/env node
// SPDX-License-Identifier: MIT
//
// Open one page written by `pcl report --format=flamegraph|html` in a real
// Chromium (Debian's, driven by playwright-core), use it as a person would,
// and print what was checked as JSON.
//
//   node check-page.js --mode svg|html --page FILE --hot NAME[|NAME...]
//        --screenshot OUT.png [--caller NAME] [--thread LABEL=TOP]
//        [--orient up|down] [--chromium PATH] [--timeout SECS] [--annotate yes]
//
// --hot      the hottest function of the recording (alternatives split by
//            '|', e.g. one per thread of a workload whose threads are alike)
// --caller   (html) a caller of the hot function: clicking the hot row of
//            the functions table must list it in the callers table, and
//            clicking its row must list the hot function in the callees
// --thread   (html) pick a thread in <select id="thread">: the option whose
//            label holds LABEL (else any other option); the functions table
//            must redraw with other rows, and with TOP on top if LABEL matched
// --annotate (html) yes: clicking the hot row shows its source and assembly
// --orient   (svg) up: a flame graph, the root at the bottom under the hot
//            frame; down: an icicle graph, the root at the top
//
// The test hooks (agreed with the writers, lib/output/flamegraph.c and
// lib/output/html.c):
//   svg:  <g class="frame" data-name="NAME"> holding a <rect> and a <text>;
//         ids "reset", "search", "details" (hover text); a click on a frame
//         zooms it to the full width.
//   html: <table id="functions"> with <tr data-name="NAME"> rows sorted by
//         self, descending; flame graph in #flame: a canvas with
//         window.pclFlame.frames() -> [{name, x, y, w, h}] (CSS px from the
//         canvas' corner), or elements .frame[data-name]; <select id="thread">;
//         tables #callers and #callees (rows with data-name);
//         tables #source (rows data-line) and #asm (rows data-addr, a jump's
//         data-target, class "target" where a jump lands) for the chosen
//         function, rows with samples coloured, #ann-info naming it;
//         window.pclReady === true after the first draw.
//
// Every check is run even when another failed (where it can be), so one run
// says all that is wrong. The page may not fetch anything: every request but
// the page's own file:// URL is recorded and aborted; data: and blob: URLs
// are not network and are allowed. Console errors and warnings and uncaught
// exceptions are recorded over the whole visit.
//
// Exit status: 0 all checks passed; 1 a check failed (the JSON says which,
// stderr says why in one line each); 2 the page could not be checked at all
// (bad arguments, Chromium would not start, the 60 s budget ran out).
'use strict';

const fs = require('fs');
const path = require('path');
const { pathToFileURL } = require('url');

const USAGE = 'usage: node check-page.js --mode svg|html --page FILE --hot NAME[|NAME...] ' +
	'--screenshot OUT.png [--caller NAME] [--thread LABEL=TOP] [--orient up|down] [--chromium PATH] [--timeout SECS]';
const VIEWPORT = { width: 1280, height: 1000 };
const STEP_MS = 5000; // how long one interaction may take to show its effect

function die(code, msg, extra) {
	const out = Object.assign({ ok: false, error: msg }, extra || {});
	process.stdout.write(JSON.stringify(out, null, 2) + '\n');
	process.stderr.write('check-page: ' + msg + '\n');
	process.exit(code);
}

function parseArgs(argv) {
	const a = { timeout: 60, chromium: process.env.PCL_CHROMIUM || '/usr/bin/chromium' };
	const known = ['mode', 'page', 'hot', 'screenshot', 'caller', 'thread', 'orient', 'chromium', 'timeout', 'annotate'];
	for (let i = 0; i < argv.length; i++) {
		const m = /^--([a-z]+)(?:=(.*))?$/.exec(argv[i]);
		if (!m || !known.includes(m[1]))
			die(2, `unknown argument '${argv[i]}'\n${USAGE}`);
		let v = m[2];
		if (v === undefined) {
			if (i + 1 >= argv.length)
				die(2, `option '--${m[1]}' needs a value\n${USAGE}`);
			v = argv[++i];
		}
		a[m[1]] = v;
	}
	for (const k of ['mode', 'page', 'hot', 'screenshot'])
		if (!a[k])
			die(2, `missing --${k}\n${USAGE}`);
	if (a.mode !== 'svg' && a.mode !== 'html')
		die(2, `--mode must be svg or html, not '${a.mode}'`);
	if (!fs.existsSync(a.page))
		die(2, `page '${a.page}' does not exist`);
	if (a.orient !== undefined && a.orient !== 'up' && a.orient !== 'down')
		die(2, `--orient must be up or down, not '${a.orient}'`);
	a.timeout = Number(a.timeout);
	if (!(a.timeout > 0))
		die(2, '--timeout must be a positive number of seconds');
	a.hotNames = a.hot.split('|').filter(Boolean);
	if (a.thread !== undefined) {
		const eq = a.thread.indexOf('=');
		a.threadLabel = eq < 0 ? a.thread : a.thread.slice(0, eq);
		a.threadTop = eq < 0 ? '' : a.thread.slice(eq + 1);
	}
	return a;
}

function loadPlaywright() {
	try {
		return require(path.join(__dirname, 'node_modules', 'playwright-core'));
	} catch (e) {
		die(2, `cannot load playwright-core from ${__dirname}/node_modules (run scripts/npm-deps.sh): ${e.message}`);
	}
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

// poll FN (async) every 100 ms until it returns a truthy value or MS pass;
// returns the last value.
async function poll(fn, ms) {
	const end = Date.now() + ms;
	let v;
	for (;;) {
		v = await fn();
		if (v || Date.now() >= end)
			return v;
		await sleep(100);
	}
}

// ---- what the page holds (run inside the page) ----------------------------

// The flame graph's frames as [{name, w, i}] (w: CSS px wide, i: index for
// frameHandle); canvas pages through window.pclFlame.frames().
function pageFrames(mode) {
	const out = [];
	if (mode === 'html' && window.pclFlame && typeof window.pclFlame.frames === 'function') {
		const fr = window.pclFlame.frames() || [];
		fr.forEach((f, i) => out.push({ name: String(f.name), w: Number(f.w), x: Number(f.x),
			y: Number(f.y), h: Number(f.h), i, canvas: true }));
		return out;
	}
	const root = mode === 'html' ? document.getElementById('flame') : document;
	if (!root)
		return out;
	root.querySelectorAll('.frame').forEach((el, i) => {
		const shape = el.querySelector('rect') || el;
		const r = shape.getBoundingClientRect();
		// a frame hidden by a zoom (display: none) has no box
		out.push({ name: el.getAttribute('data-name'), w: r.width, top: r.top, i });
	});
	return out;
}

function frameElement([mode, i]) {
	const root = mode === 'html' ? document.getElementById('flame') : document;
	return root.querySelectorAll('.frame')[i];
}

// The flame graph's canvas on an html page: #flame itself or inside it.
function flameCanvas() {
	const f = document.getElementById('flame');
	if (!f)
		return null;
	return f.tagName === 'CANVAS' ? f : f.querySelector('canvas');
}

function tableNames(id) {
	const t = document.getElementById(id);
	if (!t)
		return null;
	return Array.from(t.querySelectorAll('tr[data-name]')).map((r) => r.getAttribute('data-name'));
}

function tableRowElement([id, name]) {
	const t = document.getElementById(id);
	if (!t)
		return null;
	return Array.from(t.querySelectorAll('tr[data-name]')).find((r) => r.getAttribute('data-name') === name) || null;
}

// ---- the checks ------------------------------------------------------------

class Run {
	constructor(args) {
		this.args = args;
		this.checks = [];
		this.info = {};
	}

	record(name, ok, detail) {
		this.checks.push({ name, ok: !!ok, detail: detail || '' });
	}

	// run FN as check NAME: FN returns a detail string (pass) or throws (fail).
	async check(name, fn) {
		this.step = name;
		try {
			const d = await fn();
			this.record(name, true, d);
		} catch (e) {
			this.record(name, false, e && e.message ? e.message.split('\n')[0] : String(e));
		}
	}

	async frames() {
		return this.page.evaluate(pageFrames, this.args.mode);
	}

	// The widest frame named one of the hot names, or null.
	async hotFrame() {
		const fr = await this.frames();
		let best = null;
		for (const f of fr)
			if (this.args.hotNames.includes(f.name) && (!best || f.w > best.w))
				best = f;
		return { best, all: fr };
	}
}

async function checkHottest(run) {
	const a = run.args;
	const { best, all } = await run.hotFrame();
	if (!all.length)
		throw new Error(a.mode === 'svg' ? 'no element with class "frame" on the page'
			: 'no flame graph frame in #flame (neither window.pclFlame.frames() nor .frame elements)');
	if (!best)
		throw new Error(`no frame named ${a.hot} among the ${all.length} frames`);
	if (!(best.w > 0))
		throw new Error(`the frame ${best.name} has no width (${best.w} px)`);
	let d = `frame ${best.name} ${best.w.toFixed(1)} px wide of ${all.length} frames`;
	if (a.mode === 'html') {
		const rows = await run.page.evaluate(tableNames, 'functions');
		if (!rows)
			throw new Error('no table with id "functions"');
		if (!rows.length)
			throw new Error('#functions has no rows with data-name');
		if (!a.hotNames.includes(rows[0]))
			throw new Error(`#functions' first row is ${rows[0]}, want ${a.hot} (rows: ${rows.slice(0, 5).join(', ')})`);
		d += `; #functions' first row of ${rows.length} is ${rows[0]}`;
	}
	return d;
}

// Click the widest hot frame; it must then be as wide as the widest frame
// was before the click (the root's full width), within 1 px.
async function checkClickZooms(run) {
	const { best, all } = await run.hotFrame();
	if (!best)
		throw new Error(`no frame named ${run.args.hot} to click`);
	const full = Math.max(...all.map((f) => f.w));
	if (best.w >= full - 1)
		throw new Error(`the frame ${best.name} is already full width (${best.w} of ${full} px): nothing to zoom`);
	if (best.canvas) {
		const canvas = await run.page.evaluateHandle(flameCanvas);
		const el = canvas.asElement();
		if (!el)
			throw new Error('window.pclFlame.frames() exists but #flame holds no canvas');
		await el.click({ position: { x: best.x + best.w / 2, y: best.y + best.h / 2 }, timeout: STEP_MS });
	} else {
		const h = await run.page.evaluateHandle(frameElement, [run.args.mode, best.i]);
		await h.asElement().click({ timeout: STEP_MS });
	}
	const after = await poll(async () => {
		const r = await run.hotFrame();
		return r.best && Math.abs(r.best.w - full) <= 1 ? r.best : null;
	}, STEP_MS);
	if (!after) {
		const r = await run.hotFrame();
		throw new Error(`after a click on ${best.name} (${best.w.toFixed(1)} px) it is ` +
			`${r.best ? r.best.w.toFixed(1) + ' px' : 'gone'} wide, want the full ${full.toFixed(1)} px ±1`);
	}
	run.zoomed = { name: best.name, before: best.w, full };
	return `${best.name}: ${best.w.toFixed(1)} -> ${after.w.toFixed(1)} px (full width ${full.toFixed(1)})`;
}

// svg: hovering the hot frame writes its name in #details.
async function checkHoverDetails(run) {
	const { best } = await run.hotFrame();
	if (!best)
		throw new Error(`no frame named ${run.args.hot} to hover`);
	const has = await run.page.evaluate(() => !!document.getElementById('details'));
	if (!has)
		throw new Error('no element with id "details"');
	const h = await run.page.evaluateHandle(frameElement, ['svg', best.i]);
	await h.asElement().hover({ timeout: STEP_MS });
	const text = await poll(async () => {
		const t = await run.page.evaluate(() => document.getElementById('details').textContent || '');
		return t.includes(best.name) ? t : '';
	}, STEP_MS);
	if (!text) {
		const t = await run.page.evaluate(() => document.getElementById('details').textContent || '');
		throw new Error(`after hovering ${best.name}, #details says '${t.trim().slice(0, 120)}'`);
	}
	return `#details: ${text.trim().slice(0, 120)}`;
}

// svg: the hot frame is above the root (the widest frame) in a flame
// graph (up), under it in an icicle graph (down).
async function checkOrientation(run) {
	const { best, all } = await run.hotFrame();
	if (!best)
		throw new Error(`no frame named ${run.args.hot}`);
	const root = all.reduce((m, f) => (f.w > m.w ? f : m), all[0]);
	const up = best.top < root.top;
	if (best.top === root.top || up !== (run.args.orient === 'up'))
		throw new Error(`${best.name} is at y=${best.top.toFixed(1)}, the root ${root.name} at y=${root.top.toFixed(1)}: ` +
			`want ${best.name} ${run.args.orient === 'up' ? 'above (flame graph)' : 'below (icicle)'}`);
	return `${best.name} at y=${best.top.toFixed(1)} is ${up ? 'above' : 'below'} the root ${root.name} at y=${root.top.toFixed(1)}`;
}

// svg: after the zoom, #reset brings the hot frame back to its width.
async function checkResetZoom(run) {
	if (!run.zoomed)
		throw new Error('not checked: the click did not zoom');
	const el = await run.page.$('#reset');
	if (!el)
		throw new Error('no element with id "reset"');
	await el.click({ timeout: STEP_MS });
	const z = run.zoomed;
	const back = await poll(async () => {
		const r = await run.hotFrame();
		return r.best && Math.abs(r.best.w - z.before) <= 1 ? r.best : null;
	}, STEP_MS);
	if (!back) {
		const r = await run.hotFrame();
		throw new Error(`after a click on #reset ${z.name} is ${r.best ? r.best.w.toFixed(1) + ' px' : 'gone'} ` +
			`wide, want ${z.before.toFixed(1)} px ±1 as before the zoom`);
	}
	return `${z.name}: back to ${back.w.toFixed(1)} px`;
}

// html: a click on a header of #functions sorts it: the row order changes
// and the clicked column reads in order (numbers or text, either way).
async function checkTableSort(run) {
	const p = run.page;
	const before = await p.evaluate(tableNames, 'functions');
	if (!before)
		throw new Error('no table with id "functions"');
	if (before.length < 2)
		throw new Error(`#functions has ${before.length} row(s): too few to see a sort`);
	const heads = await p.$$('#functions th');
	if (!heads.length)
		throw new Error('#functions has no <th> header to click');
	const tried = [];
	for (let col = 0; col < heads.length; col++) {
		const label = ((await heads[col].textContent()) || '').trim();
		// each header twice: the first click may sort the way the table already is
		for (let n = 0; n < 2; n++) {
			await heads[col].click({ timeout: STEP_MS });
			const now = await poll(async () => {
				const r = await p.evaluate(tableNames, 'functions');
				return r && r.join('\n') !== before.join('\n') ? r : null;
			}, n ? STEP_MS : 1000);
			if (!now)
				continue;
			const sorted = await p.evaluate(columnSorted, label);
			if (!sorted.ok)
				throw new Error(`a click on header '${label}' changed the order, but that column is not in order: ${sorted.why}`);
			run.info.sortedBy = label;
			return `header '${label}' (click ${n + 1}): first rows ${now.slice(0, 3).join(', ')} (were ${before.slice(0, 3).join(', ')})`;
		}
		tried.push(label);
	}
	throw new Error(`clicking each header twice (${tried.join(', ')}) never changed the row order ${before.slice(0, 4).join(', ')}...`);
}

// (in the page) is the #functions column under the header LABEL in order?
function columnSorted(label) {
	const t = document.getElementById('functions');
	const heads = Array.from(t.querySelectorAll('th'));
	const th = heads.find((h) => (h.textContent || '').trim() === label);
	if (!th)
		return { ok: false, why: `header '${label}' is gone after the sort` };
	const col = th.cellIndex;
	const cells = Array.from(t.querySelectorAll('tr[data-name]')).map((r) => r.cells[col] ? (r.cells[col].textContent || '').trim() : '');
	const nums = cells.map((c) => parseFloat(c.replace(/[,%\s]/g, '')));
	const numeric = nums.every((n) => !Number.isNaN(n));
	const cmpAll = [
		(x, y) => x < y ? -1 : x > y ? 1 : 0,
		(x, y) => x.localeCompare(y),
		(x, y) => x.toLowerCase() < y.toLowerCase() ? -1 : x.toLowerCase() > y.toLowerCase() ? 1 : 0,
	];
	const vals = numeric ? nums : cells;
	const cmps = numeric ? [(x, y) => x - y] : cmpAll;
	for (const c of cmps) {
		let asc = true, desc = true;
		for (let i = 1; i < vals.length; i++) {
			const d = c(vals[i - 1], vals[i]);
			if (d > 0)
				asc = false;
			if (d < 0)
				desc = false;
		}
		if (asc || desc)
			return { ok: true };
	}
	return { ok: false, why: `column ${col} reads ${cells.slice(0, 6).join(' | ')}` };
}

// html: click the row of FROM in #functions; table ID must then list WANT.
async function clickRowExpect(run, from, id, want) {
	const p = run.page;
	const row = await p.evaluateHandle(tableRowElement, ['functions', from]);
	if (!row.asElement())
		throw new Error(`#functions has no row for ${from}`);
	await row.asElement().click({ timeout: STEP_MS });
	const got = await poll(async () => {
		const r = await p.evaluate(tableNames, id);
		return r && r.includes(want) ? r : null;
	}, STEP_MS);
	if (!got) {
		const r = await p.evaluate(tableNames, id);
		if (!r)
			throw new Error(`no table with id "${id}"`);
		throw new Error(`after a click on the ${from} row, #${id} lists ${r.length ? r.join(', ') : 'nothing'}, want ${want}`);
	}
	return `after a click on ${from}: #${id} lists ${got.slice(0, 5).join(', ')}`;
}

// The source and assembly of the chosen function, read from the page.
function annotateView() {
	const rows = (id, attr) => Array.from(document.querySelectorAll('#' + id + ' tbody tr[' + attr + ']'));
	const hot = (r) => r.style.background !== '' && r.cells[0].textContent !== '';
	const asm = rows('asm', 'data-addr'), src = rows('source', 'data-line');
	const addrs = new Set(asm.map((r) => r.dataset.addr));
	const jumps = asm.filter((r) => r.dataset.target);
	return {
		info: (document.getElementById('ann-info') || {}).textContent || '',
		asm: asm.length, src: src.length,
		asmHot: asm.filter(hot).length, srcHot: src.filter(hot).length,
		jumps: jumps.length,
		landed: jumps.filter((r) => addrs.has(r.dataset.target) &&
			asm.find((x) => x.dataset.addr === r.dataset.target).classList.contains('target')).length,
	};
}

// html: click the hot function's row; the source and assembly views must
// show it: instructions and source lines, the sampled ones coloured, every
// jump's target among the instructions and marked.
async function checkAnnotate(run) {
	const p = run.page, hot = run.args.hotNames[0];
	const row = await p.evaluateHandle(tableRowElement, ['functions', hot]);
	if (!row.asElement())
		throw new Error(`#functions has no row for ${hot}`);
	await row.asElement().click({ timeout: STEP_MS });
	const v = await poll(async () => {
		const r = await p.evaluate(annotateView);
		return r.asm > 0 && r.info.includes(hot) ? r : null;
	}, STEP_MS) || await p.evaluate(annotateView);
	if (!v.info.includes(hot) || !v.asm)
		throw new Error(`after a click on ${hot}: #asm has ${v.asm} rows, #ann-info reads "${v.info}"`);
	if (!v.src || !v.srcHot)
		throw new Error(`#source has ${v.src} lines, ${v.srcHot} coloured with a share`);
	if (!v.asmHot)
		throw new Error(`none of the ${v.asm} instructions of #asm is coloured with a share`);
	if (!v.jumps || v.landed !== v.jumps)
		throw new Error(`${v.jumps} jumps in #asm, ${v.landed} land on an instruction marked "target"`);
	return `${hot}: ${v.asm} instructions (${v.asmHot} sampled), ${v.src} source lines (${v.srcHot} sampled), ${v.jumps} jumps marked`;
}

// html: pick a thread; the functions table must redraw with other rows.
async function checkThreadSelect(run) {
	const p = run.page;
	const a = run.args;
	const sel = await p.$('select#thread');
	if (!sel)
		throw new Error('no <select id="thread">');
	const opts = await p.evaluate(() => {
		const s = document.getElementById('thread');
		return Array.from(s.options).map((o) => ({ value: o.value, label: (o.textContent || '').trim(), selected: o.selected }));
	});
	const others = opts.filter((o) => !o.selected);
	if (!others.length)
		throw new Error(`<select id="thread"> has no other option than '${opts.map((o) => o.label).join(', ')}'`);
	const labelled = others.find((o) => a.threadLabel && o.label.includes(a.threadLabel));
	const pick = labelled || others[others.length - 1];
	const snap = () => p.evaluate(() => {
		const t = document.getElementById('functions');
		return t ? Array.from(t.querySelectorAll('tr[data-name]')).map((r) => (r.textContent || '').replace(/\s+/g, ' ').trim()).join('\n') : null;
	});
	const before = await snap();
	if (before === null)
		throw new Error('no table with id "functions"');
	await sel.selectOption({ value: pick.value }, { timeout: STEP_MS });
	const after = await poll(async () => {
		const s = await snap();
		return s !== null && s !== before ? s : null;
	}, STEP_MS);
	if (!after)
		throw new Error(`after picking '${pick.label}' in #thread (of ${opts.length} options) #functions still reads the same`);
	const rows = await p.evaluate(tableNames, 'functions');
	let d = `picked '${pick.label}' of ${opts.length} options: #functions redrew, first rows ${rows.slice(0, 3).join(', ')}`;
	if (labelled && a.threadTop) {
		if (rows[0] !== a.threadTop)
			throw new Error(`after picking '${pick.label}', #functions' first row is ${rows[0]}, want ${a.threadTop}`);
	} else if (a.threadLabel) {
		d += ` (no option label holds '${a.threadLabel}': labels ${opts.map((o) => o.label).slice(0, 6).join(', ')})`;
	}
	return d;
}

// The PNG is there and whole (signature, IHDR, a size).
function checkScreenshot(file) {
	const b = fs.readFileSync(file);
	const sig = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
	if (b.length < 33 || !b.subarray(0, 8).equals(sig) || b.toString('latin1', 12, 16) !== 'IHDR')
		throw new Error(`${file} is not a PNG (${b.length} bytes)`);
	const w = b.readUInt32BE(16), h = b.readUInt32BE(20);
	if (!(w > 0 && h > 0))
		throw new Error(`${file} is ${w}x${h} px`);
	return `${file}: ${w}x${h}, ${b.length} bytes`;
}

async function main() {
	const a = parseArgs(process.argv.slice(2));
	const { chromium } = loadPlaywright();
	const pageFile = path.resolve(a.page);
	const pageUrl = pathToFileURL(pageFile).href;
	const run = new Run(a);
	const consoleMsgs = [];
	const requests = [];
	let browser;
	run.step = 'start Chromium';

	const budget = setTimeout(() => {
		die(2, `gave up after ${a.timeout} s in step ${run.step} (checks so far: ${run.checks.map((c) => c.name + '=' + (c.ok ? 'ok' : 'FAIL')).join(' ') || 'none'})`,
			{ checks: run.checks });
	}, a.timeout * 1000);

	try {
		browser = await chromium.launch({ executablePath: a.chromium, args: ['--no-sandbox'], timeout: 30000 });
	} catch (e) {
		die(2, `cannot start Chromium ${a.chromium}: ${e.message.split('\n')[0]}`);
	}
	try {
		const ctx = await browser.newContext({ viewport: VIEWPORT, deviceScaleFactor: 1, serviceWorkers: 'block' });
		const own = (u) => {
			try {
				const x = new URL(u);
				x.hash = '';
				return x.href === pageUrl;
			} catch (e) {
				return false;
			}
		};
		const notNetwork = (u) => /^(data|blob|about):/i.test(u);
		await ctx.route('**/*', (route) => {
			const u = route.request().url();
			return own(u) || notNetwork(u) ? route.continue() : route.abort('blockedbyclient');
		});
		ctx.on('request', (r) => {
			const u = r.url();
			if (!own(u) && !notNetwork(u))
				requests.push(`${r.method()} ${u}`);
		});
		ctx.on('page', (pg) => {
			if (run.page && pg !== run.page)
				requests.push(`a new window: ${pg.url()}`);
		});
		const page = await ctx.newPage();
		run.page = page;
		page.on('console', (m) => {
			if (m.type() === 'error' || m.type() === 'warning') {
				const loc = m.location();
				consoleMsgs.push(`console.${m.type()}: ${m.text()}${loc && loc.lineNumber ? ` (line ${loc.lineNumber + 1})` : ''}`);
			}
		});
		page.on('pageerror', (e) => consoleMsgs.push(`uncaught: ${e.message.split('\n')[0]}`));
		page.on('websocket', (w) => requests.push(`websocket ${w.url()}`));
		page.on('dialog', (d) => {
			consoleMsgs.push(`unexpected dialog: ${d.type()} '${d.message()}'`);
			d.dismiss().catch(() => {});
		});

		run.step = 'load the page';
		await page.goto(pageUrl, { waitUntil: 'load', timeout: 20000 });
		if (a.mode === 'html') {
			await run.check('page-ready', async () => {
				try {
					await page.waitForFunction(() => window.pclReady === true, null, { timeout: 10000 });
				} catch (e) {
					throw new Error('window.pclReady is not true 10 s after load');
				}
				return 'window.pclReady === true';
			});
		}
		run.info.title = await page.title();
		run.info.size = await page.evaluate(() => ({
			width: document.documentElement.scrollWidth, height: document.documentElement.scrollHeight,
		}));

		// The screenshot first: what a person sees on opening the file.
		await run.check('screenshot-saved', async () => {
			fs.mkdirSync(path.dirname(path.resolve(a.screenshot)), { recursive: true });
			if (a.mode === 'svg') {
				// fullPage hangs on an SVG document (playwright-core 1.65):
				// make the viewport the drawing's size instead.
				const r = await page.evaluate(() => {
					const b = document.documentElement.getBoundingClientRect();
					return { width: Math.ceil(b.right), height: Math.ceil(b.bottom) };
				});
				await page.setViewportSize({ width: Math.min(Math.max(r.width, 100), 8000),
					height: Math.min(Math.max(r.height, 100), 8000) });
				await page.screenshot({ path: a.screenshot, timeout: 20000 });
				await page.setViewportSize(VIEWPORT);
			} else {
				await page.screenshot({ path: a.screenshot, fullPage: true, timeout: 20000 });
			}
			return checkScreenshot(a.screenshot);
		});

		await run.check('hottest-on-page', () => checkHottest(run));
		if (a.mode === 'svg') {
			if (a.orient)
				await run.check('orientation', () => checkOrientation(run));
			await run.check('hover-details', () => checkHoverDetails(run));
			await run.check('click-zooms', () => checkClickZooms(run));
			await run.check('reset-zoom', () => checkResetZoom(run));
		} else {
			await run.check('click-zooms', () => checkClickZooms(run));
			if (a.caller) {
				const hot = a.hotNames[0];
				await run.check('callers', () => clickRowExpect(run, hot, 'callers', a.caller));
				await run.check('callees', () => clickRowExpect(run, a.caller, 'callees', hot));
			}
			if (a.annotate)
				await run.check('annotate', () => checkAnnotate(run));
			// before the sort: the thread's table is read in the first order
			if (a.thread !== undefined)
				await run.check('thread-select', () => checkThreadSelect(run));
			await run.check('table-sort', () => checkTableSort(run));
		}
		// let late errors and requests (timers, deferred loads) show up
		run.step = 'wait for late messages';
		await sleep(300);
		run.record('no-console-errors', consoleMsgs.length === 0,
			consoleMsgs.length ? `${consoleMsgs.length} message(s): ${consoleMsgs.slice(0, 5).join(' / ')}` : 'none');
		run.record('no-network', requests.length === 0,
			requests.length ? `${requests.length} request(s), all blocked: ${requests.slice(0, 5).join(' / ')}` : 'none');
	} catch (e) {
		clearTimeout(budget);
		await browser.close().catch(() => {});
		die(2, `could not check ${a.page}: ${e.message.split('\n')[0]}`, { checks: run.checks });
	}
	clearTimeout(budget);
	await browser.close().catch(() => {});

	const failed = run.checks.filter((c) => !c.ok);
	const out = { ok: failed.length === 0, mode: a.mode, page: pageFile, screenshot: path.resolve(a.screenshot),
		checks: run.checks, info: run.info, console: consoleMsgs, requests };
	process.stdout.write(JSON.stringify(out, null, 2) + '\n');
	for (const c of failed)
		process.stderr.write(`check-page: ${path.basename(a.page)}: ${c.name} failed: ${c.detail}\n`);
	process.exit(failed.length ? 1 : 0);
}

main().catch((e) => die(2, `internal error: ${e && e.stack ? e.stack : e}`));

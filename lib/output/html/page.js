/*
 * pcl html report: every view is drawn from the aggregated profile in
 * #pcl-data (its layout and the page's stable hooks are described at the
 * top of lib/output/html.c). A thread selection costs one pass over the
 * stacks and two over the stack tree's nodes; drawing visits only the
 * frames wider than half a pixel. Text from the file reaches the page
 * through textContent, data-* attributes and the canvas, never as markup.
 */
/*
 * A function's colour: the one pcl's SVG flame graphs give it
 * (lib/output/flamegraph.c, colour()), so a function looks the same in
 * both. FNV-1a of the name's UTF-8 bytes; teal for kernel code, grey for
 * user code no symbol covers, FlameGraph's warm palette for the rest.
 */
function pclColour(name, kernel) {
	'use strict';
	const bytes = new TextEncoder().encode(name);
	let h = 2166136261;
	for (let i = 0; i < bytes.length; i++)
		h = Math.imul(h ^ bytes[i], 16777619) >>> 0;
	h = (h ^ (h >>> 15)) >>> 0;
	const v1 = h & 255, v2 = (h >>> 8) & 255, v3 = (h >>> 16) & 255;
	const q = (v, m) => Math.floor((v * m) / 255);
	let rgb;
	if (kernel)
		rgb = [50 + q(v3, 60), 170 + q(v1, 50), 160 + q(v2, 50)];
	else if (name === '[unknown]')
		rgb = [200, 200, 200];
	else if (name === '[off-CPU]')
		rgb = [110, 150, 230]; /* pcl report --wall's time blocked */
	else
		rgb = [205 + q(v3, 50), q(v1, 230), q(v2, 55)];
	return 'rgb(' + rgb.join(',') + ')';
} /* end of pclColour */

(function () {
	'use strict';

	const $ = (id) => document.getElementById(id);
	const D = JSON.parse($('pcl-data').textContent);
	const NF = D.fname.length;
	const NN = D.nodes.length / 2 + 1;
	const NT = D.threads.length / 3;
	const NS = D.stacks.length / 4;
	const ST = Float64Array.from(D.stacks);
	const VAL = D.byPeriod ? 3 : 2; /* a stack's value: its period or its count */
	const UNIT = D.byPeriod ? 'period' : 'samples';
	const ROW = 17; /* px per frame */
	const MIN_W = 0.5; /* narrower frames are not drawn */
	const MAX_H = 30000; /* px: canvases much taller fail to draw */
	const MAX_ROWS = 500; /* table rows shown before "show all" */
	const MAX_CALLS = 500;
	const ROOT_CALLER = NF; /* caller index of an outermost function */
	const FONT = '12px ui-monospace, "SFMono-Regular", Menlo, Consolas, "DejaVu Sans Mono", monospace';

	/* ---- the stack tree: node 0 is the root, parents before children ---- */
	const parent = new Int32Array(NN);
	const func = new Int32Array(NN);
	parent[0] = -1;
	func[0] = -1;
	let treeDepth = 0;
	{
		const depth = new Int32Array(NN);
		for (let i = 1; i < NN; i++) {
			parent[i] = D.nodes[2 * i - 2];
			func[i] = D.nodes[2 * i - 1];
			depth[i] = depth[parent[i]] + 1;
			if (depth[i] > treeDepth)
				treeDepth = depth[i];
		}
	}

	/*
	 * outer[n]: no caller of node n runs n's function. A function's total
	 * sums its outer nodes only, so a recursive call counts each sample once.
	 */
	const outer = (function () {
		const start = new Int32Array(NN + 1);
		for (let i = 1; i < NN; i++)
			start[parent[i] + 1]++;
		for (let i = 0; i < NN; i++)
			start[i + 1] += start[i];
		const kids = new Int32Array(Math.max(NN - 1, 1));
		const fill = start.slice(0, NN);
		for (let i = 1; i < NN; i++)
			kids[fill[parent[i]]++] = i;
		const out = new Uint8Array(NN), onPath = new Int32Array(NF + 1);
		const next = start.slice(0, NN), st = new Int32Array(treeDepth + 1);
		let sp = 1;
		while (sp) {
			const n = st[sp - 1];
			if (next[n] < start[n + 1]) {
				const c = kids[next[n]++];
				out[c] = onPath[func[c]] ? 0 : 1;
				onPath[func[c]]++;
				st[sp++] = c;
			} else {
				sp--;
				if (n)
					onPath[func[n]]--;
			}
		}
		return out;
	})();

	/* ---- threads and their command names ---- */
	const comms = [], commIx = new Map();
	const tComm = new Int32Array(NT), tCount = new Float64Array(NT);
	for (let t = 0; t < NT; t++) {
		const c = D.threads[3 * t + 2];
		if (!commIx.has(c)) {
			commIx.set(c, comms.length);
			comms.push(c);
		}
		tComm[t] = commIx.get(c);
	}
	for (let s = 0; s < NS; s++)
		tCount[ST[4 * s]] += ST[4 * s + 2];

	/* ---- the selected threads' values ---- */
	let cur = -1; /* thread index, -1: all */
	let grand = 0;
	const nodeSelf = new Float64Array(NN), nodeTot = new Float64Array(NN);
	const selfF = new Float64Array(NF), totF = new Float64Array(NF);

	function aggregate() {
		nodeSelf.fill(0);
		for (let s = 0; s < NS; s++)
			if (cur < 0 || ST[4 * s] === cur)
				nodeSelf[ST[4 * s + 1]] += ST[4 * s + VAL];
		nodeTot.set(nodeSelf);
		for (let i = NN - 1; i > 0; i--)
			nodeTot[parent[i]] += nodeTot[i];
		grand = nodeTot[0];
		selfF.fill(0);
		totF.fill(0);
		for (let i = 1; i < NN; i++) {
			if (nodeSelf[i])
				selfF[func[i]] += nodeSelf[i];
			if (outer[i] && nodeTot[i])
				totF[func[i]] += nodeTot[i];
		}
	}

	/* ---- formatting ---- */
	const num = (v) => String(Math.round(v));
	const pct = (v, base) => (base > 0 ? (100 * v / base).toFixed(2) + '%' : '-');
	const dsoOf = (f) => (f >= 0 && f < NF ? D.dsos[D.fdso[f]] : '');

	function cell(tr, text, cls) {
		const td = document.createElement('td');
		td.textContent = text;
		if (cls)
			td.className = cls;
		tr.appendChild(td);
		return td;
	}

	/*
	 * ---- the flame graph of the selection: root "all", one frame per
	 * command name, then the stack tree's nodes with samples under it ----
	 */
	let F; /* frames: func (-1: root or comm), name, val, self, par, depth, kids, x; n of them */
	const mark = new Uint8Array(NN), fid = new Int32Array(NN);
	const cSelf = new Float64Array(NN), cTot = new Float64Array(NN);

	function addFrame(fn, name, p, val, self) {
		const id = F.n++;
		F.func.push(fn);
		F.name.push(name);
		F.val.push(val);
		F.self.push(self);
		F.par.push(p);
		F.kids.push(null);
		F.x.push(0);
		const d = p < 0 ? 0 : F.depth[p] + 1;
		F.depth.push(d);
		if (p >= 0)
			(F.kids[p] || (F.kids[p] = [])).push(id);
		return id;
	}

	const nameOf = (id) => (F.func[id] >= 0 ? D.fname[F.func[id]] : F.name[id]);

	/* The frames of one command's stacks (their indices in @list) under the root. */
	function addComm(c, list) {
		const touched = [];
		let commSelf = 0;
		for (const s of list) {
			const n = ST[4 * s + 1], v = ST[4 * s + VAL];
			if (!n) {
				commSelf += v;
				continue;
			}
			cSelf[n] += v;
			for (let m = n; m > 0 && !mark[m]; m = parent[m]) {
				mark[m] = 1;
				touched.push(m);
			}
		}
		const T = Int32Array.from(touched).sort();
		let val = commSelf;
		for (let k = 0; k < T.length; k++)
			cTot[T[k]] = cSelf[T[k]];
		for (let k = T.length - 1; k >= 0; k--) {
			const p = parent[T[k]];
			if (p > 0)
				cTot[p] += cTot[T[k]];
			else
				val += cTot[T[k]];
		}
		const cid = addFrame(-1, comms[c], 0, val, commSelf);
		for (let k = 0; k < T.length; k++) {
			const n = T[k], p = parent[n];
			fid[n] = addFrame(func[n], null, p > 0 ? fid[p] : cid, cTot[n], cSelf[n]);
			mark[n] = 0;
			cSelf[n] = 0;
			cTot[n] = 0;
		}
	}

	function buildFlame() {
		F = { n: 0, func: [], name: [], val: [], self: [], par: [], depth: [],
		      kids: [], x: [] };
		addFrame(-1, 'all', -1, grand, 0);
		const byComm = comms.map(() => []);
		for (let s = 0; s < NS; s++)
			if (cur < 0 || ST[4 * s] === cur)
				byComm[tComm[ST[4 * s]]].push(s);
		for (let c = 0; c < comms.length; c++)
			if (byComm[c].length)
				addComm(c, byComm[c]);
		/* children in name order, as FlameGraph draws them; then their offsets */
		for (let id = 0; id < F.n; id++) {
			const k = F.kids[id];
			if (k && k.length > 1)
				k.sort((a, b) => {
					const x = nameOf(a), y = nameOf(b);
					return x < y ? -1 : x > y ? 1 : a - b;
				});
		}
		for (let id = 0; id < F.n; id++) {
			const k = F.kids[id];
			let at = F.x[id];
			if (k)
				for (const c of k) {
					F.x[c] = at;
					at += F.val[c];
				}
		}
	}

	/* ---- drawing ---- */
	const box = $('flame'), canvas = box.querySelector('canvas'), ctx = canvas.getContext('2d');
	const tip = $('tooltip');
	let zoom = 0, drawn = [], W = 0, boxW = -1, charW = 7, rows = 1;
	let term = '', matched = null, selFunc = -1;
	const colors = new Array(NF);

	function colorOf(id) {
		const f = F.func[id];
		if (matched && matched[id])
			return '#e35fd6';
		if (f < 0)
			return id ? '#d6d6c2' : '#c9c9c9';
		if (!colors[f])
			colors[f] = pclColour(D.fname[f], D.flevel[f] === 'k');
		return colors[f];
	}

	function drawFrame(id, x, w) {
		const d = F.depth[id];
		if (d >= rows)
			return;
		const y = D.icicle ? d * ROW : (rows - 1 - d) * ROW;
		ctx.fillStyle = colorOf(id);
		ctx.fillRect(x, y, w > 2 ? w - 1 : w, ROW - 1);
		if (selFunc >= 0 && F.func[id] === selFunc && w > 2) {
			ctx.strokeStyle = '#1a3fb0';
			ctx.lineWidth = 2;
			ctx.strokeRect(x + 1, y + 1, w - 3, ROW - 3);
		}
		if (w > 3 * charW + 6) {
			const name = nameOf(id), fit = Math.floor((w - 6) / charW);
			ctx.fillStyle = '#000';
			ctx.fillText(name.length <= fit ? name : name.slice(0, Math.max(fit - 2, 1)) + '..',
				     x + 3, y + ROW / 2);
		}
		drawn.push({ id: id, x: x, y: y, w: w, h: ROW });
	}

	/* The frames to draw at the zoom, as [id, x, w]: the zoomed frame and its callers span the width. */
	function visible() {
		const out = [];
		if (!(F.val[zoom] > 0))
			return out;
		for (let a = zoom; a >= 0; a = F.par[a])
			out.push([a, 0, W]);
		const scale = W / F.val[zoom], x0 = F.x[zoom], todo = [zoom];
		while (todo.length) {
			const k = F.kids[todo.pop()];
			if (!k)
				continue;
			for (const c of k) {
				const w = F.val[c] * scale;
				if (w < MIN_W)
					continue;
				out.push([c, (F.x[c] - x0) * scale, w]);
				todo.push(c);
			}
		}
		return out;
	}

	/* The canvas is as tall as the deepest frame drawn: one deep, thin stack does not stretch it. */
	function draw() {
		boxW = box.clientWidth;
		W = Math.max(boxW, 200);
		const list = visible();
		let deepest = 0;
		for (const v of list)
			if (F.depth[v[0]] > deepest)
				deepest = F.depth[v[0]];
		rows = Math.min(deepest + 1, Math.floor(MAX_H / ROW));
		const H = rows * ROW, dpr = window.devicePixelRatio || 1;
		/* a flame graph grows upwards: keep its bottom where it was in the box */
		const fromBottom = box.scrollHeight - box.scrollTop - box.clientHeight;
		canvas.style.width = W + 'px';
		canvas.style.height = H + 'px';
		canvas.width = Math.round(W * dpr);
		canvas.height = Math.round(H * dpr);
		if (!D.icicle)
			box.scrollTop = box.scrollHeight - box.clientHeight - fromBottom;
		ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
		ctx.clearRect(0, 0, W, H);
		ctx.font = FONT;
		ctx.textBaseline = 'middle';
		charW = ctx.measureText('m').width || 7;
		drawn = [];
		if (!list.length) {
			ctx.fillStyle = '#666';
			ctx.fillText('no samples', 6, ROW / 2);
			return;
		}
		for (const v of list)
			drawFrame(v[0], v[1], v[2]);
	}

	function frameAt(ev) {
		const r = canvas.getBoundingClientRect(), x = ev.clientX - r.left, y = ev.clientY - r.top;
		for (let i = drawn.length - 1; i >= 0; i--) {
			const f = drawn[i];
			if (x >= f.x && x < f.x + f.w && y >= f.y && y < f.y + f.h)
				return f;
		}
		return null;
	}

	function showTip(ev, f) {
		const id = f.id, fn = F.func[id];
		let text = nameOf(id);
		if (fn >= 0)
			text += '\n' + dsoOf(fn) + (D.flevel[fn] === 'k' ? ' (kernel)' : '');
		else if (id)
			text += '\n(command name)';
		text += '\n' + num(F.val[id]) + ' ' + UNIT + ', ' + pct(F.val[id], grand) + ' of all';
		if (zoom && id !== zoom)
			text += ', ' + pct(F.val[id], F.val[zoom]) + ' of the zoomed frame';
		if (F.self[id])
			text += '\nself: ' + num(F.self[id]) + ' (' + pct(F.self[id], grand) + ')';
		tip.textContent = text;
		tip.hidden = false;
		const tw = tip.offsetWidth, th = tip.offsetHeight;
		let left = ev.clientX + 14, top = ev.clientY + 14;
		if (left + tw > window.innerWidth - 4)
			left = Math.max(4, ev.clientX - tw - 14);
		if (top + th > window.innerHeight - 4)
			top = Math.max(4, ev.clientY - th - 14);
		tip.style.left = left + 'px';
		tip.style.top = top + 'px';
	}

	canvas.addEventListener('mousemove', (ev) => {
		const f = frameAt(ev);
		if (f)
			showTip(ev, f);
		else
			tip.hidden = true;
	});
	canvas.addEventListener('mouseleave', () => {
		tip.hidden = true;
	});
	canvas.addEventListener('click', (ev) => {
		const f = frameAt(ev);
		if (!f)
			return;
		zoom = f.id;
		if (F.func[f.id] >= 0)
			choose(F.func[f.id]);
		else
			draw();
	});

	function resetZoom() {
		zoom = 0;
		draw();
	}
	$('reset').addEventListener('click', resetZoom);
	document.addEventListener('keydown', (ev) => {
		if (ev.key === 'Escape' && ev.target === document.body)
			resetZoom();
	});

	/* ---- search: matching frames in magenta, and their share counted once ---- */
	let lower = null;

	function findMatches() {
		const info = $('search-info');
		matched = null;
		if (!term) {
			info.textContent = '';
			return;
		}
		if (!lower)
			lower = D.fname.map((s) => s.toLowerCase());
		matched = new Uint8Array(F.n);
		const covered = new Uint8Array(F.n);
		let sum = 0, count = 0;
		for (let id = 1; id < F.n; id++) {
			const fn = F.func[id];
			const name = fn >= 0 ? lower[fn] : F.name[id].toLowerCase();
			const up = covered[F.par[id]];
			if (name.includes(term)) {
				matched[id] = 1;
				count++;
				if (!up)
					sum += F.val[id];
			}
			covered[id] = up || matched[id];
		}
		info.textContent = count + ' frames match, ' + pct(sum, grand) + ' of ' + UNIT;
	}

	let searchTimer = 0;
	$('search').addEventListener('input', (ev) => {
		clearTimeout(searchTimer);
		searchTimer = setTimeout(() => {
			term = ev.target.value.trim().toLowerCase();
			findMatches();
			draw();
		}, 120);
	});

	/* ---- the functions table ---- */
	const table = $('functions'), tbody = table.tBodies[0], more = $('more');
	let sortKey = 'self', sortDesc = true, showAll = false;

	function byKey(a, b) {
		let c = 0;
		if (sortKey === 'name')
			c = D.fname[a] < D.fname[b] ? -1 : D.fname[a] > D.fname[b] ? 1 : 0;
		else if (sortKey === 'dso')
			c = dsoOf(a) < dsoOf(b) ? -1 : dsoOf(a) > dsoOf(b) ? 1 : 0;
		else if (sortKey === 'total')
			c = totF[a] - totF[b];
		else
			c = selfF[a] - selfF[b];
		if (sortDesc)
			c = -c;
		return c || selfF[b] - selfF[a] || totF[b] - totF[a] || a - b;
	}

	function renderTable() {
		const idx = [];
		for (let f = 0; f < NF; f++)
			if (totF[f] > 0 || selfF[f] > 0)
				idx.push(f);
		idx.sort(byKey);
		const n = showAll ? idx.length : Math.min(idx.length, MAX_ROWS);
		const frag = document.createDocumentFragment();
		for (let i = 0; i < n; i++) {
			const f = idx[i], tr = document.createElement('tr');
			tr.dataset.name = D.fname[f];
			tr.dataset.func = String(f);
			if (f === selFunc)
				tr.className = 'sel';
			cell(tr, D.fname[f]);
			cell(tr, dsoOf(f), 'dso');
			cell(tr, num(selfF[f]), 'num');
			cell(tr, pct(selfF[f], grand), 'num');
			cell(tr, num(totF[f]), 'num');
			cell(tr, pct(totF[f], grand), 'num');
			frag.appendChild(tr);
		}
		if (!idx.length) {
			const tr = document.createElement('tr');
			tr.className = 'empty';
			cell(tr, 'no samples').colSpan = 6;
			frag.appendChild(tr);
		}
		tbody.replaceChildren(frag);
		more.hidden = n >= idx.length;
		more.firstElementChild.textContent = 'Show all ' + idx.length + ' functions';
		for (const th of table.tHead.rows[0].cells) {
			th.classList.remove('asc', 'desc');
			if (th.dataset.key === sortKey && th.textContent.indexOf('%') < 0)
				th.classList.add(sortDesc ? 'desc' : 'asc');
		}
		return idx;
	}

	table.tHead.addEventListener('click', (ev) => {
		const th = ev.target.closest('th');
		if (!th || !th.dataset.key)
			return;
		const key = th.dataset.key;
		if (key === sortKey)
			sortDesc = !sortDesc;
		else {
			sortKey = key;
			sortDesc = key === 'self' || key === 'total';
		}
		renderTable();
	});
	more.firstElementChild.addEventListener('click', () => {
		showAll = true;
		renderTable();
	});
	tbody.addEventListener('click', (ev) => {
		const tr = ev.target.closest('tr');
		if (tr && tr.dataset.func)
			choose(+tr.dataset.func);
	});

	/* ---- callers and callees of the chosen function ---- */
	const onF = new Uint8Array(NN);

	function fillCalls(tableId, vals, base) {
		const idx = [];
		for (let f = 0; f < vals.length; f++)
			if (vals[f] > 0)
				idx.push(f);
		idx.sort((a, b) => vals[b] - vals[a] || a - b);
		const frag = document.createDocumentFragment();
		for (const f of idx.slice(0, MAX_CALLS)) {
			const tr = document.createElement('tr'), name = f === ROOT_CALLER ? '(root)' : D.fname[f];
			tr.dataset.name = name;
			if (f !== ROOT_CALLER)
				tr.dataset.func = String(f);
			cell(tr, name);
			cell(tr, dsoOf(f), 'dso');
			cell(tr, num(vals[f]), 'num');
			cell(tr, pct(vals[f], base), 'num');
			frag.appendChild(tr);
		}
		if (!idx.length) {
			const tr = document.createElement('tr');
			tr.className = 'empty';
			cell(tr, 'none').colSpan = 4;
			frag.appendChild(tr);
		}
		$(tableId).tBodies[0].replaceChildren(frag);
	}

	/*
	 * Each sample counts once per caller (and callee) of the function, even
	 * when the function recurs in its stack; shares are of its total.
	 */
	function renderCalls() {
		const sel = $('selected');
		const callers = new Float64Array(NF + 1), callees = new Float64Array(NF);
		if (selFunc < 0) {
			fillCalls('callers', callers, 0);
			fillCalls('callees', callees, 0);
			return;
		}
		const g = selFunc, cStamp = new Int32Array(NF + 1), kStamp = new Int32Array(NF);
		let stamp = 0;
		for (let i = 1; i < NN; i++)
			onF[i] = func[i] === g || onF[parent[i]];
		for (let n = 1; n < NN; n++) {
			const v = nodeSelf[n];
			if (!v || !onF[n])
				continue;
			stamp++;
			for (let m = n, child = -1; m > 0 && onF[m]; child = m, m = parent[m]) {
				if (func[m] !== g)
					continue;
				const c = parent[m] > 0 ? func[parent[m]] : ROOT_CALLER;
				if (cStamp[c] !== stamp) {
					cStamp[c] = stamp;
					callers[c] += v;
				}
				if (child >= 0 && kStamp[func[child]] !== stamp) {
					kStamp[func[child]] = stamp;
					callees[func[child]] += v;
				}
			}
		}
		sel.dataset.name = D.fname[g];
		sel.textContent = D.fname[g] + ' (' + dsoOf(g) + '): total ' + num(totF[g]) + ' ' + UNIT +
			' (' + pct(totF[g], grand) + '), self ' + num(selfF[g]) + ' (' + pct(selfF[g], grand) + ')';
		fillCalls('callers', callers, totF[g]);
		fillCalls('callees', callees, totF[g]);
	}

	/* ---- the chosen function's source and assembly (D.ann: the hottest functions) ---- */
	const annOf = new Map();
	for (const a of D.ann || [])
		annOf.set(a.f, a);

	/* a share's heat: white to orange-red as it nears the function's hottest */
	function heat(tr, v, max) {
		if (v > 0 && max > 0)
			tr.style.background = 'rgba(255, 80, 0, ' + (0.12 + 0.6 * v / max).toFixed(3) + ')';
	}

	function codeRow(tbody, cells) {
		const tr = document.createElement('tr');
		for (const [text, cls] of cells) {
			const td = document.createElement('td');
			td.textContent = text;
			if (cls)
				td.className = cls;
			tr.appendChild(td);
		}
		tbody.appendChild(tr);
		return tr;
	}

	function renderAnnotate() {
		const info = $('ann-info');
		const srcBody = $('source').tBodies[0], asmBody = $('asm').tBodies[0];
		srcBody.textContent = '';
		asmBody.textContent = '';
		const a = selFunc >= 0 ? annOf.get(selFunc) : undefined;
		if (selFunc < 0) {
			info.textContent = 'Click a function in the table or the flame graph.';
			return;
		}
		if (!a) {
			info.textContent = D.fname[selFunc] + ': no listing (the page has the ' +
				(D.ann || []).filter((x) => !x.err).length +
				' hottest functions whose code pcl could read)';
			return;
		}
		if (a.err) {
			info.textContent = D.fname[selFunc] + ': no listing: ' + a.err;
			return;
		}
		const by = D.byPeriod ? 3 : 2, total = D.byPeriod ? a.p : a.n;
		info.textContent = D.fname[selFunc] + ' at ' + a.start + ': ' + num(a.n) +
			' samples (all threads); shares are of the function\'s ' + UNIT;
		/* source lines: each one's share is its instructions' */
		const lineVal = new Map();
		let maxI = 0, maxL = 0;
		for (const i of a.asm) {
			if (i[by] > maxI)
				maxI = i[by];
			if (i[5] >= 0) {
				const k = i[5] + ':' + i[6], v = (lineVal.get(k) || 0) + i[by];
				lineVal.set(k, v);
				if (v > maxL)
					maxL = v;
			}
		}
		a.src.forEach((lines, fi) => {
			if (a.src.length > 1)
				codeRow(srcBody, [['', 'num'], ['', 'num'], [a.files[fi], 'file']]).className = 'file';
			for (let k = 1; k < lines.length; k++) {
				const n = lines[0] + k - 1, v = lineVal.get(fi + ':' + n) || 0;
				const tr = codeRow(srcBody, [[v ? pct(v, total) : '', 'num'], [String(n), 'num'],
					[lines[k], 'code']]);
				tr.dataset.line = String(n);
				tr.dataset.file = String(fi);
				heat(tr, v, maxL);
			}
		});
		const rows = [];
		a.asm.forEach((i) => {
			const tr = codeRow(asmBody, [[i[by] ? pct(i[by], total) : '', 'num'], [i[0], 'num addr'],
				['', 'jump'], [i[1], 'code']]);
			tr.dataset.addr = i[0];
			if (i[5] >= 0) {
				tr.dataset.file = String(i[5]);
				tr.dataset.line = String(i[6]);
			}
			heat(tr, i[by], maxI);
			rows.push(tr);
		});
		/* jumps: an arrow towards the target, and the target marked */
		a.asm.forEach((i, k) => {
			if (i[4] < 0)
				return;
			rows[k].dataset.target = a.asm[i[4]][0];
			rows[k].cells[2].textContent = i[4] <= k ? '\u2191' : '\u2193';
			rows[k].cells[2].title = 'jumps to ' + a.asm[i[4]][0];
			rows[i[4]].classList.add('target');
			if (!rows[i[4]].cells[2].textContent)
				rows[i[4]].cells[2].textContent = '\u25B6';
		});
	}

	/* a row of one view lights up the rows of the other with the same source line */
	function linkViews(from, to) {
		$(from).tBodies[0].addEventListener('click', (ev) => {
			const tr = ev.target.closest('tr');
			if (!tr || tr.dataset.line === undefined)
				return;
			for (const t of [$(from), $(to)])
				for (const r of t.tBodies[0].rows)
					r.classList.toggle('cur', r.dataset.line === tr.dataset.line &&
						r.dataset.file === tr.dataset.file);
			if (tr.dataset.target)
				for (const r of $('asm').tBodies[0].rows)
					if (r.dataset.addr === tr.dataset.target)
						r.classList.add('cur');
		});
	}
	linkViews('source', 'asm');
	linkViews('asm', 'source');

	function choose(f) {
		selFunc = f;
		for (const tr of tbody.rows)
			tr.classList.toggle('sel', tr.dataset.func === String(f));
		renderCalls();
		renderAnnotate();
		draw();
	}

	for (const id of ['callers', 'callees'])
		$(id).tBodies[0].addEventListener('click', (ev) => {
			const tr = ev.target.closest('tr');
			if (tr && tr.dataset.func)
				choose(+tr.dataset.func);
		});

	/* ---- the thread filter ---- */
	const threadSel = $('thread');

	/* a new selection starts sorted as at load: its hottest functions first */
	function selectThread(t) {
		cur = t;
		sortKey = 'self';
		sortDesc = true;
		showAll = false;
		aggregate();
		buildFlame();
		zoom = 0;
		findMatches();
		const idx = renderTable();
		if (selFunc < 0 && idx.length)
			selFunc = idx[0];
		for (const tr of tbody.rows)
			tr.classList.toggle('sel', tr.dataset.func === String(selFunc));
		renderCalls();
		renderAnnotate();
		draw();
	}

	{
		const order = [];
		for (let t = 0; t < NT; t++)
			order.push(t);
		order.sort((a, b) => tCount[b] - tCount[a] || a - b);
		threadSel.options[0].textContent = 'all threads (' + num(D.samples) + ' samples)';
		for (const t of order) {
			const o = document.createElement('option');
			o.value = String(t);
			o.textContent = D.threads[3 * t + 2] + ' ' + D.threads[3 * t] + '/' +
				D.threads[3 * t + 1] + ' (' + num(tCount[t]) + ' samples)';
			threadSel.appendChild(o);
		}
		threadSel.value = '-1';
		threadSel.addEventListener('change', () => selectThread(+threadSel.value));
	}

	selectThread(-1);

	/* redraw when the width changes; in the next frame, so no resize loop is reported */
	if (window.ResizeObserver)
		new ResizeObserver(() => {
			if (box.clientWidth !== boxW)
				requestAnimationFrame(draw);
		}).observe(box);
	else
		window.addEventListener('resize', () => requestAnimationFrame(draw));

	window.pclFlame = {
		frames: () => drawn.map((f) => ({ name: nameOf(f.id), x: f.x, y: f.y, w: f.w, h: f.h })),
		reset: resetZoom,
	};
	window.pclReady = true;
})();

// The dashboard: the public summary as SVG charts with the numbers beside
// them, and, with the admin token, the latest use cases. Everything is
// built with DOM calls and textContent: report text is never parsed as HTML.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const DIMS = ['catalog_id', 'check_catalog_id', 'kernel_series', 'distribution', 'cgroup_mode', 'software',
	'verdict', 'reorganisation'];

function el(tag, attrs, text) {
	const e = document.createElement(tag);
	for (const [k, v] of Object.entries(attrs || {}))
		e.setAttribute(k, v);
	if (text !== undefined)
		e.textContent = text;
	return e;
}

function svg(tag, attrs, text) {
	const e = document.createElementNS(SVG, tag);
	for (const [k, v] of Object.entries(attrs || {}))
		e.setAttribute(k, v);
	if (text !== undefined)
		e.textContent = text;
	return e;
}

// Horizontal bars: one row per group, label left, count right.
function barChart(groups) {
	const row = 24, label = 170, width = 520;
	const max = Math.max(1, ...groups.map(g => g.reports));
	const s = svg('svg', { viewBox: `0 0 ${width} ${Math.max(1, groups.length) * row}`,
		role: 'img' });
	groups.forEach((g, i) => {
		const w = Math.max(2, (width - label - 50) * g.reports / max);
		s.append(svg('text', { x: 0, y: i * row + 16 }, g.key));
		s.append(svg('rect', { class: 'bar', x: label, y: i * row + 4, width: w, height: row - 8 }));
		s.append(svg('text', { x: label + w + 6, y: i * row + 16 }, String(g.reports)));
	});
	return s;
}

// Vertical bars for the months, on a fixed-width canvas so that a few
// months do not turn into giant bars.
function columnChart(groups) {
	const width = 1000, height = 220, base = height - 24;
	const col = Math.min(110, width / Math.max(1, groups.length));
	const max = Math.max(1, ...groups.map(g => g.reports));
	const s = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img' });
	groups.forEach((g, i) => {
		const h = Math.max(2, (base - 22) * g.reports / max);
		const x = i * col + 10;
		s.append(svg('rect', { class: 'bar', x: x, y: base - h, width: col - 24, height: h }));
		s.append(svg('text', { x: x, y: base - h - 6 }, String(g.reports)));
		s.append(svg('text', { x: x, y: height - 6 }, g.key));
	});
	return s;
}

function table(dim, groups) {
	const t = el('table');
	const head = el('tr');
	for (const h of ['', 'reports', 'installs'])
		head.append(el('th', h ? { class: 'n' } : {}, h));
	t.append(head);
	for (const g of groups) {
		const tr = el('tr', { 'data-dim': dim, 'data-key': g.key });
		tr.append(el('td', {}, g.key));
		tr.append(el('td', { class: 'n reports' }, String(g.reports)));
		tr.append(el('td', { class: 'n installs' }, String(g.installs)));
		t.append(tr);
	}
	return t;
}

function renderDim(name, d, chart) {
	const box = document.getElementById('chart-' + name);
	box.replaceChildren();
	if (d.groups.length)
		box.append(chart(d.groups), table(name, d.groups));
	else
		box.append(el('p', { class: 'note' }, 'No group large enough to show yet.'));
	if (d.suppressed_groups)
		box.append(el('p', { class: 'note', 'data-suppressed': String(d.suppressed_groups) },
			`${d.suppressed_groups} smaller group(s) not shown`));
}

function render(sum) {
	const set = (id, v) => {
		const e = document.getElementById(id);
		e.textContent = String(v);
		e.setAttribute('data-value', String(v));
	};
	set('total-reports', sum.total.suppressed ? 'fewer than ' + sum.min_installs : sum.total.reports);
	set('total-installs', sum.total.suppressed ? '–' : sum.total.installs);
	set('min-installs', sum.min_installs);
	for (const name of DIMS)
		renderDim(name, sum.dimensions[name], barChart);
	renderDim('month', sum.dimensions.month, columnChart);
}

async function loadSummary() {
	const status = document.getElementById('status');
	try {
		const r = await fetch('/api/v1/summary', { cache: 'no-store' });
		if (!r.ok)
			throw new Error('HTTP ' + r.status);
		const sum = await r.json();
		render(sum);
		// When the collector computed the numbers, not when this page
		// loaded them: the summary is recomputed on a schedule.
		status.textContent = 'Summary computed by the collector at ' + sum.computed;
		status.setAttribute('data-computed', sum.computed);
		status.setAttribute('data-state', 'ready');
	} catch (e) {
		status.textContent = 'Could not load the summary: ' + e.message;
		status.setAttribute('data-state', 'error');
	}
}

// The admin token is typed once and traded for a session cookie that
// scripts cannot read and that expires within the hour; the page keeps no
// token, in storage, the URL or the history.
async function loadUseCases() {
	const status = document.getElementById('admin-status');
	const list = document.getElementById('use-cases');
	// Selected by the collector: the 20 newest reports of any kind could
	// all be reports without a use case.
	const r = await fetch('/api/v1/reports?use_case=1&limit=20', {
		credentials: 'same-origin', cache: 'no-store' });
	const logged = r.ok;
	document.getElementById('admin-form').hidden = logged;
	document.getElementById('admin-logout').hidden = !logged;
	if (!r.ok) {
		status.textContent = r.status === 401 ? '' : 'HTTP ' + r.status;
		list.replaceChildren();
		return;
	}
	const body = await r.json();
	list.replaceChildren();
	for (const rep of body.reports) {
		const li = el('li', { 'data-id': rep.id });
		li.append(el('strong', {}, `${rep.catalog_id} · ${rep.kernel_series} · ${rep.distribution}`));
		// The entry's own questions: a knob entry was never asked about
		// the reorganisation.
		const dl = el('dl', { class: 'answers' });
		for (const q of rep.answers || []) {
			dl.append(el('dt', { title: q.question || q.key, 'data-key': q.key }, q.label));
			dl.append(el('dd', {}, q.answer === null || q.answer === '' ? '(not answered)' : q.answer));
		}
		li.append(dl);
		li.append(el('div', { class: 'use-case' }, rep.use_case === '' ? '(no use case)' : rep.use_case));
		list.append(li);
	}
	status.textContent = `the latest ${list.children.length} use case(s)`;
}

async function login(ev) {
	ev.preventDefault();
	const field = document.getElementById('admin-token');
	const token = field.value;
	field.value = '';
	const r = await fetch('/api/v1/session', { method: 'POST', credentials: 'same-origin',
		headers: { Authorization: 'Bearer ' + token }, cache: 'no-store' });
	if (!r.ok) {
		document.getElementById('admin-status').textContent =
			r.status === 401 ? 'Wrong token.' : 'HTTP ' + r.status;
		return;
	}
	loadUseCases();
}

async function logout() {
	await fetch('/api/v1/session', { method: 'DELETE', credentials: 'same-origin' });
	loadUseCases();
}

document.addEventListener('DOMContentLoaded', () => {
	loadSummary();
	document.getElementById('admin-form').addEventListener('submit', login);
	document.getElementById('admin-logout').addEventListener('click', logout);
	// The old "#admin=TOKEN" bookmark put the token into the browser's
	// history: it is not read, and is dropped from the address bar.
	if (location.hash.startsWith('#admin='))
		history.replaceState(null, '', location.pathname);
	// A session of this browser may still be live.
	loadUseCases();
});

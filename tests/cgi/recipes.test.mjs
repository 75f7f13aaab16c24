// recipes.test.mjs: docs/HACKING.md stays true. Its recipes name every file a
// change touches: each file named exists, each list has as many files as its
// heading says, and what `make` generates from the tables (the web servers'
// routing and the tests' map of routes, build/routes/) is current. Its table
// of layers names the units of scripts/layers.txt, layer by layer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ROOT } from '../lib/cgi.mjs';

const HACKING = fs.readFileSync(path.join(ROOT, 'docs', 'HACKING.md'), 'utf8');

// The "## Name" section of the document.
function section(name) {
	const start = HACKING.indexOf(`\n## ${name}\n`);
	assert.ok(start >= 0, `docs/HACKING.md has no section "${name}"`);
	const end = HACKING.indexOf('\n## ', start + 1);
	return HACKING.slice(start, end < 0 ? undefined : end);
}

// Whether a path of the recipes exists: <placeholder> parts stand for any
// name (their directory must exist, and hold a file of that ending).
function exists(p) {
	if (!p.includes('<')) return fs.existsSync(path.join(ROOT, p));
	const dir = path.join(ROOT, path.dirname(p));
	const re = new RegExp(`^${path.basename(p).split(/<[^>]+>/).map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+')}$`);
	return fs.existsSync(dir) && fs.readdirSync(dir).some((f) => re.test(f));
}

// The recipes: { title, count (from "(N files"), files: [{ path, times }] }.
function recipes() {
	return section('Recipes').split('\n### ').slice(1).map((block) => {
		const title = block.split('\n')[0];
		const m = /\((\d+) files?\b/.exec(title);
		const files = [];
		for (const line of block.split('\n')) {
			const row = /^\| `([^`]+)`(?: \(×(\d+)\))? \|/.exec(line);
			if (row) files.push({ path: row[1], times: row[2] ? Number(row[2]) : 1 });
		}
		return { title, count: m ? Number(m[1]) : null, files };
	});
}

test('every recipe lists its files, as many as its heading says, each one that exists', () => {
	const all = recipes();
	assert.ok(all.length >= 6, 'endpoint, field, column, storage function, limit, page string, test');
	for (const r of all) {
		assert.ok(r.count !== null, `"${r.title}": the heading says how many files`);
		assert.ok(r.files.length > 0, `"${r.title}": a table of files`);
		const seen = new Set();
		for (const f of r.files) {
			assert.ok(!seen.has(f.path), `"${r.title}": ${f.path} twice`);
			seen.add(f.path);
			assert.ok(exists(f.path), `"${r.title}": ${f.path} does not exist`);
		}
		assert.equal(r.files.reduce((n, f) => n + f.times, 0), r.count, `"${r.title}": the table's files`);
	}
	const endpoint = all.find((r) => /endpoint/.test(r.title));
	assert.ok(endpoint && endpoint.count <= 8, 'an endpoint is at most 8 files');
});

test('every file named in backquotes in the recipes exists', () => {
	const text = section('Recipes') + section('Versions') + section('Traps');
	const names = [...text.matchAll(/`([A-Za-z0-9_.<>*/-]+\.(?:c|h|sql|md|yaml|mjs|js|json|sh|in))`/g)].map((m) => m[1]);
	assert.ok(names.length > 20);
	for (const n of names) {
		if (n.includes('*')) {
			const dir = path.join(ROOT, path.dirname(n));
			const re = new RegExp(`^${path.basename(n).replace(/\./g, '\\.').replace(/\*/g, '.*')}$`);
			assert.ok(fs.existsSync(dir) && fs.readdirSync(dir).some((f) => re.test(f)), `${n} matches nothing`);
		} else if (n.includes('/') || fs.existsSync(path.join(ROOT, n))) {
			assert.ok(exists(n), `${n} does not exist`);
		}
	}
});

test('the table of layers names the units of scripts/layers.txt', () => {
	const want = new Map();
	for (const line of fs.readFileSync(path.join(ROOT, 'scripts', 'layers.txt'), 'utf8').split('\n')) {
		if (/^\s*(#|$)/.test(line) || /^cycle\s/.test(line)) continue;
		const [layer, ...units] = line.trim().split(/\s+/);
		want.set(layer, units.filter((u) => !u.endsWith('.h')).sort());
	}
	const have = new Map();
	for (const line of section('The layers').split('\n')) {
		const m = /^\| (\w+) \| ((?:`\w+` ?)+) \|/.exec(line);
		if (m) have.set(m[1], [...m[2].matchAll(/`(\w+)`/g)].map((x) => x[1]).sort());
	}
	assert.deepEqual(have, want);
	for (const units of want.values())
		for (const u of units) assert.ok(fs.existsSync(path.join(ROOT, 'lib', `${u}.c`)), `lib/${u}.c`);
});

// scripts/layers.sh over the objects `make` built, with a table of layers.
function layers(table) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-layers-'));
	const file = path.join(dir, 'layers.txt');
	fs.writeFileSync(file, table);
	try {
		execFileSync('sh', [path.join(ROOT, 'scripts', 'layers.sh')], { env: { ...process.env, LAYERS_TABLE: file }, encoding: 'utf8' });
		return { status: 0, out: '' };
	} catch (e) {
		return { status: e.status, out: e.stdout };
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
}

test('scripts/layers.sh fails on units that call each other, but for the known cycles of scripts/layers.txt', () => {
	const table = fs.readFileSync(path.join(ROOT, 'scripts', 'layers.txt'), 'utf8');
	assert.equal(layers(table).status, 0, 'the table as committed passes');
	// without its known cycles, each one fails, named with the calls that make it
	const r = layers(table.replace(/^cycle\s+account\s+totp\s*$/m, ''));
	assert.notEqual(r.status, 0);
	assert.match(r.out, /call each other in a loop: (account totp|totp account)/);
	assert.match(r.out, /totp account bl_password_verify/);
	assert.doesNotMatch(r.out, /websignin/, 'only the cycle no longer listed');
	assert.match(layers(table.replace(/^cycle\s+account\s+websignin\s*$/m, '')).out,
		/loop: (account websignin|websignin account)/);
});

test('what make generates from the route table is current (build/routes/)', () => {
	const gen = path.join(ROOT, 'build', 'routes-gen');
	assert.ok(fs.existsSync(gen), 'build/routes-gen is missing: run make');
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'burnlink-routes-'));
	try {
		const programs = fs.readdirSync(path.join(ROOT, 'cgi-bin')).filter((f) => f.endsWith('.c')).map((f) => f.slice(0, -2));
		execFileSync(gen, [dir, ...programs]);
		for (const f of fs.readdirSync(dir)) {
			assert.equal(fs.readFileSync(path.join(ROOT, 'build', 'routes', f), 'utf8'),
				fs.readFileSync(path.join(dir, f), 'utf8'), `build/routes/${f} is stale: run make`);
		}
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
});

// helpers.mjs: shared bits of the metrics suite (GET /api/metrics, docs/ADMIN.md "Metrics").
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync, spawnSync } from 'node:child_process';

// A token as an operator makes one (openssl rand -hex 32).
export function newToken() {
	return crypto.randomBytes(32).toString('hex');
}

// Writes a settings file any server user can read; returns its path.
export function writeSettings(dir, text) {
	const file = path.join(dir, 'metrics.conf');
	fs.writeFileSync(file, text, { mode: 0o644 });
	fs.chmodSync(file, 0o644);
	return file;
}

// The samples of a text exposition: { 'name{labels}': value }.
export function samples(text) {
	const out = {};
	for (const line of text.split('\n')) {
		if (line === '' || line.startsWith('#')) continue;
		const i = line.lastIndexOf(' ');
		out[line.slice(0, i)] = Number(line.slice(i + 1));
	}
	return out;
}

// Names of the counter families (# TYPE x counter) of a text exposition.
export function counterFamilies(text) {
	return text.split('\n').filter((l) => /^# TYPE \S+ counter$/.test(l)).map((l) => l.split(' ')[2]);
}

// promtool check metrics on text: { status, out }.
export function promtoolCheckMetrics(text) {
	const r = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
	return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

// promtool check rules on files: { status, out }.
export function promtoolCheckRules(...files) {
	const r = spawnSync('promtool', ['check', 'rules', ...files], { encoding: 'utf8' });
	return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

export function tmpDir(prefix) {
	const d = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	fs.chmodSync(d, 0o755);
	return d;
}

export function have(cmd) {
	try {
		execFileSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' });
		return true;
	} catch {
		return false;
	}
}

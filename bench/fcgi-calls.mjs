// fcgi-calls.mjs: what one request costs a FastCGI responder that is already
// running (docs/PERFORMANCE.md): instructions (callgrind) and system calls
// (strace -f) of N requests beyond a first one, per request, for a metadata
// request with a DOCUMENT_ROOT as a web server sends it. Needs `make dyn`.
//   node bench/fcgi-calls.mjs [PROGRAM_DIR]   (default build/dyn/cgi-bin)
// Prints a Markdown row: instructions, system calls and readlink calls per
// request; DETAIL=1 adds each system call's count per request.
import fs from 'node:fs';
import path from 'node:path';
import { newContext } from '../tests/lib/cgi.mjs';
import { startResponder } from '../tests/faults/fcgi.mjs';

const N = Number(process.env.N || 20);
const dir = path.resolve(process.argv[2] || 'build/dyn/cgi-bin');
const t = { after: () => {} };

async function run(wrap, count, exeOf = (d) => path.join(dir, 'metadata')) {
	const ctx = newContext();
	const made = await ctx.createOk({ text: 'bench' });
	const www = path.join(ctx.dir, 'www');
	fs.mkdirSync(www);
	const rsp = await startResponder(t, 'metadata', ctx.dir, {}, { exe: exeOf(ctx.dir), wrap: wrap(ctx.dir) });
	const env = { BURNLINK_DB: ctx.db, DOCUMENT_ROOT: www, BURNLINK_SELF_WORK: 'off' };
	for (let i = 0; i < count; i++) {
		const sent = await rsp.send({ method: 'GET', key: made.receiptKey, env });
		if (i === 0) rsp.go();
		const a = await sent.answer;
		if (a.status !== 200) throw new Error(`status ${a.status}: ${a.body}\n${rsp.stderr()}`);
	}
	await rsp.stop();
	return ctx.dir;
}

// callgrind in the responder's own process: a script the launcher runs, which execs valgrind
async function instructions(count) {
	const d = await run(() => [], count, (d) => {
		fs.writeFileSync(`${d}/vg.sh`, `#!/bin/sh\nexec valgrind -q --tool=callgrind --callgrind-out-file=${d}/cg.out ${path.join(dir, 'metadata')} "$@"\n`, { mode: 0o755 });
		return `${d}/vg.sh`;
	});
	return Number(/^summary: (\d+)/m.exec(fs.readFileSync(`${d}/cg.out`, 'utf8'))[1]);
}

async function syscalls(count) {
	const d = await run((d) => ['strace', '-f', '-qq', '-o', `${d}/st.out`], count);
	const lines = fs.readFileSync(`${d}/st.out`, 'utf8').split('\n').filter((l) => l && !/exited with|resumed>/.test(l));
	const by = {};
	for (const l of lines) {
		const m = /^\d+ +([a-z_0-9]+)\(/.exec(l);
		if (m) by[m[1]] = (by[m[1]] || 0) + 1;
	}
	return { total: lines.length, by };
}

const i1 = await instructions(1), iN = await instructions(1 + N);
const s1 = await syscalls(1), sN = await syscalls(1 + N);
const per = (a, b) => ((b - a) / N).toFixed(1);
console.log(`| ${dir} | ${Math.round((iN - i1) / N).toLocaleString('en')} | ${per(s1.total, sN.total)} | ${per(s1.by.readlink || 0, sN.by.readlink || 0)} |`);
if (process.env.DETAIL) {
	const names = new Set([...Object.keys(s1.by), ...Object.keys(sN.by)]);
	for (const n of [...names].sort()) {
		const d = ((sN.by[n] || 0) - (s1.by[n] || 0)) / N;
		if (d) console.log(`  ${n} ${d.toFixed(1)}`);
	}
}
process.exit(0);

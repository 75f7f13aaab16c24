// helpers.mjs: secret requests through the real `requests` CGI program
// (tests/lib/cgi.mjs), sealed and opened with the shared wire module.
import * as wire from '../../www/assets/wire.js';
import { newContext } from '../lib/cgi.mjs';

export { wire };

// A context (tests/lib/cgi.mjs) with the request operations; every body sent
// is kept in ctx.sent, every program's stderr in ctx.logs (for the scans).
export function requestContext(extraEnv) {
	const ctx = newContext(extraEnv);
	ctx.sent = [];
	ctx.logs = [];
	const run = async (method, key, body) => {
		if (body !== undefined)
			ctx.sent.push(JSON.stringify(body));
		const pathInfo = key === undefined ? undefined : `/${key}`;
		const res = await ctx.run('requests', {
			method, pathInfo, body,
			env: { REQUEST_URI: `/api/requests${pathInfo ?? ''}` },
		});
		ctx.logs.push(res.stderr);
		return res;
	};
	ctx.rq = {
		create: (body) => run('POST', undefined, body),
		get: (key) => run('GET', key),
		post: (key, body) => run('POST', key, body),
		burn: (key) => run('DELETE', key),
	};
	// A new request of the requester: its keys, the server's answer and the note key.
	ctx.ask = async ({ note, ttl, allowFiles } = {}) => {
		const keys = await wire.newRequestKeys();
		const body = { publicKey: keys.publicKey,
			note: await wire.sealNote(keys.noteKey, keys.publicKey, note ?? '') };
		if (ttl !== undefined) body.ttl = ttl;
		if (allowFiles !== undefined) body.allowFiles = allowFiles;
		const res = await ctx.rq.create(body);
		if (res.status !== 200)
			throw new Error(`request create: ${res.status} ${res.body.toString()}`);
		return { ...keys, ...res.json };
	};
	// The sender's answer: reads the request, seals content for its public
	// key and note key (the request link's; q as ask() returns it).
	ctx.answer = async (q, content) => {
		const got = await ctx.rq.get(q.requestKey);
		if (got.status !== 200)
			return got;
		return ctx.rq.post(q.requestKey, await wire.sealAnswer(got.json.publicKey, q.noteKey, content));
	};
	return ctx;
}

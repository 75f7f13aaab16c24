// node-test.mjs: node:test as a test file of tests/cgi or tests/http sees it when
// it runs against PostgreSQL: test(), it() and describe() skip what
// sqlite-only.mjs lists for that file, everything else is node:test itself.
import * as real from 'node:test';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { skipReason } from './sqlite-only.mjs';

export * from 'node:test';

const from = new URL(import.meta.url).searchParams.get('from');
const file = from ? path.relative(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..'),
	fileURLToPath(from)) : '';

// fn with a skip option added when its name is listed.
function wrap(fn) {
	return new Proxy(fn, {
		apply(target, self, args) {
			const reason = skipReason(file, args[0]);
			if (!reason) return Reflect.apply(target, self, args);
			let [name, opts, cb] = args;
			if (typeof opts === 'function') {
				cb = opts;
				opts = {};
			}
			return Reflect.apply(target, self, [name, { ...(opts || {}), skip: `SQLite only: ${reason}` }, cb]);
		},
	});
}

export const test = wrap(real.test);
export const it = wrap(real.it);
export const describe = wrap(real.describe);
export const suite = real.suite ? wrap(real.suite) : undefined;
export default test;

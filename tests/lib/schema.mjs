// schema.mjs: the schema's version and the old schemas the upgrade tests start
// from.
//
//   import { SCHEMA_VERSION, oldSchema } from '../lib/schema.mjs';
//   SCHEMA_VERSION              // BL_SCHEMA_VERSION of lib/store.h, the one place it is written
//   oldSchema('sqlite', 3)      // schema.sql as it was at version 3 (tests/lib/schemas/)
//
// The old schemas are the files as they were committed at that version
// (sqlite-v2.sql: schema.sql of 12426e2, sqlite-v3.sql and pg-v3.sql: of
// 060f52c, sqlite-v5.sql: of 5dd8e7a, sqlite-v6.sql and pg-v6.sql: of ad17c37, sqlite-v7.sql and
// pg-v7.sql: of 717fafd), not today's files edited: an upgrade is tested from what an
// older release really created.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const SCHEMA_VERSION = (() => {
	const m = /^#define\s+BL_SCHEMA_VERSION\s+(\d+)/m.exec(fs.readFileSync(path.join(ROOT, 'lib', 'store.h'), 'utf8'));
	if (!m) throw new Error('tests/lib/schema.mjs: no BL_SCHEMA_VERSION in lib/store.h');
	return Number(m[1]);
})();

export function oldSchema(backend, version) {
	return fs.readFileSync(path.join(ROOT, 'tests', 'lib', 'schemas', `${backend}-v${version}.sql`), 'utf8');
}

// hook.mjs: runs the CGI-level and HTTP-level suites against PostgreSQL. When
// BURNLINK_TEST_PG names a cluster directory (tests/pg/cluster.mjs, started by
// tests/run.sh), tests/lib/cgi.mjs and tests/lib/server.mjs ask this module for
// the database: each test context and each web server gets a fresh PostgreSQL
// database instead of a SQLite file, and the SQL the tests use to look inside
// (written for the sqlite3 shell) is translated to PostgreSQL's dialect.

import crypto from 'node:crypto';
import path from 'node:path';
import * as cluster from './cluster.mjs';

export const dir = process.env.BURNLINK_TEST_PG;

// A fresh database: { name, conninfo }.
export function newDatabase() {
	const name = cluster.createDatabase(dir);
	return { name, conninfo: cluster.conninfo(dir, name) };
}

/*
 * The sqlite3 forms the suites use, in PostgreSQL's dialect: blob literals,
 * group_concat, ifnull, hex(), subqueries without an alias. PRAGMA integrity_check has no counterpart (a
 * PostgreSQL database is not a file another process can tear), so it answers ok.
 */
export function translate(q) {
	if (/^\s*PRAGMA\s+integrity_check\s*;?\s*$/i.test(q)) return "SELECT 'ok'";
	return q
		.replace(/\bx'([0-9a-fA-F]*)'/g, "'\\x$1'::bytea")
		.replace(/\bgroup_concat\(([^()]*)\)/gi, "string_agg(($1)::text, ',')")
		.replace(/\bifnull\(/gi, 'coalesce(')
		.replace(/\bFROM \((SELECT [^()]*)\)(?!\s*(AS\s+)?\w)/gi, 'FROM ($1) AS t')
		.replace(/\bhex\(([^()]*)\)/gi, "upper(encode($1, 'hex'))");
}

// psql's booleans (t, f) as the sqlite3 shell prints them (1, 0).
function sqliteOutput(out) {
	return out.split('\n').map((l) => l.split('|').map((f) => (f === 't' ? '1' : f === 'f' ? '0' : f)).join('|')).join('\n');
}

export function sql(db, q) {
	return sqliteOutput(cluster.sql(dir, db, translate(q)));
}

function sha256hex(s) {
	return crypto.createHash('sha256').update(s).digest('hex');
}

/*
 * Turns a context of tests/lib/cgi.mjs (a temporary directory and a SQLite
 * path) into one on a fresh PostgreSQL database, unless the test chose its
 * own BURNLINK_DB. ctx.db stays the (unused) file path.
 */
export function adaptContext(ctx) {
	if (ctx.env.BURNLINK_DB !== ctx.db) return ctx;
	const { name, conninfo } = newDatabase();
	ctx.env.BURNLINK_DB = conninfo;
	if (!ctx.env.BURNLINK_SECRET_FILE) ctx.env.BURNLINK_SECRET_FILE = path.join(ctx.dir, 'secret.key');
	ctx.pgDatabase = name;
	ctx.sql = (q) => sql(name, q);
	ctx.age = (secretKey, agoMs = 1000) => {
		sql(name, `UPDATE secrets SET expires_at=${Math.trunc(Date.now() - agoMs)} ` +
			`WHERE secret_hash = x'${sha256hex(secretKey)}'`);
	};
	return ctx;
}

// The BURNLINK_DB of a web server of tests/lib/server.mjs.
export function serverDatabase() {
	return newDatabase().conninfo;
}

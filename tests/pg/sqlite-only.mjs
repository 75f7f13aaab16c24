// sqlite-only.mjs: the tests of the CGI-level and HTTP-level suites that examine
// SQLite itself (its files, its write lock, a corrupt file) or the SQLite
// backend's counters file, skipped and
// reported as such when those suites run against PostgreSQL. Keyed by file,
// then by test or suite name (an HTTP test's name also matches after its
// "<server>: " prefix). The PostgreSQL counterpart, where there is one, is in
// tests/pg/postgres.test.mjs.
const files = 'scans the SQLite database files for bytes; PostgreSQL: pg_dump scan in tests/pg';

export const sqliteOnly = {
	'cgi/cleanup.test.mjs': {
		'prunes ended passphrase-attempt windows': "seeds and reads the SQLite backend's counters file (<stem>-counters); PostgreSQL: tests/pg",
		'leaves no WAL content behind (checkpointed and truncated)': 'SQLite WAL file',
		'exits non-zero when the database is not a database': 'writes garbage into the SQLite file',
		'works in steps (the first of 500 rows): 1,234 expired secrets all go, with attachments, and no byte of their text is left':
			'copies rows with the sqlite3 shell and scans the SQLite files; PostgreSQL: cleanup in steps in tests/pg',
		'a second cleanup while one runs (holds the lock) stands down: exit 0, nothing removed':
			"holds the SQLite host's lock file; PostgreSQL: the advisory lock in tests/pg",
	},
	'cgi/keyslots.test.mjs': {
		'control: within one boot, a key put back on the list is handed out again':
			"the SQLite backend's keys file (<stem>-keys); PostgreSQL stores content unsealed (docs/SECURITY.md, \"Gone for good\")",
		'after a reboot a listed key is never handed out, and the secret that took it before still opens, once':
			"the SQLite backend's keys file (<stem>-keys); PostgreSQL stores content unsealed",
	},
	'cgi/health.test.mjs': {
		'counters store unusable: 503 naming counters': "turns the SQLite backend's counters file (<stem>-counters) into a directory; PostgreSQL keeps its counters in the database",
	},
	'cgi/commitment.test.mjs': {
		'a schema-version-3 database gains the column in place; its secrets keep working':
			'builds a version-3 SQLite file with the sqlite3 shell; PostgreSQL: tests/pg',
	},
	'cgi/root.test.mjs': {
		'cleanup before the first request creates nothing, and requests then work': 'lists the files of the SQLite data directory; PostgreSQL keeps no files there',
		'burnlink-admin before the first request creates the database as the directory\'s owner': 'the owner of the SQLite database file',
		'a symbolic link as the database path is refused, its target untouched': 'a SQLite database path',
		'a symbolic link as the counters path is refused, its target untouched': "the SQLite backend's counters file",
		'a symbolic link as the database path is not opened by a request either': 'a SQLite database path',
	},
	'cgi/secure-delete.test.mjs': {
		'server-side mode': files,
		'client-side mode': files,
		'with another connection open': 'holds a sqlite3 reader on the WAL',
		'a database of schema 6 (content stored unsealed)': 'builds a SQLite database of schema 6',
	},
	'cgi/datadir.test.mjs': {
		'a writable data directory of the programs\' own user works (suEXEC: mode 0700)':
			"runs the programs as another user over a SQLite data directory (with PostgreSQL the database is the test cluster's, which that user may not reach)",
	},
	'notify/selfwork.test.mjs': {
		'expired secrets are removed after a request, and the cleanup is recorded (health ok)':
			'ages secrets with the sqlite3 shell and writes the run records beside the SQLite file (with PostgreSQL they are beside the install secret)',
		'cron ran lately: the programs leave the work to it': 'ages secrets with the sqlite3 shell; the run records beside the SQLite file',
		'a sign-up\'s verification mail and a read receipt are delivered by the programs alone': 'the run records beside the SQLite file',
	},
	'cgi/upgrade.test.mjs': {
		'a schema-3 database made by an older release': 'the fixture is a SQLite file made by the programs of 604d26a',
		'a database whose schema is newer than the programs': 'marks the SQLite file with PRAGMA user_version; PostgreSQL: tests/pg',
	},
	'cgi/store.test.mjs': {
		'busy database': 'holds the SQLite write lock with sqlite3; PostgreSQL: a held row lock in tests/pg',
		'metadata on a file that is not a database is 503 STORE_UNAVAILABLE': 'writes garbage into the SQLite file',
		'a retrieve whose counters store is unreadable is 503 RATE_LIMIT_UNAVAILABLE (Retry-After: 60) and uses no view':
			"overwrites the SQLite backend's counters file (<stem>-counters); PostgreSQL: a missing counters table in tests/pg",
		'a create whose counters store is unreadable is 503 RATE_LIMIT_UNAVAILABLE and stores nothing':
			"overwrites the SQLite backend's counters file (<stem>-counters); PostgreSQL: a missing counters table in tests/pg",
	},
	'cgi/urls.test.mjs': {
		'what never reaches the database': files,
	},
	'http/api.test.mjs': {
		'410 SECRET_EXPIRED once expiresAt has passed': 'ages the secret with the sqlite3 shell; the CGI-level expiry tests run on PostgreSQL',
		'503 when the data directory cannot be written': 'a read-only SQLite directory; PostgreSQL: an unreachable database in tests/pg',
	},
};

// The reason to skip a test of file (relative to tests/) by its name, or undefined.
export function skipReason(file, name) {
	const list = sqliteOnly[file];
	if (!list || typeof name !== 'string') return undefined;
	if (list[name]) return list[name];
	const i = name.indexOf(': ');
	return i > 0 ? list[name.slice(i + 2)] : undefined;
}

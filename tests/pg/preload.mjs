// preload.mjs: `node --import ./tests/pg/preload.mjs --test ...` (tests/run.sh pg).
// Lets the CGI-level and HTTP-level test files run unchanged against PostgreSQL
// while the tests that examine SQLite itself (its files, locks and corruption)
// are reported as skipped, by name, with the reason in sqlite-only.mjs.
import { register } from 'node:module';

register('./loader.mjs', import.meta.url);

// openapi.mjs: checks an API response against docs/openapi.yaml, the OpenAPI
// 3.1 description the servers publish at /api/openapi.yaml. The request
// helpers every suite shares call it on each response they receive
// (tests/lib/server.mjs for the HTTP-level suites, tests/lib/cgi.mjs for the
// CGI-level ones), so an answer that the description does not allow fails the
// test that asked for it.
//
//   import { responseProblems, checkResponse } from '../lib/openapi.mjs';
//   responseProblems({ method, path, status, headers, body })  // [] when it conforms
//   checkResponse(...)                                          // throws when not
//
// What is checked, for a path and method the description names:
//   - the status is one of the operation's responses (a method the path does
//     not serve: one of the path's x-burnlink-other-methods responses);
//   - every header the response marks `required` is there, and every header
//     it names that is there matches its schema (integers as decimal digits);
//   - the Content-Type is one of the response's media types;
//   - the body (not for HEAD) is JSON valid against the media type's schema,
//     with ajv's JSON Schema 2020-12 dialect (the dialect of OpenAPI 3.1).
// Paths the description does not name (the pages, /api/<nothing>) are not
// checked, nor a web server's own answer (not JSON, no X-Request-Id) with one
// of the statuses listed in x-burnlink-server-answers (a request it refused
// before any program ran). BURNLINK_OPENAPI_CHECK=0 turns the check off (for debugging).

import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The validator and the YAML parser are npm packages (package.json): `npm ci`,
// which tests/run.sh does before the suites.
let Ajv2020, addFormats, YAML;
try {
	({ default: Ajv2020 } = await import('ajv/dist/2020.js'));
	({ default: addFormats } = await import('ajv-formats'));
	({ default: YAML } = await import('yaml'));
} catch (e) {
	throw new Error(`tests/lib/openapi.mjs: ${e.message}; run npm ci (the packages of package.json)`);
}

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
export const SPEC_PATH = path.join(ROOT, 'docs', 'openapi.yaml');
export const enabled = process.env.BURNLINK_OPENAPI_CHECK !== '0';

const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete', 'options', 'trace'];
const SPEC_ID = 'https://burnlink.invalid/openapi.yaml';

let loaded = null;

// The parsed description, its ajv instance and the path templates as regular expressions.
function spec() {
	if (loaded) return loaded;
	const doc = YAML.parse(fs.readFileSync(SPEC_PATH, 'utf8'), { maxAliasCount: -1 });
	// strict: false lets OpenAPI's own keywords (discriminator, example) through.
	const ajv = new Ajv2020({ strict: false, allErrors: true });
	addFormats(ajv);
	ajv.addSchema(doc, SPEC_ID);
	const paths = Object.keys(doc.paths).map((template) => {
		const names = [];
		const src = template.split(/(\{[^}]+\})/).map((part) => {
			const m = /^\{([^}]+)\}$/.exec(part);
			if (!m) return part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
			names.push(m[1]);
			// one segment, empty included: "/api/secrets/" reaches the program too
			return '([^/]*)';
		}).join('');
		return { template, re: new RegExp(`^${src}$`), names };
	});
	loaded = { doc, ajv, paths, validators: new Map() };
	return loaded;
}

// A JSON pointer token.
const token = (s) => String(s).replace(/~/g, '~0').replace(/\//g, '~1');

// Follows an OpenAPI $ref ("#/components/...") within the document: [object, pointer].
function deref(doc, obj, pointer) {
	while (obj && typeof obj.$ref === 'string' && obj.$ref.startsWith('#/')) {
		pointer = obj.$ref.slice(1);
		obj = pointer.split('/').slice(1).reduce((o, t) => o?.[t.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
	}
	return [obj, pointer];
}

// The compiled validator of the schema at pointer in the document.
function validator(s, pointer) {
	let v = s.validators.get(pointer);
	if (!v) {
		v = s.ajv.compile({ $ref: `${SPEC_ID}#${pointer}` });
		s.validators.set(pointer, v);
	}
	return v;
}

function ajvErrors(v) {
	return (v.errors || []).map((e) => `${e.instancePath || '/'} ${e.message}` +
		(e.params && Object.keys(e.params).length ? ` ${JSON.stringify(e.params)}` : ''));
}

// The path template of the description a request path falls under, or null.
export function matchPath(urlPath) {
	const p = urlPath.split('?')[0];
	for (const t of spec().paths)
		if (t.re.test(p)) return t.template;
	return null;
}

// A header value by lower-cased name, from a Headers object or a plain object.
function header(headers, name) {
	if (!headers) return undefined;
	if (typeof headers.get === 'function') {
		const v = headers.get(name);
		return v === null ? undefined : v;
	}
	const v = headers[name.toLowerCase()];
	return Array.isArray(v) ? v.join(', ') : v;
}

// A header's text as the value its schema describes (integers as numbers).
function headerValue(schema, text) {
	if (schema && (schema.type === 'integer' || schema.type === 'number'))
		return /^-?[0-9]+$/.test(text) ? Number(text) : text;
	return text;
}

/*
 * What is wrong with a response by docs/openapi.yaml ([] when nothing, or
 * when the description does not name the path).
 *   method   the request method ('GET', ...)
 *   path     the request path ('/api/secrets/<key>', a query is ignored)
 *   status   the response status
 *   headers  a Headers object, or a plain object with lower-cased names
 *   body     the response body (string or Buffer); not looked at for HEAD
 */
export function responseProblems({ method, path: urlPath, status, headers, body }) {
	if (!enabled) return [];
	const s = spec();
	const template = matchPath(urlPath);
	if (template === null) return [];
	const item = s.doc.paths[template];
	const m = String(method || 'GET').toLowerCase();
	let responses, base;
	if (METHODS.includes(m) && item[m]) {
		responses = item[m].responses;
		base = `/paths/${token(template)}/${m}/responses`;
	} else {
		responses = item['x-burnlink-other-methods'];
		base = `/paths/${token(template)}/x-burnlink-other-methods`;
		if (!responses) return [`${method} ${template}: the description has no such operation`];
	}
	const shown = urlPath.split('?')[0];
	const what = `${method} ${shown.length > 120 ? `${shown.slice(0, 120)}...` : shown} → ${status}`;
	const [resp, pointer] = deref(s.doc, responses[String(status)], `${base}/${token(status)}`);
	const ctype = (header(headers, 'content-type') || '').split(';')[0].trim().toLowerCase();
	// The web server's own answer to a request it refused before any program
	// ran: a status the description lists as such, and not the programs' JSON.
	if (ctype !== 'application/json' && header(headers, 'x-request-id') === undefined &&
	    (s.doc['x-burnlink-server-answers'] || []).map(Number).includes(Number(status)))
		return [];
	if (!resp) {
		return [`${what}: status ${status} is not one of ${Object.keys(responses).join(', ')} in docs/openapi.yaml (${template})`];
	}
	const problems = [];
	for (const [name, h0] of Object.entries(resp.headers || {})) {
		const [h, hp] = deref(s.doc, h0, `${pointer}/headers/${token(name)}`);
		const text = header(headers, name);
		if (text === undefined) {
			if (h.required) problems.push(`header ${name} is missing`);
			continue;
		}
		if (!h.schema) continue;
		const v = validator(s, `${hp}/schema`);
		if (!v(headerValue(deref(s.doc, h.schema, '')[0], text)))
			problems.push(`header ${name}: ${JSON.stringify(text)} ${ajvErrors(v).join('; ')}`);
	}
	if (Number(status) === 405 && resp.headers?.Allow) problems.push(...notAllowedProblems(item, template, headers));
	const content = resp.content || {};
	const types = Object.keys(content);
	if (types.length > 0 && !types.includes(ctype)) {
		problems.push(`Content-Type ${JSON.stringify(ctype)} is not ${types.join(' or ')}`);
	} else if (types.length > 0 && m !== 'head' && content[ctype].schema && ctype.endsWith('json')) {
		const text = Buffer.isBuffer(body) ? body.toString('utf8') : String(body ?? '');
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			problems.push(`the body is not JSON: ${JSON.stringify(text.slice(0, 200))}`);
		}
		if (json !== undefined) {
			const v = validator(s, `${pointer}/content/${token(ctype)}/schema`);
			if (!v(json)) problems.push(`body ${JSON.stringify(text.slice(0, 300))}: ${ajvErrors(v).join('; ')}`);
		}
	}
	return problems.map((p) => `${what}: ${p}`);
}

// What a 405 of the shared MethodNotAllowed response derives from elsewhere:
// Allow names the path's operations in this file, and the route's rate-limit
// headers are there when the route table counts it before matching the method
// (routes.json's counted, from BL_ROUTE_NOT_PRECOUNTED).
function notAllowedProblems(item, template, headers) {
	const problems = [];
	const ops = METHODS.filter((m) => item[m]).map((m) => m.toUpperCase()).join(', ');
	const allow = header(headers, 'allow');
	if (allow !== undefined && allow !== ops)
		problems.push(`header Allow: ${JSON.stringify(allow)} is not the path's operations (${ops})`);
	const url = template.replace(/\/\{[^}]+\}$/, '');
	if (routeTable().some((r) => r.url === url && r.counted)) {
		for (const name of ['X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset'])
			if (header(headers, name) === undefined) problems.push(`header ${name} is missing (the route is counted)`);
	}
	return problems;
}

// The members of a schema of docs/openapi.yaml (components.schemas[name]):
// { required, properties }, each sorted. For tests that look at an answer's
// members: they follow the description instead of a list of their own.
export function schemaMembers(name) {
	const schema = spec().doc.components.schemas[name];
	if (!schema) throw new Error(`docs/openapi.yaml has no schema ${name}`);
	return { required: [...(schema.required || [])].sort(), properties: Object.keys(schema.properties || {}).sort() };
}

// Throws an Error naming every way the response departs from docs/openapi.yaml.
export function checkResponse(res) {
	const problems = responseProblems(res);
	if (problems.length > 0)
		throw new Error(`the response does not match docs/openapi.yaml:\n  ${problems.join('\n  ')}`);
}

// The route table (lib/route.c), as `make` writes it for the web servers
// (scripts/routes-gen.c): each program's URL, what its path takes, and the
// methods it takes there when routes share a URL.
export const ROUTES_PATH = path.join(ROOT, 'build', 'routes', 'routes.json');
let routes = null;
export function routeTable() {
	if (routes) return routes;
	try {
		routes = JSON.parse(fs.readFileSync(ROUTES_PATH, 'utf8')).routes;
	} catch (e) {
		throw new Error(`tests/lib/openapi.mjs: ${e.message}; run make (it writes build/routes/)`);
	}
	return routes;
}

// The API path and method a CGI request to one of the programs stands for:
// { path, method }, or null for a program without a route. A method the web
// servers would route to another program (POST to metadata) is one the
// program's path does not serve: it answers 405.
export function cgiRoute(program, method, pathInfo) {
	const r = routeTable().find((x) => x.name === program);
	if (!r) return null;
	const item = pathInfo !== undefined && pathInfo !== '' && pathInfo !== '/';
	switch (r.path) {
	case 'none':
		return { path: r.url, method };
	case 'key':
		return { path: `${r.url}${pathInfo ?? '/'}`, method: r.takes.includes(method) ? method : 'OTHER' };
	default:
		return { path: item ? `${r.url}${pathInfo}` : r.url, method };
	}
}
